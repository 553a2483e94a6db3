/**
 * Which records of a batch a listener result fails, read the same way by the concurrent and the orderly
 * consume service.
 */
import type { ConsumeResult } from '../message-listener.js';

/**
 * The records a result fails: none for SUCCESS, every record for FAILED, the named ones for PARTIAL;
 * undefined when a PARTIAL result names an index outside the batch (the caller then fails the whole
 * batch).
 */
export function failedIndexes(result: ConsumeResult, batchLength: number): Set<number> | undefined {
  if (result.status !== 'PARTIAL') {
    return new Set(result.status === 'SUCCESS' ? [] : Array.from({ length: batchLength }, (_, i) => i));
  }
  const set = new Set<number>();
  for (const index of result.failedIndexes) {
    if (!Number.isInteger(index) || index < 0 || index >= batchLength) return undefined;
    set.add(index);
  }
  return set;
}
