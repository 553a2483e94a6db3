/**
 * What a listener result says of each record of its batch, read once for both consume services: the
 * record succeeded, must be retried, or goes straight to the DLQ. Built on {@link failedIndexes} and
 * {@link deadLetterIndexes}, so both services read a result exactly the same way.
 */
import type { ConsumeResult } from '../message-listener.js';
import { deadLetterIndexes } from './dead-letter-indexes.js';
import { failedIndexes } from './failed-indexes.js';

/** A record the result dead-letters: to `%DLQ%<group>` without a retry. */
export interface DeadLetterVerdict<T> {
  readonly record: T;
  readonly kind: 'deadLetter';
  readonly reason: string;
}

/** One record of a batch with what the result says of it. */
export type RecordVerdict<T> =
  | { readonly record: T; readonly kind: 'succeeded' }
  | { readonly record: T; readonly kind: 'retry' }
  | DeadLetterVerdict<T>;

/** A result read record by record; every record is in exactly one of `succeeded`, `retry`, `deadLetter`. */
export interface ResultClassification<T> {
  /** Every record once, in batch order. */
  readonly inOrder: readonly RecordVerdict<T>[];
  readonly succeeded: readonly T[];
  /** Failed records to retry (send back, or redeliver). */
  readonly retry: readonly T[];
  /** Failed records the result dead-letters (only when dead letters are honoured). */
  readonly deadLetter: readonly DeadLetterVerdict<T>[];
  /** How many records the result fails (`retry` and `deadLetter` together). */
  readonly failedCount: number;
  /** A PARTIAL named an index outside the batch: every record counts as failed. */
  readonly invalidPartial: boolean;
  /** Why the failed records failed: the result's reason. */
  readonly reason: string;
}

/** Options of {@link classifyResult}. */
export interface ClassifyResultOptions {
  /** Whether `deadLetter` entries are honoured; when false, dead-lettered records are retried. */
  readonly deadLetters: boolean;
}

/**
 * Classifies the records of a batch by what `result` says of each (`records[i]` is the batch's index
 * `i`). Failed records are those of {@link failedIndexes} (all of them for an invalid PARTIAL); of those,
 * the ones {@link deadLetterIndexes} names are dead-lettered when `deadLetters` is set, the rest retried.
 */
export function classifyResult<T>(
  result: ConsumeResult,
  records: readonly T[],
  options: ClassifyResultOptions,
): ResultClassification<T> {
  const failed = failedIndexes(result, records.length);
  const dead = options.deadLetters ? deadLetterIndexes(result, records.length) : new Map<number, string>();
  // One pass over the batch, no object per record but for dead letters: this runs for every batch on
  // the hot path, and only the orderly service reads the records in order (made on its first read).
  // The usual result fails nothing: one exact copy of the batch.
  const succeeded: T[] = failed?.size === 0 ? records.slice() : [];
  const retry: T[] = [];
  const deadLetter: DeadLetterVerdict<T>[] = [];
  for (let index = succeeded.length; index < records.length; index++) {
    const record = records[index] as T;
    if (failed !== undefined && !failed.has(index)) {
      succeeded.push(record);
      continue;
    }
    const reason = dead.get(index);
    if (reason === undefined) retry.push(record);
    else deadLetter.push({ record, kind: 'deadLetter', reason });
  }
  let inOrder: RecordVerdict<T>[] | undefined;
  return {
    get inOrder(): readonly RecordVerdict<T>[] {
      inOrder ??= verdictsInOrder(records, failed, dead, deadLetter);
      return inOrder;
    },
    succeeded,
    retry,
    deadLetter,
    failedCount: records.length - succeeded.length,
    invalidPartial: failed === undefined,
    reason: failureReason(result),
  };
}

/** Every record's verdict in batch order; the dead-letter verdicts are the very ones of `deadLetter`. */
function verdictsInOrder<T>(
  records: readonly T[],
  failed: ReadonlySet<number> | undefined,
  dead: ReadonlyMap<number, string>,
  deadLetter: readonly DeadLetterVerdict<T>[],
): RecordVerdict<T>[] {
  const verdicts: RecordVerdict<T>[] = [];
  let nextDead = 0;
  for (let index = 0; index < records.length; index++) {
    const record = records[index] as T;
    if (failed !== undefined && !failed.has(index)) verdicts.push({ record, kind: 'succeeded' });
    else if (dead.has(index)) verdicts.push(deadLetter[nextDead++] as DeadLetterVerdict<T>);
    else verdicts.push({ record, kind: 'retry' });
  }
  return verdicts;
}

/** The reason of a result's failures ('invalid result' for a SUCCESS, which fails nothing). */
function failureReason(result: ConsumeResult): string {
  return result.status === 'SUCCESS' ? 'invalid result' : result.reason;
}
