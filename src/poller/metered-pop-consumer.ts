/**
 * A POP consumer as the metrics read a mapping's consumer: a status with no held queue (its pops,
 * acks and invokes are in the same counters a pull consumer has), and its lag as its share of the group's
 * backlog (metrics/queue-lag.ts `popLag`), so the lag metric and the autoscaling work for POP too.
 */
import type { PopConsumer } from '../consumer/pop/pop-consumer.js';
import { RocketMQError } from '../errors.js';
import type { MeteredConsumer } from '../metrics/poller-metrics.js';
import { popLag } from '../metrics/queue-lag.js';

/**
 * The metrics' view of a POP consumer.
 *
 * @example
 * ```ts
 * meter.watch(meteredPopConsumer(consumer));
 * ```
 */
export function meteredPopConsumer(consumer: PopConsumer): MeteredConsumer {
  return {
    status: async () => {
      const status = consumer.status();
      return {
        name: status.name,
        consumerGroup: status.consumerGroup,
        topic: status.topic,
        clientId: status.clientId,
        state: status.state,
        error: status.error,
        startedAtMs: status.startedAtMs,
        queues: [],
        inFlightBatches: status.inFlightBatches,
        pendingMessages: status.inFlightMessages,
        counters: status.counters,
      };
    },
    maxOffset: () => Promise.reject(new RocketMQError('a POP consumer holds no queue to measure')),
    measureLag: async () => popLag(consumer.options, await consumer.backlog()),
    health: (nowMs) => consumer.health(nowMs),
    onEvent: (listener) => consumer.onEvent(listener),
  };
}
