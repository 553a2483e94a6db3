/**
 * The consumer runtime options of a mapping: what its config says, and what a poller's caller overrides.
 */
import type { MappingConfig } from '../config/run-config.js';
import type { ConsumerOptions } from '../consumer/consumer-options.js';

/** Consumer runtime options the config does not expose (timers, `retryDelayLevel`, ...). */
export type ConsumerOverrides = Partial<Omit<ConsumerOptions, 'name' | 'topic' | 'consumerGroup'>>;

/**
 * The consumer options of a mapping.
 *
 * @example
 * ```ts
 * new ConsumerRuntime(consumerOptionsOf(config.mappings[0], config.shutdownTimeoutMs), deps);
 * ```
 */
export function consumerOptionsOf(
  mapping: MappingConfig,
  shutdownTimeoutMs: number,
  persistIntervalMs?: number,
): ConsumerOptions {
  return {
    name: mapping.name,
    topic: mapping.topic,
    consumerGroup: mapping.consumerGroup,
    filter: { type: mapping.filter.type, expression: mapping.filter.expression },
    batchSize: mapping.batchSize,
    maximumBatchingWindowMs: mapping.maximumBatchingWindowMs,
    maxConcurrency: mapping.maxConcurrency,
    orderly: mapping.orderly,
    orderlyFailure: mapping.orderlyFailure,
    maxReconsumeTimes: mapping.maxReconsumeTimes,
    messageModel: mapping.messageModel,
    allocateStrategy: mapping.allocateStrategy,
    allocateVirtualNodes: mapping.allocateVirtualNodes,
    zoneNearby: mapping.zoneNearby,
    startingPosition: mapping.startingPosition,
    startingPositionTimestamp: mapping.startingPositionTimestampMs,
    pullThresholdForQueue: mapping.pullThresholdForQueue,
    pullThresholdSizeForQueue: mapping.pullThresholdSizeForQueue,
    consumeConcurrentlyMaxSpan: mapping.consumeConcurrentlyMaxSpan,
    consumeTimeoutMs: mapping.consumeTimeoutMs,
    shutdownTimeoutMs,
    persistIntervalMs,
  };
}
