/**
 * Consumer lag, the model every consume mode reports in (mapping-consumer.ts `lag()`): how many messages
 * of a queue are not done yet. Lag = the broker's max offset (the offset its next stored message gets)
 * minus the queue's consumed position (the committed offset: the smallest offset not yet handled; before
 * anything was handled, the smallest buffered or the next pulled offset). Buffered and in-flight messages
 * count as lag, as in RocketMQ's `consumerProgress`. The metrics publish it (metrics/queue-lag.ts).
 */

import type { MessageQueue } from '../protocol/message-queue.js';
import { describeError } from '../util/describe-error.js';
import type { QueueStatus } from './consumer-status.js';

/** Retry topics are `%RETRY%<group>` (see `retryTopicOf`); a POP retry topic also starts so. */
export const RETRY_TOPIC_PREFIX = '%RETRY%';

/**
 * The lag of one held queue. `lag` is undefined when it could not be measured (broker unreachable, start
 * offset not resolved yet); `error` then says why.
 */
export interface QueueLag {
  readonly queue: MessageQueue;
  /** A `%RETRY%<group>` queue: messages due for another attempt. */
  readonly retry: boolean;
  readonly maxOffset: number | undefined;
  readonly consumedOffset: number | undefined;
  readonly lag: number | undefined;
  readonly error: string | undefined;
}

/**
 * The lag of one mapping: per held queue, and summed over the queues that could be measured.
 */
export interface ConsumerLag {
  readonly name: string;
  readonly consumerGroup: string;
  readonly topic: string;
  readonly queues: readonly QueueLag[];
  /**
   * The lag this poller answers for: the sum of the measured queues' lag (retry queues included) divided
   * by `sharedBy`, rounded up. What the lag metric publishes and the autoscaling averages over tasks.
   */
  readonly total: number;
  /**
   * Pollers sharing these queues' backlog: 1 for a PUSH mapping (a held queue is this poller's alone); for
   * a POP mapping every poller of the group pops every queue, so it is the group's registered pollers.
   */
  readonly sharedBy: number;
  /** Held queues whose lag could not be measured. */
  readonly unknownQueues: number;
}

/**
 * Where a queue's consumption stands: the committed offset when there is one, else the smallest buffered
 * offset, else the next pull offset; undefined when none is known yet (a negative offset).
 */
export function consumedOffsetOf(
  status: Pick<QueueStatus, 'committedOffset' | 'cachedMinOffset' | 'nextPullOffset'>,
): number | undefined {
  if (status.committedOffset >= 0) return status.committedOffset;
  if (status.cachedMinOffset !== undefined && status.cachedMinOffset >= 0) return status.cachedMinOffset;
  return status.nextPullOffset >= 0 ? status.nextPullOffset : undefined;
}

/**
 * Messages from a consumed position to the max offset (never negative: a position past the max is
 * caught up); undefined when either is unknown. The one rule behind every lag this package reports:
 * the pollers' metrics and the operator's queue positions (operations/queue-position.ts).
 */
export function lagBetween(
  maxOffset: number | undefined,
  consumedOffset: number | undefined,
): number | undefined {
  return maxOffset === undefined || consumedOffset === undefined
    ? undefined
    : Math.max(0, maxOffset - consumedOffset);
}

/**
 * Measures the lag of held queues: one max-offset query per queue, all at once. Never throws: a failed
 * query leaves that queue's lag undefined with the reason.
 */
export async function measureQueueLag(
  queues: readonly Pick<QueueStatus, 'queue' | 'committedOffset' | 'cachedMinOffset' | 'nextPullOffset'>[],
  maxOffsetOf: (queue: MessageQueue) => Promise<number>,
): Promise<QueueLag[]> {
  return Promise.all(
    queues.map(async (status): Promise<QueueLag> => {
      const retry = status.queue.topic.startsWith(RETRY_TOPIC_PREFIX);
      const consumedOffset = consumedOffsetOf(status);
      let maxOffset: number;
      try {
        maxOffset = await maxOffsetOf(status.queue);
      } catch (error) {
        const reason = describeError(error);
        return {
          queue: status.queue,
          retry,
          maxOffset: undefined,
          consumedOffset,
          lag: undefined,
          error: reason,
        };
      }
      if (consumedOffset === undefined) {
        return {
          queue: status.queue,
          retry,
          maxOffset,
          consumedOffset,
          lag: undefined,
          error: 'the start offset is not resolved yet',
        };
      }
      return {
        queue: status.queue,
        retry,
        maxOffset,
        consumedOffset,
        lag: lagBetween(maxOffset, consumedOffset),
        error: undefined,
      };
    }),
  );
}

/**
 * Sums queue lags into a mapping's lag.
 */
export function summarizeLag(
  mapping: { readonly name: string; readonly consumerGroup: string; readonly topic: string },
  queues: readonly QueueLag[],
  sharedBy = 1,
): ConsumerLag {
  let sum = 0;
  let unknownQueues = 0;
  for (const queue of queues) {
    if (queue.lag === undefined) unknownQueues++;
    else sum += queue.lag;
  }
  const pollers = Math.max(1, sharedBy);
  const { name, consumerGroup, topic } = mapping;
  return {
    name,
    consumerGroup,
    topic,
    queues,
    total: Math.ceil(sum / pollers),
    sharedBy: pollers,
    unknownQueues,
  };
}
