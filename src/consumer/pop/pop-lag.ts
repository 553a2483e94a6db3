/** What a POP consumer reports as its lag (consumer-lag.ts): its share of the group's backlog. */
import {
  type ConsumerLag,
  lagBetween,
  type QueueLag,
  RETRY_TOPIC_PREFIX,
  summarizeLag,
} from '../consumer-lag.js';
import type { PopBacklog } from './pop-backlog.js';

/**
 * The lag of a POP mapping from its group's backlog (pop-backlog.ts): every readable queue of
 * the topic, shared by the group's pollers. `total` is this poller's share, so the average over the
 * group's tasks is the backlog per task, as for PUSH.
 */
export function popLag(
  mapping: { readonly name: string; readonly consumerGroup: string; readonly topic: string },
  backlog: PopBacklog,
): ConsumerLag {
  const queues = backlog.queues.map((queue): QueueLag => {
    return {
      queue: queue.queue,
      retry: queue.queue.topic.startsWith(RETRY_TOPIC_PREFIX),
      maxOffset: queue.maxOffset,
      consumedOffset: queue.consumedOffset,
      lag: lagBetween(queue.maxOffset, queue.consumedOffset),
      error: queue.error,
    };
  });
  return summarizeLag(mapping, queues, backlog.pollers);
}
