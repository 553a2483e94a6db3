/**
 * How many edits turn one string into another, for "did you mean" suggestions (src/util/closest-key.ts).
 */

/**
 * Levenshtein distance with adjacent transpositions counted as one edit (optimal string alignment).
 * Costs `a.length × b.length` steps: callers bound their inputs (closestKey skips a candidate whose
 * length alone puts it out of reach).
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
