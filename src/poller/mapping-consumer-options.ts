/**
 * The consumer options of a mapping: what its config says, and what a poller's caller overrides; for a
 * PUSH mapping the {@link ConsumerRuntime}'s, for a POP mapping the {@link PopConsumer}'s.
 */
import { classifyFunctionRef } from '../config/function-ref.js';
import type { MappingConfig } from '../config/run-config.js';
import { ConsumerOptionsError } from '../consumer/consumer-errors.js';
import type { ConsumerOptions } from '../consumer/consumer-options.js';
import type { PopConsumerOptions } from '../consumer/pop/pop-consumer-options.js';
import { DEFAULT_TIMEOUT_MARGIN_MS } from '../invoke/lambda-timeouts.js';

/**
 * Added to a POP batch's longest consume: the ack travels after the invoke, and a message must not come
 * back to another poller while its ack is on the way.
 */
export const POP_INVISIBLE_MARGIN_MS = 30_000;

/** Consumer runtime options the config does not expose (timers, `retryDelayLevel`, ...). */
export type ConsumerOverrides = Partial<Omit<ConsumerOptions, 'name' | 'topic' | 'consumerGroup'>>;

/**
 * The consumer options of a mapping.
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
    consumeMode: mapping.consumeMode,
    allocateStrategy: mapping.allocateStrategy,
    allocateVirtualNodes: mapping.allocateVirtualNodes,
    zoneNearby: mapping.zoneNearby,
    startingPosition: mapping.startingPosition,
    startingPositionTimestamp: mapping.startingPositionTimestampMs,
    pullThresholdForQueue: mapping.pullThresholdForQueue,
    pullThresholdSizeForQueue: mapping.pullThresholdSizeForQueue,
    pullThresholdSizeForTopic: mapping.pullThresholdSizeForTopic,
    maxDecompressedBodyBytes: mapping.maxDecompressedBodyBytes,
    maxDecompressedPullBytes: mapping.maxDecompressedPullBytes,
    consumeConcurrentlyMaxSpan: mapping.consumeConcurrentlyMaxSpan,
    consumeTimeoutMs: mapping.consumeTimeoutMs,
    shutdownTimeoutMs,
    persistIntervalMs,
  };
}

/**
 * The POP consumer options of a mapping (consumeMode POP). The invisible time is derived, not configured:
 * a popped batch may wait `maximumBatchingWindowMs` to fill, then takes one invoke (a Lambda function's
 * `functionTimeoutMs` plus the invoker's margin; a local handler's `consumeTimeoutMs`), plus
 * {@link POP_INVISIBLE_MARGIN_MS} for the ack. A shorter one would hand a message still being consumed to
 * another poller (a duplicate).
 */
export function popConsumerOptionsOf(
  mapping: MappingConfig,
  shutdownTimeoutMs: number,
  overrides: ConsumerOverrides | undefined,
): PopConsumerOptions {
  const maximumBatchingWindowMs = overrides?.maximumBatchingWindowMs ?? mapping.maximumBatchingWindowMs;
  const longestInvokeMs =
    classifyFunctionRef(mapping.functionRef).kind === 'lambda'
      ? mapping.functionTimeoutMs + DEFAULT_TIMEOUT_MARGIN_MS
      : (overrides?.consumeTimeoutMs ?? mapping.consumeTimeoutMs);
  return {
    name: mapping.name,
    topic: mapping.topic,
    consumerGroup: mapping.consumerGroup,
    filter: { type: mapping.filter.type, expression: mapping.filter.expression },
    startingPosition: popStartingPosition(mapping.startingPosition),
    batchSize: overrides?.batchSize ?? mapping.batchSize,
    maximumBatchingWindowMs,
    maxConcurrency: overrides?.maxConcurrency ?? mapping.maxConcurrency,
    maxReconsumeTimes: overrides?.maxReconsumeTimes ?? mapping.maxReconsumeTimes,
    invisibleTimeMs: maximumBatchingWindowMs + longestInvokeMs + POP_INVISIBLE_MARGIN_MS,
    maxDecompressedBodyBytes: mapping.maxDecompressedBodyBytes,
    maxDecompressedPullBytes: mapping.maxDecompressedPullBytes,
    pullDelayOnErrorMs: overrides?.pullDelayOnErrorMs,
    routeRefreshIntervalMs: overrides?.routeRefreshIntervalMs,
    heartbeatIntervalMs: overrides?.heartbeatIntervalMs,
    shutdownTimeoutMs: overrides?.shutdownTimeoutMs ?? shutdownTimeoutMs,
    readinessGraceMs: overrides?.readinessGraceMs,
  };
}

/** POP's start positions; the config rules already refuse AT_TIMESTAMP with POP (config-rules.ts). */
function popStartingPosition(position: MappingConfig['startingPosition']): 'TRIM_HORIZON' | 'LATEST' {
  if (position === 'AT_TIMESTAMP') {
    throw new ConsumerOptionsError('startingPosition', 'must be TRIM_HORIZON or LATEST with consumeMode POP');
  }
  return position;
}
