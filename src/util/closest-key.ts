/**
 * "Did you mean" for an unknown key: the known key a typo most likely meant, shared by the config
 * file's problems and the Serverless plugin's, so both suggest the same key for the same typo.
 */

/**
 * A known key equal but for case, or within two edits (a third of the key's length, at least one);
 * an adjacent transposition counts as one edit. The nearest wins; ties go to the first in `known`.
 *
 * @example
 * ```ts
 * closestKey('bathcSize', ['batchSize', 'topic']); // => 'batchSize'
 * closestKey('TOPIC', ['batchSize', 'topic']); // => 'topic'
 * closestKey('region', ['batchSize', 'topic']); // => undefined
 * ```
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const sameCase = known.find((candidate) => candidate.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  const limit = Math.min(2, Math.max(1, Math.floor(key.length / 3)));
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance))
      best = { key: candidate, distance };
  }
  return best?.key;
}

/**
 * Levenshtein distance with adjacent transpositions counted as one edit (optimal string alignment).
 *
 * @example
 * ```ts
 * editDistance('topic', 'tpoic'); // => 1
 * editDistance('kitten', 'sitting'); // => 3
 * ```
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const above = rows[i - 1] ?? [];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(value);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}
