/**
 * The defaults of the run config's keys, in one place: the schema's reference table shows them,
 * `resolveConfig` fills them, and the Serverless `rocketmq` event, whose keys share the mapping's, shows
 * and applies the same values. Consumer options take theirs from the consumer's one definition.
 */
import { SUB_ALL } from '../protocol/subscription.js';
import { CONSUMER_DEFAULTS } from './consumer-option-keys.js';

/**
 * The directory a service keeps its local state in (dev's session file and offsets, the local offset
 * store's default path); the plugin leaves it out of the function's package.
 */
export const LOCAL_STATE_DIR = '.rocketmq-lambda';

/** Defaults of the top-level keys. */
export const RUN_DEFAULTS = {
  tls: false,
  verifyServer: true,
  /** How often each held queue's offset is written to the store (when it changed). */
  persistIntervalMs: CONSUMER_DEFAULTS.persistIntervalMs,
  /** Per mapping; the poller's whole stop takes about this long at most, plus persisting offsets. */
  shutdownTimeoutMs: CONSUMER_DEFAULTS.shutdownTimeoutMs,
  /** Relative to the config file's directory. */
  offsetsPath: `${LOCAL_STATE_DIR}/offsets`,
  createTable: false,
} as const;

/** Defaults of the per-mapping keys (the consumer runtime's own defaults). */
export const MAPPING_DEFAULTS = {
  filter: SUB_ALL,
  batchSize: CONSUMER_DEFAULTS.batchSize,
  maximumBatchingWindowMs: CONSUMER_DEFAULTS.maximumBatchingWindowMs,
  maxConcurrency: CONSUMER_DEFAULTS.maxConcurrency,
  orderly: CONSUMER_DEFAULTS.orderly,
  orderlyFailure: CONSUMER_DEFAULTS.orderlyFailure,
  maxReconsumeTimes: CONSUMER_DEFAULTS.maxReconsumeTimes,
  messageModel: CONSUMER_DEFAULTS.messageModel,
  consumeMode: CONSUMER_DEFAULTS.consumeMode,
  allocateStrategy: CONSUMER_DEFAULTS.allocateStrategy,
  allocateVirtualNodes: CONSUMER_DEFAULTS.allocateVirtualNodes,
  startingPosition: CONSUMER_DEFAULTS.startingPosition,
  pullThresholdForQueue: CONSUMER_DEFAULTS.pullThresholdForQueue,
  pullThresholdSizeForQueue: CONSUMER_DEFAULTS.pullThresholdSizeForQueue,
  pullThresholdSizeForTopic: CONSUMER_DEFAULTS.pullThresholdSizeForTopic,
  maxDecompressedBodyBytes: CONSUMER_DEFAULTS.maxDecompressedBodyBytes,
  maxDecompressedPullBytes: CONSUMER_DEFAULTS.maxDecompressedPullBytes,
  consumeConcurrentlyMaxSpan: CONSUMER_DEFAULTS.consumeConcurrentlyMaxSpan,
  consumeTimeoutMs: CONSUMER_DEFAULTS.consumeTimeoutMs,
  /** Lambda's longest timeout: an invoke may take this long (plus a margin) before it counts as failed. */
  functionTimeoutMs: 900_000,
  bisectBatchOnError: false,
  /** No consume trace records. */
  messageTrace: false,
  /** -1: messages never get too old (AWS's default). */
  maxRecordAgeSeconds: -1,
} as const;
