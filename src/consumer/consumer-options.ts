/**
 * The options of one mapping's consumer runtime, normalised in this one place: every default is here
 * (Java `DefaultMQPushConsumer` values where RocketMQ has one), every range is checked
 * here, and the rest of the consumer layer only sees {@link NormalizedConsumerOptions}.
 */
import { type ExpressionType, SUB_ALL } from '../protocol/subscription.js';
import { ConsumerOptionsError } from './consumer-errors.js';

/** Where to start a queue that has no stored offset. */
export type StartingPosition = 'LATEST' | 'TRIM_HORIZON' | 'AT_TIMESTAMP';
/** CLUSTERING shares queues across a group; BROADCASTING gives every consumer every queue. */
export type MessageModel = 'CLUSTERING' | 'BROADCASTING';
/** Orderly: after `maxReconsumeTimes`, skip the message to the DLQ or keep retrying it. */
export type OrderlyFailure = 'skip' | 'block';

/** A subscription filter. */
export interface ConsumerFilter {
  /** @default 'TAG' */
  type?: ExpressionType | undefined;
  /** A tag expression (`TagA || TagB`, `*`) or an SQL92 expression. @default '*' */
  expression?: string | undefined;
}

/** What a caller gives; see {@link normalizeConsumerOptions} for defaults and ranges. */
export interface ConsumerOptions {
  /** The mapping's name (logs, status). */
  name: string;
  topic: string;
  consumerGroup: string;
  /** @default { type: 'TAG', expression: '*' } */
  filter?: ConsumerFilter | undefined;
  /** Messages per batch, 1..10,000. @default 100 */
  batchSize?: number | undefined;
  /** How long a batch may wait to fill, 0..300,000 ms (0 = dispatch at once). @default 500 */
  maximumBatchingWindowMs?: number | undefined;
  /** Body bytes per batch (a larger single message goes alone). @default 5 MiB */
  maxBatchBytes?: number | undefined;
  /** Batches in flight at once, 1..1000. @default 10 */
  maxConcurrency?: number | undefined;
  /** @default false */
  orderly?: boolean | undefined;
  /** @default 'skip' */
  orderlyFailure?: OrderlyFailure | undefined;
  /** Deliveries after the first before the DLQ, 0..10,000. @default 16 */
  maxReconsumeTimes?: number | undefined;
  /** Delay level of CONSUMER_SEND_MSG_BACK: 0 = the broker picks 3 + reconsumeTimes, 1..18 explicit. @default 0 */
  retryDelayLevel?: number | undefined;
  /** @default 'CLUSTERING' */
  messageModel?: MessageModel | undefined;
  /** @default 'LATEST' */
  startingPosition?: StartingPosition | undefined;
  /** Milliseconds since the epoch; required with AT_TIMESTAMP. */
  startingPositionTimestamp?: number | undefined;
  /** Messages asked per pull (the broker caps at 32). @default 32 */
  pullBatchSize?: number | undefined;
  /** Pause pulling a queue while it holds more messages than this. @default 1000 */
  pullThresholdForQueue?: number | undefined;
  /** Pause pulling a queue while it holds more body bytes than this. @default 100 MiB */
  pullThresholdSizeForQueue?: number | undefined;
  /** Concurrent mode: pause pulling a queue while its offset span exceeds this. @default 2000 */
  consumeConcurrentlyMaxSpan?: number | undefined;
  /** A message whose consume started longer ago is sent back for retry. @default 15 min */
  consumeTimeoutMs?: number | undefined;
  /** @default 5000 */
  persistIntervalMs?: number | undefined;
  /** @default 30000 */
  heartbeatIntervalMs?: number | undefined;
  /** @default 20000 */
  rebalanceIntervalMs?: number | undefined;
  /** @default 30000 */
  routeRefreshIntervalMs?: number | undefined;
  /** How long the broker holds a pull with nothing to return. @default 15000 */
  suspendTimeoutMs?: number | undefined;
  /** Pull RPC timeout; must exceed `suspendTimeoutMs`. @default 30000 */
  pullTimeoutMs?: number | undefined;
  /** Delay before pulling again after an error. @default 3000 */
  pullDelayOnErrorMs?: number | undefined;
  /** Delay before resubmitting messages whose send-back failed. @default 5000 */
  localRetryDelayMs?: number | undefined;
  /** Orderly: pause of a queue after a failed batch before it is consumed again, 10..30,000 ms. @default 1000 */
  suspendCurrentQueueTimeMs?: number | undefined;
  /** How long stop() waits for in-flight batches. @default 30000 */
  shutdownTimeoutMs?: number | undefined;
  /**
   * A queue given up at rebalance: how long its batches in flight may take to finish (and move the
   * offset) before it is released anyway; the next owner waits this long plus a grace. @default 30000
   */
  handOverTimeoutMs?: number | undefined;
}

/** Every option resolved. */
export interface NormalizedConsumerOptions {
  readonly name: string;
  readonly topic: string;
  readonly consumerGroup: string;
  readonly filter: { readonly type: ExpressionType; readonly expression: string };
  readonly batchSize: number;
  readonly maximumBatchingWindowMs: number;
  readonly maxBatchBytes: number;
  readonly maxConcurrency: number;
  readonly orderly: boolean;
  readonly orderlyFailure: OrderlyFailure;
  readonly maxReconsumeTimes: number;
  readonly retryDelayLevel: number;
  readonly messageModel: MessageModel;
  readonly startingPosition: StartingPosition;
  readonly startingPositionTimestamp: number | undefined;
  readonly pullBatchSize: number;
  readonly pullThresholdForQueue: number;
  readonly pullThresholdSizeForQueue: number;
  readonly consumeConcurrentlyMaxSpan: number;
  readonly consumeTimeoutMs: number;
  readonly persistIntervalMs: number;
  readonly heartbeatIntervalMs: number;
  readonly rebalanceIntervalMs: number;
  readonly routeRefreshIntervalMs: number;
  readonly suspendTimeoutMs: number;
  readonly pullTimeoutMs: number;
  readonly pullDelayOnErrorMs: number;
  readonly localRetryDelayMs: number;
  readonly suspendCurrentQueueTimeMs: number;
  readonly shutdownTimeoutMs: number;
  readonly handOverTimeoutMs: number;
  /** `%RETRY%<group>`. */
  readonly retryTopic: string;
}

const MiB = 1024 * 1024;

/** The defaults: Java `DefaultMQPushConsumer`'s where RocketMQ has one, ours for batching and invokes. */
export const CONSUMER_DEFAULTS = {
  batchSize: 100,
  maximumBatchingWindowMs: 500,
  maxBatchBytes: 5 * MiB,
  maxConcurrency: 10,
  orderly: false,
  orderlyFailure: 'skip',
  maxReconsumeTimes: 16,
  retryDelayLevel: 0,
  messageModel: 'CLUSTERING',
  startingPosition: 'LATEST',
  pullBatchSize: 32,
  pullThresholdForQueue: 1000,
  pullThresholdSizeForQueue: 100 * MiB,
  consumeConcurrentlyMaxSpan: 2000,
  consumeTimeoutMs: 15 * 60_000,
  persistIntervalMs: 5000,
  heartbeatIntervalMs: 30_000,
  rebalanceIntervalMs: 20_000,
  routeRefreshIntervalMs: 30_000,
  suspendTimeoutMs: 15_000,
  pullTimeoutMs: 30_000,
  pullDelayOnErrorMs: 3000,
  localRetryDelayMs: 5000,
  suspendCurrentQueueTimeMs: 1000,
  shutdownTimeoutMs: 30_000,
  handOverTimeoutMs: 30_000,
} as const;

/** The retry topic of a group (`MixAll.getRetryTopic`). */
export function retryTopicOf(consumerGroup: string): string {
  return `%RETRY%${consumerGroup}`;
}

/** The dead-letter topic of a group (`MixAll.getDLQTopic`). */
export function dlqTopicOf(consumerGroup: string): string {
  return `%DLQ%${consumerGroup}`;
}

/**
 * Fills defaults and checks ranges; throws {@link ConsumerOptionsError} naming the first bad option.
 *
 * @example
 * ```ts
 * const options = normalizeConsumerOptions({ name: 'orders', topic: 'Orders', consumerGroup: 'orders-fn' });
 * options.batchSize; // => 100
 * ```
 */
export function normalizeConsumerOptions(input: ConsumerOptions): NormalizedConsumerOptions {
  const name = requireText('name', input.name);
  const topic = requireText('topic', input.topic);
  const consumerGroup = requireText('consumerGroup', input.consumerGroup);
  const filterType = input.filter?.type ?? 'TAG';
  if (filterType !== 'TAG' && filterType !== 'SQL92') {
    throw new ConsumerOptionsError('filter.type', `must be TAG or SQL92, got ${String(filterType)}`);
  }
  const expression = input.filter?.expression ?? SUB_ALL;
  if (expression.trim().length === 0 && filterType === 'SQL92') {
    throw new ConsumerOptionsError('filter.expression', 'must not be empty for SQL92');
  }
  const messageModel = oneOf('messageModel', input.messageModel, ['CLUSTERING', 'BROADCASTING'] as const);
  const startingPosition = oneOf('startingPosition', input.startingPosition, [
    'LATEST',
    'TRIM_HORIZON',
    'AT_TIMESTAMP',
  ] as const);
  const startingPositionTimestamp = input.startingPositionTimestamp;
  if (startingPosition === 'AT_TIMESTAMP') {
    int('startingPositionTimestamp', startingPositionTimestamp, undefined, 0, Number.MAX_SAFE_INTEGER);
  }
  const suspendTimeoutMs = int(
    'suspendTimeoutMs',
    input.suspendTimeoutMs,
    CONSUMER_DEFAULTS.suspendTimeoutMs,
    1,
    600_000,
  );
  const pullTimeoutMs = int(
    'pullTimeoutMs',
    input.pullTimeoutMs,
    CONSUMER_DEFAULTS.pullTimeoutMs,
    1,
    900_000,
  );
  if (pullTimeoutMs <= suspendTimeoutMs) {
    throw new ConsumerOptionsError('pullTimeoutMs', `must exceed suspendTimeoutMs (${suspendTimeoutMs})`);
  }
  const d = CONSUMER_DEFAULTS;
  return {
    name,
    topic,
    consumerGroup,
    filter: { type: filterType, expression },
    batchSize: int('batchSize', input.batchSize, d.batchSize, 1, 10_000),
    maximumBatchingWindowMs: int(
      'maximumBatchingWindowMs',
      input.maximumBatchingWindowMs,
      d.maximumBatchingWindowMs,
      0,
      300_000,
    ),
    maxBatchBytes: int('maxBatchBytes', input.maxBatchBytes, d.maxBatchBytes, 1, 1024 * MiB),
    maxConcurrency: int('maxConcurrency', input.maxConcurrency, d.maxConcurrency, 1, 1000),
    orderly: input.orderly ?? d.orderly,
    orderlyFailure: oneOf('orderlyFailure', input.orderlyFailure, ['skip', 'block'] as const),
    maxReconsumeTimes: int('maxReconsumeTimes', input.maxReconsumeTimes, d.maxReconsumeTimes, 0, 10_000),
    retryDelayLevel: int('retryDelayLevel', input.retryDelayLevel, d.retryDelayLevel, 0, 18),
    messageModel,
    startingPosition,
    startingPositionTimestamp,
    pullBatchSize: int('pullBatchSize', input.pullBatchSize, d.pullBatchSize, 1, 1024),
    pullThresholdForQueue: int(
      'pullThresholdForQueue',
      input.pullThresholdForQueue,
      d.pullThresholdForQueue,
      1,
      65_535,
    ),
    pullThresholdSizeForQueue: int(
      'pullThresholdSizeForQueue',
      input.pullThresholdSizeForQueue,
      d.pullThresholdSizeForQueue,
      1,
      1024 * MiB,
    ),
    consumeConcurrentlyMaxSpan: int(
      'consumeConcurrentlyMaxSpan',
      input.consumeConcurrentlyMaxSpan,
      d.consumeConcurrentlyMaxSpan,
      1,
      65_535,
    ),
    consumeTimeoutMs: int(
      'consumeTimeoutMs',
      input.consumeTimeoutMs,
      d.consumeTimeoutMs,
      1000,
      24 * 3_600_000,
    ),
    persistIntervalMs: int('persistIntervalMs', input.persistIntervalMs, d.persistIntervalMs, 10, 3_600_000),
    heartbeatIntervalMs: int(
      'heartbeatIntervalMs',
      input.heartbeatIntervalMs,
      d.heartbeatIntervalMs,
      100,
      110_000,
    ),
    rebalanceIntervalMs: int(
      'rebalanceIntervalMs',
      input.rebalanceIntervalMs,
      d.rebalanceIntervalMs,
      100,
      3_600_000,
    ),
    routeRefreshIntervalMs: int(
      'routeRefreshIntervalMs',
      input.routeRefreshIntervalMs,
      d.routeRefreshIntervalMs,
      100,
      3_600_000,
    ),
    suspendTimeoutMs,
    pullTimeoutMs,
    pullDelayOnErrorMs: int('pullDelayOnErrorMs', input.pullDelayOnErrorMs, d.pullDelayOnErrorMs, 1, 600_000),
    localRetryDelayMs: int('localRetryDelayMs', input.localRetryDelayMs, d.localRetryDelayMs, 1, 600_000),
    suspendCurrentQueueTimeMs: int(
      'suspendCurrentQueueTimeMs',
      input.suspendCurrentQueueTimeMs,
      d.suspendCurrentQueueTimeMs,
      10,
      30_000,
    ),
    shutdownTimeoutMs: int('shutdownTimeoutMs', input.shutdownTimeoutMs, d.shutdownTimeoutMs, 0, 3_600_000),
    handOverTimeoutMs: int('handOverTimeoutMs', input.handOverTimeoutMs, d.handOverTimeoutMs, 0, 3_600_000),
    retryTopic: retryTopicOf(consumerGroup),
  };
}

/**
 * The heartbeat's informational `consumeFromWhere` for a starting position.
 *
 * @example
 * ```ts
 * consumeFromWhere('TRIM_HORIZON'); // => 'CONSUME_FROM_FIRST_OFFSET'
 * ```
 */
export function consumeFromWhere(position: StartingPosition): string {
  switch (position) {
    case 'LATEST':
      return 'CONSUME_FROM_LAST_OFFSET';
    case 'TRIM_HORIZON':
      return 'CONSUME_FROM_FIRST_OFFSET';
    case 'AT_TIMESTAMP':
      return 'CONSUME_FROM_TIMESTAMP';
  }
}

function requireText(option: string, value: string | undefined): string {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw new ConsumerOptionsError(option, 'is required and must be a non-empty string');
  }
  return value;
}

function int(
  option: string,
  value: number | undefined,
  fallback: number | undefined,
  min: number,
  max: number,
): number {
  const resolved = value ?? fallback;
  if (resolved === undefined) throw new ConsumerOptionsError(option, 'is required');
  if (!Number.isSafeInteger(resolved) || resolved < min || resolved > max) {
    throw new ConsumerOptionsError(option, `must be an integer in ${min}..${max}, got ${String(resolved)}`);
  }
  return resolved;
}

function oneOf<T extends string>(option: string, value: T | undefined, allowed: readonly T[]): T {
  const resolved = value ?? allowed[0];
  if (resolved === undefined || !allowed.includes(resolved)) {
    throw new ConsumerOptionsError(option, `must be one of ${allowed.join(', ')}, got ${String(value)}`);
  }
  return resolved;
}
