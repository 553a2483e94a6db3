/**
 * Consumer lag as the metrics publish it. The model and its rule (lag = the broker's max offset minus the
 * queue's consumed position) are the consumers' (consumer/consumer-lag.ts, consumer/pop/pop-lag.ts), so
 * that every consume mode reports it; this file adds the measuring of a consumer that is only
 * `LagMeasurable`, and is where the metrics and the operator's queue positions (operations/) take it from.
 */

import { type ConsumerLag, measureQueueLag, summarizeLag } from '../consumer/consumer-lag.js';
import type { ConsumerRuntimeStatus } from '../consumer/consumer-status.js';
import type { MessageQueue } from '../protocol/message-queue.js';

export {
  type ConsumerLag,
  consumedOffsetOf,
  lagBetween,
  measureQueueLag,
  type QueueLag,
  summarizeLag,
} from '../consumer/consumer-lag.js';
export { popLag } from '../consumer/pop/pop-lag.js';

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
 */
export async function measureConsumerLag(
  consumer: LagMeasurable,
  status?: Pick<ConsumerRuntimeStatus, 'name' | 'consumerGroup' | 'topic' | 'queues'>,
): Promise<ConsumerLag> {
  const { name, consumerGroup, topic, queues } = status ?? (await consumer.status());
  const measured = await measureQueueLag(queues, (queue) => consumer.maxOffset(queue));
  return summarizeLag({ name, consumerGroup, topic }, measured);
}
