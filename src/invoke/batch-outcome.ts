/**
 * Collects the per-message results of the invokes one batch took (sub-batches, bisected halves, messages
 * dead-lettered without an invoke) and merges them into one ConsumeResult with indexes of the whole batch.
 */
import type { ConsumeResult, DeadLetterEntry } from '../consumer/message-listener.js';
import type { FailureCondition } from './failure-record.js';

/** How many distinct failure reasons a merged reason quotes. */
const MAX_QUOTED_REASONS = 3;

/**
 * A message dead-lettered by the listener, with the failure condition for the onFailure record.
 */
export interface DeadLetterDecision extends DeadLetterEntry {
  readonly condition: FailureCondition;
}

/**
 * The results of one batch so far. `stopped` is set (in orderly mode) once a message failed: later
 * messages are then failed without an invoke.
 */
export class BatchOutcome {
  readonly #size: number;
  readonly #orderly: boolean;
  readonly #failed: Uint8Array;
  readonly #deadLetters = new Map<number, DeadLetterDecision>();
  readonly #reasons: string[] = [];
  #invokes = 0;
  /** The result of the only invoke, when it covered the whole batch (passed through unchanged). */
  #wholeBatchResult: ConsumeResult | undefined;
  #stopped = false;

  constructor(size: number, orderly: boolean) {
    this.#size = size;
    this.#orderly = orderly;
    this.#failed = new Uint8Array(size);
  }

  /** Orderly mode only: a message failed, so later ones must not be invoked before it succeeds. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Invokes recorded so far. */
  get invokes(): number {
    return this.#invokes;
  }

  /** The dead-lettered messages, ascending by index. */
  deadLetters(): DeadLetterDecision[] {
    return [...this.#deadLetters.values()].sort((a, b) => a.index - b.index);
  }

  /** A message goes straight to the DLQ (it does not stop an orderly batch: the DLQ settles it). */
  deadLetter(decision: DeadLetterDecision): void {
    this.#deadLetters.set(decision.index, decision);
  }

  /** The result of one invoke of the messages at `indexes` (ascending batch indexes). */
  recordInvoke(indexes: readonly number[], result: ConsumeResult): void {
    this.#invokes++;
    this.#wholeBatchResult = this.#invokes === 1 && indexes.length === this.#size ? result : undefined;
    if (result.status === 'SUCCESS') return;
    this.#addReason(result.reason);
    if (result.status === 'FAILED') {
      for (const index of indexes) this.#failed[index] = 1;
    } else {
      for (const local of result.failedIndexes) {
        const index = indexes[local];
        if (index !== undefined) this.#failed[index] = 1;
      }
    }
    if (this.#orderly) this.#stopped = true;
  }

  /** Messages not invoked (an earlier orderly failure, an abort): they failed, to be retried. */
  recordNotInvoked(indexes: readonly number[], reason: string): void {
    if (indexes.length === 0) return;
    this.#wholeBatchResult = undefined;
    this.#addReason(reason);
    for (const index of indexes) this.#failed[index] = 1;
  }

  /** The merged result, with indexes of the whole batch. */
  toConsumeResult(): ConsumeResult {
    const deadLetters = this.deadLetters();
    if (deadLetters.length === 0 && this.#wholeBatchResult !== undefined) return this.#wholeBatchResult;
    const failedIndexes: number[] = [];
    for (let i = 0; i < this.#size; i++) {
      if (this.#failed[i] === 1 || this.#deadLetters.has(i)) failedIndexes.push(i);
    }
    if (failedIndexes.length === 0) return { status: 'SUCCESS' };
    const deadLetter: DeadLetterEntry[] = deadLetters.map(({ index, reason }) => ({ index, reason }));
    for (const { reason } of deadLetters) this.#addReason(reason);
    const reason =
      `${failedIndexes.length} of ${this.#size} records failed` +
      ` (${this.#invokes} invoke${this.#invokes === 1 ? '' : 's'}` +
      `${deadLetter.length > 0 ? `, ${deadLetter.length} dead-lettered` : ''}): ` +
      this.#reasons.slice(0, MAX_QUOTED_REASONS).join('; ') +
      (this.#reasons.length > MAX_QUOTED_REASONS
        ? `; and ${this.#reasons.length - MAX_QUOTED_REASONS} more`
        : '');
    const extra = deadLetter.length > 0 ? { deadLetter } : {};
    if (failedIndexes.length === this.#size) return { status: 'FAILED', reason, ...extra };
    return { status: 'PARTIAL', failedIndexes, reason, ...extra };
  }

  #addReason(reason: string): void {
    if (!this.#reasons.includes(reason)) this.#reasons.push(reason);
  }
}
