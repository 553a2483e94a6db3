/**
 * What a consume service hands a batch to. The consumer layer knows nothing of Lambda: the invoke layer
 * implements this interface (event building, invoking, result mapping) and the consumer applies the result.
 */
import type { MessageExt } from '../protocol/message.js';
import type { MessageQueue } from '../protocol/message-queue.js';

/** One pulled message on its way to the function. */
export interface ConsumedMessage {
  readonly message: MessageExt;
  /** The queue it was pulled from (a `%RETRY%<group>` queue for retries): offsets are tracked here. */
  readonly queue: MessageQueue;
  /** The message's real topic: `RETRY_TOPIC` for messages of the retry topic, else the queue's topic. */
  readonly topic: string;
}

/** Facts about the batch being consumed. */
export interface ConsumeContext {
  readonly consumerGroup: string;
  readonly orderly: boolean;
  /** Aborted when shutdown gives up waiting for this batch. */
  readonly signal: AbortSignal;
}

/**
 * A failed message that must not be retried: the consume service sends it straight to the DLQ (send-back
 * with delayLevel -1) without counting a retry, e.g. a message too large for any invoke, or older than the
 * mapping's `maxRecordAgeSeconds`.
 */
export interface DeadLetterEntry {
  /** The message's index in the batch. */
  readonly index: number;
  /** Why it cannot be consumed, for logs, the DLQ and the failure destination. */
  readonly reason: string;
}

/**
 * The outcome of one batch, per message.
 * - `SUCCESS`: every message succeeded.
 * - `FAILED`: the whole batch failed (invoke error, malformed response, ...).
 * - `PARTIAL`: the messages at `failedIndexes` failed, the rest succeeded. In orderly mode the consumer
 *   treats everything from the first failed index on as failed, dead-lettered indexes excepted (below).
 *
 * `deadLetter` (optional, on `FAILED` and `PARTIAL`, ascending by index): failed messages that go straight
 * to the DLQ without counting a retry. Every dead-lettered index is also a failed one (all of them for
 * `FAILED`, listed in `failedIndexes` for `PARTIAL`), so a service that ignores the field retries them
 * like any failure and nothing is lost. In orderly mode a dead-lettered message is settled by the DLQ: it
 * does not hold back the messages after it; the first failed index that is not dead-lettered starts the
 * failed tail.
 */
export type ConsumeResult = (
  | { readonly status: 'SUCCESS' }
  | {
      readonly status: 'FAILED';
      readonly reason: string;
      readonly deadLetter?: readonly DeadLetterEntry[] | undefined;
    }
  | {
      readonly status: 'PARTIAL';
      readonly failedIndexes: readonly number[];
      readonly reason: string;
      readonly deadLetter?: readonly DeadLetterEntry[] | undefined;
    }
) & {
  /**
   * Of the succeeded messages, how many the listener dropped unconsumed by the mapping's filter criteria
   * (never invoked): counted in `filteredOut` of the consumer's counters. Absent: none.
   */
  readonly filteredOut?: number | undefined;
};

/**
 * Why messages failed for good: `retries-exhausted`, they failed at `maxReconsumeTimes` (or an orderly
 * skip); `too-large`, the consumer dead-lettered them without a delivery because their compressed body
 * would inflate past `maxDecompressedBodyBytes`.
 */
export type FinalFailureCause = 'retries-exhausted' | 'too-large';

/**
 * Consumes one batch. Throwing an error is the same as `FAILED`, except an error with `fatal: true`
 * (e.g. the function does not exist): then the runtime stops pulling for the mapping and leaves the batch
 * unconsumed (its offsets do not move, nothing is sent to retry).
 *
 * The `messages` array is lent for the batch: the concurrent consumer empties it once it has applied the
 * result (the messages themselves are left as they are), so a listener that keeps the list past its
 * promise copies it (`[...messages]`). See docs/architecture.md, "Garbage".
 *
 * @example
 * ```ts
 * const listener: MessageListener = {
 *   async consume(messages) {
 *     for (const m of messages) console.log(m.topic, m.message.msgId);
 *     return { status: 'SUCCESS' };
 *   },
 * };
 * ```
 */
export interface MessageListener {
  consume(messages: readonly ConsumedMessage[], context: ConsumeContext): Promise<ConsumeResult>;
  /**
   * Optional. Called once the broker took messages that failed for good: failed again at
   * `reconsumeTimes >= maxReconsumeTimes` and sent back (the broker puts them into `%DLQ%<group>`), or
   * skipped to the DLQ after the retry limit in orderly mode (`cause` 'retries-exhausted'); or handed to
   * the DLQ by the consumer, never delivered, because they are too large to inflate (`cause`
   * 'too-large'). Not called for the listener's own `deadLetter` entries (it reported those when it
   * returned them). Should not reject; a rejection is logged and ignored (the messages are in the DLQ
   * regardless).
   */
  notifyFinalFailure?(
    messages: readonly ConsumedMessage[],
    reason: string,
    cause?: FinalFailureCause,
  ): Promise<void>;
}
