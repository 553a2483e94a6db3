/**
 * "Did you mean" for an unknown key: the known key a typo most likely meant, shared by the config
 * file's problems and the Serverless plugin's, so both suggest the same key for the same typo.
 */
import { editDistance } from './edit-distance.js';

/**
 * A known key equal but for case, or within two edits (a third of the key's length, at least one);
 * an adjacent transposition counts as one edit. The nearest wins; ties go to the first in `known`.
 * A candidate whose length differs from the key's by more than the edit limit is out of reach without
 * computing a distance, so an unknown key of any length (it comes from a config or a command line)
 * costs its length, not its length times each candidate's.
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const limit = Math.min(2, Math.max(1, Math.floor(key.length / 3)));
  const reachable = known.filter((candidate) => Math.abs(candidate.length - key.length) <= limit);
  if (reachable.length === 0) return undefined;
  const lower = key.toLowerCase();
  const sameCase = reachable.find((candidate) => candidate.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  let best: { key: string; distance: number } | undefined;
  for (const candidate of reachable) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance))
      best = { key: candidate, distance };
  }
  return best?.key;
}
