import type { ConsumeResult } from '../message-listener.js';
import { failedIndexes } from './failed-indexes.js';

/**
 * The records a result dead-letters (straight to the DLQ without a retry), by index, with the reason.
 * Entries naming an index outside the batch or a record the result does not fail are ignored: such a
 * record is then retried or committed as the rest of the result says.
 */
export function deadLetterIndexes(result: ConsumeResult, length: number): Map<number, string> {
  const dead = new Map<number, string>();
  if (result.status === 'SUCCESS' || result.deadLetter === undefined) return dead;
  const failed = failedIndexes(result, length);
  for (const entry of result.deadLetter) {
    const valid = Number.isInteger(entry.index) && entry.index >= 0 && entry.index < length;
    if (valid && (failed === undefined || failed.has(entry.index))) dead.set(entry.index, entry.reason);
  }
  return dead;
}
