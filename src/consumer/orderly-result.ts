/**
 * How an orderly consume service reads a listener result: where the committed prefix ends, which
 * records the result blames, and Java's clamp of the suspend time.
 */
import type { ConsumeResult } from './message-listener.js';

/**
 * `suspendCurrentQueueTimeMs` clamped to Java's 10..30,000 ms.
 *
 * @example
 * ```ts
 * clampSuspendTimeMs(5); // => 10
 * ```
 */
export function clampSuspendTimeMs(ms: number): number {
  return Math.min(30_000, Math.max(10, ms));
}

/**
 * The records a failed result blames: the named ones for PARTIAL, every record for FAILED; undefined
 * (every record) for a PARTIAL result naming an index outside the batch.
 *
 * @example
 * ```ts
 * blamedIndexes({ status: 'PARTIAL', failedIndexes: [2], reason: 'x' }, 4); // => Set {2}
 * ```
 */
export function blamedIndexes(result: ConsumeResult, length: number): Set<number> | undefined {
  if (result.status !== 'PARTIAL') {
    return new Set(result.status === 'SUCCESS' ? [] : Array.from({ length }, (_, i) => i));
  }
  const set = new Set<number>();
  for (const index of result.failedIndexes) {
    if (!Number.isInteger(index) || index < 0 || index >= length) return undefined;
    set.add(index);
  }
  return set;
}

/**
 * The records a result dead-letters (straight to the DLQ without a retry), by index, with the reason.
 * Entries naming an index outside the batch or a record the result does not fail are ignored: such a
 * record is then retried or committed as the rest of the result says.
 *
 * @example
 * ```ts
 * deadLetterIndexes({ status: 'FAILED', reason: 'x', deadLetter: [{ index: 0, reason: 'too large' }] }, 2);
 * // => Map { 0 => 'too large' }
 * ```
 */
export function deadLetterIndexes(result: ConsumeResult, length: number): Map<number, string> {
  const dead = new Map<number, string>();
  if (result.status === 'SUCCESS' || result.deadLetter === undefined) return dead;
  const blamed = blamedIndexes(result, length);
  for (const entry of result.deadLetter) {
    const valid = Number.isInteger(entry.index) && entry.index >= 0 && entry.index < length;
    if (valid && (blamed === undefined || blamed.has(entry.index))) dead.set(entry.index, entry.reason);
  }
  return dead;
}
