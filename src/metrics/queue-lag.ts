/**
 * Consumer lag, as the metrics measure it: how many messages of a held queue are not done yet. Lag = the broker's max offset (the
 * offset the next stored message gets) minus the queue's consumed position (the committed offset: the
 * smallest offset not yet handled; before anything was handled, the smallest buffered or the next pulled
 * offset). Buffered and in-flight messages count as lag, as in RocketMQ's `consumerProgress`.
 */

import type { ConsumerRuntimeStatus, QueueStatus } from '../consumer/consumer-status.js';
import type { PopBacklog } from '../consumer/pop/pop-backlog.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { describeError } from '../util/describe-error.js';

/** Retry topics are `%RETRY%<group>` (see `retryTopicOf`). */
const RETRY_TOPIC_PREFIX = '%RETRY%';

/**
 * The lag of one held queue. `lag` is undefined when it could not be measured (broker unreachable, start
 * offset not resolved yet); `error` then says why.
 *
 * @example
 * ```ts
 * const lag: QueueLag = { queue, retry: false, maxOffset: 120, consumedOffset: 100, lag: 20, error: undefined };
 * ```
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
 *
 * @example
 * ```ts
 * const { total, unknownQueues } = await measureConsumerLag(runtime);
 * if (unknownQueues === 0) console.log(`lag ${total}`);
 * ```
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
 *
 * @example
 * ```ts
 * consumedOffsetOf({ committedOffset: -1, cachedMinOffset: 40, nextPullOffset: 72 }); // => 40
 * ```
 */
export function consumedOffsetOf(
  status: Pick<QueueStatus, 'committedOffset' | 'cachedMinOffset' | 'nextPullOffset'>,
): number | undefined {
  if (status.committedOffset >= 0) return status.committedOffset;
  if (status.cachedMinOffset !== undefined && status.cachedMinOffset >= 0) return status.cachedMinOffset;
  return status.nextPullOffset >= 0 ? status.nextPullOffset : undefined;
}

/**
 * Measures the lag of held queues: one max-offset query per queue, all at once. Never throws: a failed
 * query leaves that queue's lag undefined with the reason.
 *
 * @example
 * ```ts
 * const lags = await measureQueueLag((await runtime.status()).queues, (queue) =>
 *   broker.getMaxOffset(routes.masterAddress(queue.brokerName) ?? '', { topic: queue.topic, queueId: queue.queueId }));
 * ```
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
        lag: Math.max(0, maxOffset - consumedOffset),
        error: undefined,
      };
    }),
  );
}

/**
 * Sums queue lags into a mapping's lag.
 *
 * @example
 * ```ts
 * summarizeLag({ name: 'orders', consumerGroup: 'orders-fn', topic: 'Orders' }, lags).total;
 * ```
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

/**
 * The lag of a POP mapping from its group's backlog (consumer/pop/pop-backlog.ts): every readable queue of
 * the topic, shared by the group's pollers. `total` is this poller's share, so the average over the
 * group's tasks is the backlog per task, as for PUSH.
 *
 * @example
 * ```ts
 * const lag = popLag({ name: 'orders', consumerGroup: 'orders-fn', topic: 'Orders' }, await consumer.backlog());
 * ```
 */
export function popLag(
  mapping: { readonly name: string; readonly consumerGroup: string; readonly topic: string },
  backlog: PopBacklog,
): ConsumerLag {
  const queues = backlog.queues.map((queue): QueueLag => {
    const lag =
      queue.maxOffset === undefined || queue.consumedOffset === undefined
        ? undefined
        : Math.max(0, queue.maxOffset - queue.consumedOffset);
    return {
      queue: queue.queue,
      retry: queue.queue.topic.startsWith(RETRY_TOPIC_PREFIX),
      maxOffset: queue.maxOffset,
      consumedOffset: queue.consumedOffset,
      lag,
      error: queue.error,
    };
  });
  return summarizeLag(mapping, queues, backlog.pollers);
}

/**
 * A consumer whose lag can be measured (a `ConsumerRuntime` is one): its held queues and their brokers'
 * max offsets.
 */
export interface LagMeasurable {
  status(): Promise<Pick<ConsumerRuntimeStatus, 'name' | 'consumerGroup' | 'topic' | 'queues'>>;
  maxOffset(queue: MessageQueue): Promise<number>;
}

/**
 * The lag of the queues a consumer holds now, from a status already read (or read now when not given):
 * one GET_MAX_OFFSET per queue at its master broker. Never throws; a queue that cannot be measured counts
 * in `unknownQueues`.
 *
 * @example
 * ```ts
 * const lag = await measureConsumerLag(runtime);
 * console.log(`${lag.consumerGroup}: ${lag.total} behind, ${lag.unknownQueues} queues unknown`);
 * ```
 */
export async function measureConsumerLag(
  consumer: LagMeasurable,
  status?: Pick<ConsumerRuntimeStatus, 'name' | 'consumerGroup' | 'topic' | 'queues'>,
): Promise<ConsumerLag> {
  const { name, consumerGroup, topic, queues } = status ?? (await consumer.status());
  const measured = await measureQueueLag(queues, (queue) => consumer.maxOffset(queue));
  return summarizeLag({ name, consumerGroup, topic }, measured);
}
