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
 * The outcome of one batch, per message.
 * - `SUCCESS`: every message succeeded.
 * - `FAILED`: the whole batch failed (invoke error, malformed response, ...).
 * - `PARTIAL`: the messages at `failedIndexes` failed, the rest succeeded. In orderly mode the consumer
 *   treats everything from the first failed index on as failed.
 */
export type ConsumeResult =
  | { readonly status: 'SUCCESS' }
  | { readonly status: 'FAILED'; readonly reason: string }
  | { readonly status: 'PARTIAL'; readonly failedIndexes: readonly number[]; readonly reason: string };

/**
 * Consumes one batch. Throwing an error is the same as `FAILED`, except an error with `fatal: true`
 * (e.g. the function does not exist): then the runtime stops pulling for the mapping and leaves the batch
 * unconsumed (its offsets do not move, nothing is sent to retry).
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
}
