/**
 * The run config as the poller uses it: every default filled, paths absolute, name servers a list,
 * filters and timestamps in the consumer's terms. Built by {@link resolveConfig} from input the schema and
 * the rules accepted.
 */
import path from 'node:path';
import type {
  AllocateStrategy,
  ConsumeMode,
  MessageModel,
  OrderlyFailure,
  StartingPosition,
  ZoneNearbyOptions,
} from '../consumer/consumer-options.js';
import { DEFAULT_TIMEOUT_MARGIN_MS } from '../invoke/lambda-timeouts.js';
import { parseNameServerAddresses } from '../network/name-server-addresses.js';
import type { AclCredentials } from '../protocol/acl-signer.js';
import { DEFAULT_TRACE_TOPIC } from '../protocol/message-trace.js';
import type { ExpressionType } from '../protocol/subscription.js';
import { MAPPING_DEFAULTS, RUN_DEFAULTS } from './config-defaults.js';
import { destinationEndpointsOf } from './config-env.js';
import { ConfigError } from './config-error.js';
import type { MappingInput, RunConfigInput } from './config-schema.js';
import { classifyFunctionRef } from './function-ref.js';
import { CLOUDWATCH_OUTPUT_DEFAULTS, PROMETHEUS_METRICS_DEFAULTS } from './metrics-config-schema.js';
import { type ResolvedTlsSettings, resolveTlsSettings } from './tls-material.js';

/** The region of a local DynamoDB or Lambda endpoint when none is configured (the SDK insists on one). */
export const LOCAL_ENDPOINT_REGION = 'us-east-1';

/**
 * Where offsets live. `path` is the absolute directory of local offset files, used by the `file` store
 * and by BROADCASTING mappings whatever the store.
 *
 * @example
 * ```ts
 * const offsets: OffsetsConfig = { store: 'dynamodb', table: 'rocketmq-offsets', region: 'eu-west-1',
 *   endpoint: undefined, createTable: false, path: '/app/.rocketmq-lambda/offsets', persistIntervalMs: 5000 };
 * ```
 */
export type OffsetsConfig = OffsetStoreConfig & {
  /** How often each held queue's changed offset is written. */
  readonly persistIntervalMs: number;
};

/**
 * Which offset store, and its own keys.
 *
 * @example
 * ```ts
 * const store: OffsetStoreConfig = { store: 'file', path: '/app/.rocketmq-lambda/offsets' };
 * ```
 */
export type OffsetStoreConfig =
  | {
      readonly store: 'dynamodb';
      readonly table: string;
      readonly region: string | undefined;
      readonly endpoint: string | undefined;
      readonly createTable: boolean;
      readonly path: string;
    }
  | { readonly store: 'file'; readonly path: string }
  | { readonly store: 'memory'; readonly path: string };

/**
 * How Lambda functions are invoked. `region` is the default region of functions not named by a full ARN
 * (`undefined`: the SDK's chain decides); `endpoint` another Invoke API.
 */
export interface LambdaConfig {
  readonly region: string | undefined;
  readonly endpoint: string | undefined;
}

/**
 * The endpoints of `onFailure` destinations per service (`undefined`: AWS's).
 */
export interface DestinationsConfig {
  readonly sqsEndpoint: string | undefined;
  readonly snsEndpoint: string | undefined;
  readonly s3Endpoint: string | undefined;
}

/**
 * Publishing the lag metric to CloudWatch (absent: off).
 */
export interface CloudWatchMetricsConfig {
  readonly namespace: string;
  readonly intervalMs: number;
  readonly region: string | undefined;
  readonly endpoint: string | undefined;
}

/**
 * Writing CloudWatch Embedded Metric Format lines to stdout (absent: off).
 */
export interface EmfMetricsConfig {
  readonly namespace: string;
  readonly intervalMs: number;
}

/**
 * Serving Prometheus metrics and health endpoints over HTTP (absent: off).
 */
export interface PrometheusMetricsConfig {
  readonly port: number;
  readonly host: string;
}

/**
 * The metric outputs; each undefined when off.
 */
export interface MetricsConfig {
  readonly emf: EmfMetricsConfig | undefined;
  readonly prometheus: PrometheusMetricsConfig | undefined;
  readonly cloudwatch: CloudWatchMetricsConfig | undefined;
}

/**
 * One mapping, resolved.
 *
 * @example
 * ```ts
 * const { name, topic, consumerGroup, functionRef } = config.mappings[0];
 * ```
 */
export interface MappingConfig {
  readonly name: string;
  readonly topic: string;
  readonly consumerGroup: string;
  readonly filter: { readonly type: ExpressionType; readonly expression: string };
  /**
   * Filter criteria (patterns as written: JSON strings or objects), applied by the poller after the
   * broker's `filter`; undefined: none (docs/filtering.md).
   */
  readonly filters: MappingInput['filters'];
  /** As written (`local:` paths relative to {@link RunConfig.baseDir}). */
  readonly functionRef: string;
  readonly batchSize: number;
  readonly maximumBatchingWindowMs: number;
  readonly maxConcurrency: number;
  readonly orderly: boolean;
  readonly orderlyFailure: OrderlyFailure;
  readonly maxReconsumeTimes: number;
  readonly messageModel: MessageModel;
  readonly consumeMode: ConsumeMode;
  readonly allocateStrategy: AllocateStrategy;
  readonly allocateVirtualNodes: number;
  /** Undefined: allocation ignores zones. */
  readonly zoneNearby: ZoneNearbyOptions | undefined;
  readonly startingPosition: StartingPosition;
  /** Milliseconds since the epoch; set exactly when `startingPosition` is AT_TIMESTAMP. */
  readonly startingPositionTimestampMs: number | undefined;
  readonly pullThresholdForQueue: number;
  readonly pullThresholdSizeForQueue: number;
  readonly pullThresholdSizeForTopic: number;
  readonly maxDecompressedBodyBytes: number;
  readonly maxDecompressedPullBytes: number;
  readonly consumeConcurrentlyMaxSpan: number;
  readonly consumeTimeoutMs: number;
  /** Lambda functions: how long one invoke may run (the invoker adds a margin). */
  readonly functionTimeoutMs: number;
  readonly bisectBatchOnError: boolean;
  /** Where consume trace records go; `undefined`: not written (docs/message-trace.md). */
  readonly messageTrace: { readonly topic: string } | undefined;
  /** -1: off. */
  readonly maxRecordAgeSeconds: number;
  /** An SQS queue or SNS topic ARN receiving failure records. */
  readonly onFailure: string | undefined;
}

/**
 * A validated, resolved run config.
 *
 * @example
 * ```ts
 * const config: RunConfig = await loadConfig('poller.yaml');
 * const poller = await startPoller(config);
 * ```
 */
export interface RunConfig {
  /** The config file, when there was one. */
  readonly source: string | undefined;
  /** Relative paths of the config (`local:` modules, `offsets.path`) are relative to this directory. */
  readonly baseDir: string;
  readonly nameServerAddresses: readonly string[];
  readonly acl: AclCredentials | undefined;
  /** TLS settings with their PEM material read and checked (tls-material.ts), or undefined for plain TCP. */
  readonly tls: ResolvedTlsSettings | undefined;
  /** This poller's zone, carried in its client id; undefined when none is set. */
  readonly zone: string | undefined;
  readonly shutdownTimeoutMs: number;
  readonly offsets: OffsetsConfig;
  readonly lambda: LambdaConfig;
  readonly destinations: DestinationsConfig;
  readonly metrics: MetricsConfig;
  readonly mappings: readonly MappingConfig[];
}

/**
 * Fills defaults and resolves paths of input that passed the schema and the cross-key rules. This is where
 * the config path applies the defaults (the consumer options' from their specs, through
 * {@link MAPPING_DEFAULTS} and {@link RUN_DEFAULTS}), once: the poller hands the consumer every option the
 * config sets, so `normalizeConsumerOptions` falls back to a default only for options no config key sets.
 */
export function resolveConfig(
  input: RunConfigInput,
  options: {
    baseDir: string;
    source?: string | undefined;
    /** Read for destination endpoints (`AWS_ENDPOINT_URL_SQS`, `AWS_ENDPOINT_URL_SNS`, `AWS_ENDPOINT_URL_S3`). @default process.env */
    env?: Readonly<Record<string, string | undefined>> | undefined;
  },
): RunConfig {
  const baseDir = path.resolve(options.baseDir);
  const lambdaEndpoint = input.lambda?.endpoint;
  const fromEnv = destinationEndpointsOf(options.env ?? process.env);
  const destinationEndpoint = input.destinations?.endpoint;
  return {
    source: options.source,
    baseDir,
    nameServerAddresses: parseNameServerAddresses(input.nameServer),
    acl: input.acl === undefined ? undefined : { ...input.acl },
    tls: resolveTlsSettings(input.tls, baseDir, options.env ?? process.env, RUN_DEFAULTS.verifyServer),
    zone: input.zone,
    shutdownTimeoutMs: input.shutdownTimeoutMs ?? RUN_DEFAULTS.shutdownTimeoutMs,
    offsets: resolveOffsets(input.offsets, baseDir),
    lambda: {
      region: input.lambda?.region ?? (lambdaEndpoint === undefined ? undefined : LOCAL_ENDPOINT_REGION),
      endpoint: lambdaEndpoint,
    },
    destinations: {
      sqsEndpoint: destinationEndpoint ?? fromEnv.sqs,
      snsEndpoint: destinationEndpoint ?? fromEnv.sns,
      s3Endpoint: destinationEndpoint ?? fromEnv.s3,
    },
    metrics: resolveMetrics(input.metrics),
    mappings: input.mappings.map(resolveMapping),
  };
}

function resolveMetrics(metrics: RunConfigInput['metrics']): MetricsConfig {
  const emf = metrics?.emf;
  const prometheus = metrics?.prometheus;
  return {
    emf:
      emf === undefined
        ? undefined
        : {
            namespace: emf.namespace ?? CLOUDWATCH_OUTPUT_DEFAULTS.namespace,
            intervalMs: (emf.intervalSeconds ?? CLOUDWATCH_OUTPUT_DEFAULTS.intervalSeconds) * 1000,
          },
    prometheus:
      prometheus === undefined
        ? undefined
        : { port: prometheus.port, host: prometheus.host ?? PROMETHEUS_METRICS_DEFAULTS.host },
    cloudwatch: resolveCloudWatch(metrics?.cloudwatch),
  };
}

function resolveCloudWatch(
  cloudwatch: NonNullable<RunConfigInput['metrics']>['cloudwatch'],
): CloudWatchMetricsConfig | undefined {
  if (cloudwatch === undefined) return undefined;
  return {
    namespace: cloudwatch.namespace ?? CLOUDWATCH_OUTPUT_DEFAULTS.namespace,
    intervalMs: (cloudwatch.intervalSeconds ?? CLOUDWATCH_OUTPUT_DEFAULTS.intervalSeconds) * 1000,
    region: cloudwatch.region ?? (cloudwatch.endpoint === undefined ? undefined : LOCAL_ENDPOINT_REGION),
    endpoint: cloudwatch.endpoint,
  };
}

function resolveOffsets(offsets: RunConfigInput['offsets'], baseDir: string): OffsetsConfig {
  const localPath = path.resolve(baseDir, offsets.path ?? RUN_DEFAULTS.offsetsPath);
  const persistIntervalMs = offsets.persistIntervalMs ?? RUN_DEFAULTS.persistIntervalMs;
  return { ...resolveOffsetStore(offsets, localPath), persistIntervalMs };
}

function resolveOffsetStore(offsets: RunConfigInput['offsets'], localPath: string): OffsetStoreConfig {
  switch (offsets.store) {
    case 'dynamodb':
      if (offsets.table === undefined) {
        throw new ConfigError(['offsets.table: required when offsets.store is dynamodb']);
      }
      return {
        store: 'dynamodb',
        table: offsets.table,
        endpoint: offsets.endpoint,
        region: offsets.region ?? (offsets.endpoint === undefined ? undefined : LOCAL_ENDPOINT_REGION),
        createTable: offsets.createTable ?? RUN_DEFAULTS.createTable,
        path: localPath,
      };
    case 'file':
      return { store: 'file', path: localPath };
    case 'memory':
      return { store: 'memory', path: localPath };
  }
}

function resolveMapping(mapping: MappingInput): MappingConfig {
  const d = MAPPING_DEFAULTS;
  const filter = mapping.filter ?? d.filter;
  const startingPosition = mapping.startingPosition ?? d.startingPosition;
  return {
    name: mapping.name ?? mapping.consumerGroup,
    topic: mapping.topic,
    consumerGroup: mapping.consumerGroup,
    filter:
      typeof filter === 'string'
        ? { type: 'TAG', expression: filter }
        : { type: 'SQL92', expression: filter.sql },
    filters: mapping.filters,
    functionRef: mapping.function,
    batchSize: mapping.batchSize ?? d.batchSize,
    maximumBatchingWindowMs: mapping.maximumBatchingWindowMs ?? d.maximumBatchingWindowMs,
    maxConcurrency: mapping.maxConcurrency ?? d.maxConcurrency,
    orderly: mapping.orderly ?? d.orderly,
    orderlyFailure: mapping.orderlyFailure ?? d.orderlyFailure,
    maxReconsumeTimes: mapping.maxReconsumeTimes ?? d.maxReconsumeTimes,
    messageModel: mapping.messageModel ?? d.messageModel,
    consumeMode: mapping.consumeMode ?? d.consumeMode,
    allocateStrategy: mapping.allocateStrategy ?? d.allocateStrategy,
    allocateVirtualNodes: mapping.allocateVirtualNodes ?? d.allocateVirtualNodes,
    zoneNearby:
      mapping.zoneNearby === undefined ? undefined : { brokerZones: mapping.zoneNearby.brokerZones },
    startingPosition,
    startingPositionTimestampMs:
      startingPosition === 'AT_TIMESTAMP' ? timestampMs(mapping.startingPositionTimestamp) : undefined,
    pullThresholdForQueue: mapping.pullThresholdForQueue ?? d.pullThresholdForQueue,
    pullThresholdSizeForQueue: mapping.pullThresholdSizeForQueue ?? d.pullThresholdSizeForQueue,
    pullThresholdSizeForTopic: mapping.pullThresholdSizeForTopic ?? d.pullThresholdSizeForTopic,
    maxDecompressedBodyBytes: mapping.maxDecompressedBodyBytes ?? d.maxDecompressedBodyBytes,
    maxDecompressedPullBytes: mapping.maxDecompressedPullBytes ?? d.maxDecompressedPullBytes,
    consumeConcurrentlyMaxSpan: mapping.consumeConcurrentlyMaxSpan ?? d.consumeConcurrentlyMaxSpan,
    consumeTimeoutMs: mapping.consumeTimeoutMs ?? defaultConsumeTimeoutMs(mapping),
    functionTimeoutMs: mapping.functionTimeoutMs ?? d.functionTimeoutMs,
    bisectBatchOnError: mapping.bisectBatchOnError ?? d.bisectBatchOnError,
    messageTrace: messageTraceOf(mapping.messageTrace ?? d.messageTrace),
    maxRecordAgeSeconds: mapping.maxRecordAgeSeconds ?? d.maxRecordAgeSeconds,
    onFailure: mapping.onFailure,
  };
}

/**
 * `consumeTimeoutMs` when unset: the consumer's default, and for a Lambda function that much beyond the
 * longest one invoke may take (`functionTimeoutMs` plus the invoker's margin), so that the expiry scan
 * never sends back a message whose invoke is still running.
 */
function defaultConsumeTimeoutMs(mapping: MappingInput): number {
  const base = MAPPING_DEFAULTS.consumeTimeoutMs;
  if (classifyFunctionRef(mapping.function).kind !== 'lambda') return base;
  return (mapping.functionTimeoutMs ?? MAPPING_DEFAULTS.functionTimeoutMs) + DEFAULT_TIMEOUT_MARGIN_MS + base;
}

/** Unix seconds or an ISO 8601 string, as milliseconds since the epoch. */
function timestampMs(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'number' ? Math.round(value * 1000) : Date.parse(value);
}

/** The resolved `messageTrace`: off, or the trace topic (Apache's default one for `true`). */
function messageTraceOf(value: boolean | { topic?: string | undefined }): { topic: string } | undefined {
  if (value === false) return undefined;
  return { topic: (value === true ? undefined : value.topic) ?? DEFAULT_TRACE_TOPIC };
}
