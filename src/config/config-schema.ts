/**
 * The closed zod schema of the `rocketmq-lambda run` config file: every key, its type, range, default
 * and description. A key not listed is an error (typos are caught). The keys of consumer options take
 * their range, default and description from the consumer's one definition (`consumer-option-keys.ts`);
 * the others are defined here. Defaults are not filled by the schema (so cross-field rules can tell "left
 * out" from "set"); `resolveConfig` fills them, once, from {@link RUN_DEFAULTS} and
 * {@link MAPPING_DEFAULTS}, the same values the reference table shows.
 *
 * Rules spanning several keys (AT_TIMESTAMP needs a timestamp, unique names, one mapping per consumer
 * group, ...) live in `config-rules.ts`.
 */
import { z } from 'zod';
import { SUB_ALL } from '../protocol/subscription.js';
import { destinationsSchema, lambdaSchema } from './aws-config-schema.js';
import {
  booleanOptionKey,
  CONSUMER_DEFAULTS,
  enumOptionKey,
  integerOptionKey,
} from './consumer-option-keys.js';
import { metricsSchema } from './metrics-config-schema.js';
import { info, type KeyInfo, text } from './schema-meta.js';

/** Defaults of the top-level keys. */
export const RUN_DEFAULTS = {
  tls: false,
  verifyServer: true,
  /** How often each held queue's offset is written to the store (when it changed). */
  persistIntervalMs: CONSUMER_DEFAULTS.persistIntervalMs,
  /** Per mapping; the poller's whole stop takes about this long at most, plus persisting offsets. */
  shutdownTimeoutMs: CONSUMER_DEFAULTS.shutdownTimeoutMs,
  /** Relative to the config file's directory. */
  offsetsPath: '.rocketmq-lambda/offsets',
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
  /** -1: messages never get too old (AWS's default). */
  maxRecordAgeSeconds: -1,
} as const;

/** AWS's range of `MaximumRecordAgeInSeconds` (besides -1, "off"). */
export const MIN_RECORD_AGE_SECONDS = 60;
/** AWS's range of `MaximumRecordAgeInSeconds` (7 days). */
export const MAX_RECORD_AGE_SECONDS = 604_800;

/** RocketMQ's topic and group name characters (`TopicValidator`). */
export const RESOURCE_NAME = /^[%|a-zA-Z0-9_-]+$/;
/** `TopicValidator.TOPIC_MAX_LENGTH`. */
export const MAX_TOPIC_CHARS = 127;
/** `Validators.CHARACTER_MAX_LENGTH`, the longest consumer group name. */
export const MAX_GROUP_CHARS = 255;
/** A zone name: it becomes the third `@` part of the client id (zone-conventions.ts). */
const ZONE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** Mapping names appear in logs and metrics. */
const MAPPING_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A DynamoDB table name. */
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;
/** Unix seconds beyond this are surely milliseconds (year 5138); `config-rules.ts` says so. */
export const MAX_TIMESTAMP_SECONDS = 99_999_999_999;
/** An ISO 8601 date, or date-time with a zone. */
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

const nameServerSchema = z
  .union([z.string(), z.array(z.string()).min(1)], {
    error: 'must be "host:port;host:port" or a list of "host:port"',
  })
  .meta(
    info({
      description:
        'Name server addresses: `"host:port;host:port"` as Java\'s `namesrvAddr`, or a list. Filled from `ROCKETMQ_NAME_SERVER` or `NAMESRV_ADDR` when absent.',
    }),
  );

const aclSchema = z
  .strictObject({
    accessKey: text().meta(info({ description: 'ACL access key.' })),
    secretKey: text().meta(info({ description: 'ACL secret key.' })),
    securityToken: text()
      .optional()
      .meta(info({ description: 'STS-style security token, signed with every request.' })),
  })
  .optional()
  .meta(
    info({
      description:
        'RocketMQ ACL credentials; every request is signed. Filled from `ROCKETMQ_ACCESS_KEY`, `ROCKETMQ_SECRET_KEY` (and `ROCKETMQ_SECURITY_TOKEN`) when absent.',
      defaultText: 'none (no signing)',
    }),
  );

const tlsSchema = z
  .union(
    [
      z.boolean(),
      z.strictObject({
        caFile: text()
          .optional()
          .meta(
            info({
              description:
                "PEM file of the certificate authorities that sign the servers' certificates (a private CA); relative to the config file. Replaces the public CAs.",
              defaultText: "Node's public CAs",
            }),
          ),
        certFile: text()
          .optional()
          .meta(
            info({
              description:
                'PEM certificate (chain) this poller presents, for brokers that require client certificates (mutual TLS); needs `keyFile`.',
            }),
          ),
        keyFile: text()
          .optional()
          .meta(info({ description: 'PEM private key of `certFile`.' })),
        keyPassphrase: text()
          .optional()
          .meta(
            info({
              description:
                'Passphrase of an encrypted `keyFile`. Filled from `ROCKETMQ_TLS_KEY_PASSPHRASE` when absent.',
            }),
          ),
        serverName: text()
          .optional()
          .meta(
            info({
              description:
                "The name the servers' certificates must carry when it is not the host connected to (brokers registered by IP with DNS-named certificates).",
              defaultText: "each address's host",
            }),
          ),
        verifyServer: z
          .boolean()
          .optional()
          .meta(
            info({
              description:
                "Verify the servers' certificates (chain and name). `false` encrypts without authenticating the servers: for tests only.",
              default: RUN_DEFAULTS.verifyServer,
            }),
          ),
      }),
    ],
    {
      error: 'must be true, false or { caFile, certFile, keyFile, keyPassphrase, serverName, verifyServer }',
    },
  )
  .optional()
  .meta(
    info({
      description:
        'TLS towards name servers and brokers: `true` (verified against the public CAs), or the settings below.',
      default: RUN_DEFAULTS.tls,
    }),
  );

const offsetsSchema = z
  .strictObject({
    store: z.enum(['dynamodb', 'file', 'memory']).meta(
      info({
        description:
          'Where clustering offsets live: `dynamodb` (shared by all pollers of a group; production), `file` (one poller only), `memory` (lost on exit; tests). BROADCASTING mappings always keep offsets in local files under `path` (in memory with `memory`).',
      }),
    ),
    table: z
      .string()
      .regex(TABLE_NAME, { error: 'must be a DynamoDB table name (3–255 of A-Z a-z 0-9 _ . -)' })
      .optional()
      .meta(info({ description: 'The DynamoDB offsets table; required with `store: dynamodb`.' })),
    region: text()
      .optional()
      .meta(
        info({
          description: 'AWS region of the table.',
          defaultText: "`AWS_REGION`, else the SDK's default chain (`us-east-1` when `endpoint` is set)",
        }),
      ),
    endpoint: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. http://127.0.0.1:8000' })
      .optional()
      .meta(
        info({
          description: 'DynamoDB endpoint (dynalite, DynamoDB Local).',
          defaultText: '`ROCKETMQ_LAMBDA_DYNAMODB_ENDPOINT`, else `AWS_ENDPOINT_URL_DYNAMODB`, else AWS',
        }),
      ),
    createTable: z
      .boolean()
      .optional()
      .meta(
        info({
          description: 'Create the table (on-demand billing) if it does not exist; for local use.',
          default: RUN_DEFAULTS.createTable,
        }),
      ),
    path: text()
      .optional()
      .meta(
        info({
          description:
            'Directory of local offset files (`file` store, and BROADCASTING mappings); relative to the config file. One poller per directory.',
          default: RUN_DEFAULTS.offsetsPath,
        }),
      ),
    persistIntervalMs: integerOptionKey('persistIntervalMs', {
      note: 'At most one write per queue per interval: with DynamoDB, at most 1000 / persistIntervalMs writes per second per queue. A crash redelivers far less than this much work: the brokers keep a fresher copy of the offsets, updated as batches finish.',
    }),
  })
  .meta(info({ description: 'The offset store.' }));

const filterSchema = z
  .union(
    [
      z.string().meta(info({ description: 'A tag expression.' })),
      z.strictObject({
        sql: text().meta(
          info({
            description:
              'An SQL92 expression over message properties (the broker needs `enablePropertyFilter=true`).',
          }),
        ),
      }),
    ],
    { error: 'must be a tag expression ("*", "TagA || TagB") or { sql: "..." }' },
  )
  .optional()
  .meta(
    info({
      description: 'A tag expression (`"*"`, `"TagA || TagB"`) or `{ sql: "a > 5" }`.',
      default: MAPPING_DEFAULTS.filter,
    }),
  );

function intKey(min: number, max: number, meta: KeyInfo) {
  return z.number().int().min(min).max(max).optional().meta(meta);
}

const mappingSchema = z.strictObject({
  name: z
    .string()
    .regex(MAPPING_NAME, { error: 'must be 1–64 of A-Z a-z 0-9 . _ -, starting with a letter or digit' })
    .optional()
    .meta(
      info({ description: 'Unique name of the mapping (logs, metrics).', defaultText: 'the consumerGroup' }),
    ),
  topic: z
    .string()
    .regex(RESOURCE_NAME, { error: 'must be a RocketMQ topic name (A-Z a-z 0-9 _ - % |)' })
    .max(MAX_TOPIC_CHARS)
    .meta(info({ description: 'The topic to consume.' })),
  consumerGroup: z
    .string()
    .regex(RESOURCE_NAME, { error: 'must be a RocketMQ group name (A-Z a-z 0-9 _ - % |)' })
    .max(MAX_GROUP_CHARS)
    .meta(info({ description: 'The consumer group; one mapping per group.' })),
  filter: filterSchema,
  function: z
    .string()
    .min(1, { error: 'must not be empty' })
    .meta(
      info({
        description:
          'The function: a Lambda function name, `name:alias`, partial ARN `123456789012:function:name` or ARN `arn:aws:lambda:<region>:<account>:function:<name>[:alias]` (invoked RequestResponse), or `"local:./module.js#export"` (a handler module run in-process, relative to the config file; export defaults to `handler`).',
      }),
    ),
  functionTimeoutMs: intKey(1000, 900_000, {
    description:
      "Lambda functions: how long one invoke may run (set it to the function's timeout); the poller waits this long plus 10 s before the invoke counts as failed (timeout).",
    default: MAPPING_DEFAULTS.functionTimeoutMs,
  }),
  batchSize: integerOptionKey('batchSize'),
  maximumBatchingWindowMs: integerOptionKey('maximumBatchingWindowMs'),
  maxConcurrency: integerOptionKey('maxConcurrency'),
  orderly: booleanOptionKey('orderly'),
  orderlyFailure: enumOptionKey('orderlyFailure'),
  maxReconsumeTimes: integerOptionKey('maxReconsumeTimes'),
  messageModel: enumOptionKey('messageModel'),
  consumeMode: enumOptionKey('consumeMode', {
    note: 'POP takes no offset store and refuses `orderly`, `AT_TIMESTAMP`, `BROADCASTING` and `bisectBatchOnError`; a popped message stays invisible for the longest consume of a batch (batching window + `functionTimeoutMs` + 10 s for a Lambda function, `consumeTimeoutMs` for a local handler, + 30 s).',
  }),
  allocateStrategy: enumOptionKey('allocateStrategy', { note: 'PUSH only.' }),
  allocateVirtualNodes: integerOptionKey('allocateVirtualNodes', { note: 'With `CONSISTENT_HASH` only.' }),
  zoneNearby: z
    .strictObject({
      brokerZones: z
        .record(z.string(), z.string().regex(ZONE_NAME, { error: 'must be 1–64 of A-Z a-z 0-9 . _ -' }))
        .optional()
        .meta(
          info({
            description: 'Broker name → zone, for brokers whose name is not `<zone>@<name>`.',
            defaultText: 'zones from `<zone>@<name>` broker names',
          }),
        ),
    })
    .optional()
    .meta(
      info({
        description:
          "Zone-aware allocation (PUSH only): each broker's queues go to the pollers in the broker's zone (the top-level `zone`), shared by `allocateStrategy`; a zone without pollers has its queues shared among all.",
        defaultText: 'off',
      }),
    ),
  startingPosition: enumOptionKey('startingPosition'),
  startingPositionTimestamp: z
    .union(
      [
        z.number().min(0),
        z.string().regex(ISO_TIMESTAMP, { error: 'must be an ISO 8601 date-time with a zone' }),
      ],
      { error: 'must be Unix time in seconds or an ISO 8601 date-time such as 2025-01-31T12:00:00Z' },
    )
    .optional()
    .meta(
      info({
        description:
          'With AT_TIMESTAMP (only): Unix time in seconds (as AWS) or an ISO 8601 date-time such as `2025-01-31T12:00:00Z`.',
      }),
    ),
  pullThresholdForQueue: integerOptionKey('pullThresholdForQueue'),
  pullThresholdSizeForQueue: integerOptionKey('pullThresholdSizeForQueue'),
  pullThresholdSizeForTopic: integerOptionKey('pullThresholdSizeForTopic'),
  maxDecompressedBodyBytes: integerOptionKey('maxDecompressedBodyBytes'),
  maxDecompressedPullBytes: integerOptionKey('maxDecompressedPullBytes'),
  consumeConcurrentlyMaxSpan: integerOptionKey('consumeConcurrentlyMaxSpan'),
  consumeTimeoutMs: integerOptionKey('consumeTimeoutMs', {
    note: 'For a Lambda function it must exceed `functionTimeoutMs` + 10 s, the longest one invoke may take.',
    defaultText: `${CONSUMER_DEFAULTS.consumeTimeoutMs} (${CONSUMER_DEFAULTS.consumeTimeoutMs / 60_000} min) for local handlers; \`functionTimeoutMs\` + 10 s + ${CONSUMER_DEFAULTS.consumeTimeoutMs / 60_000} min for Lambda functions`,
  }),
  bisectBatchOnError: z
    .boolean()
    .optional()
    .meta(
      info({
        description:
          'When an invoke of several messages fails as a whole (function error, timeout, malformed response), invoke each half again, down to single messages, so that only the failing messages are retried.',
        default: MAPPING_DEFAULTS.bisectBatchOnError,
      }),
    ),
  maxRecordAgeSeconds: z
    .number()
    .int()
    .min(-1)
    .max(MAX_RECORD_AGE_SECONDS)
    // 0..59 only: values outside -1..max already have their own line.
    .refine((seconds) => seconds <= -1 || seconds >= MIN_RECORD_AGE_SECONDS, {
      error: (issue) =>
        `must be -1 (off) or ${MIN_RECORD_AGE_SECONDS}–${MAX_RECORD_AGE_SECONDS} seconds, got ${String(issue.input)}`,
    })
    .optional()
    .meta(
      info({
        description: `Messages stored longer ago than this go straight to \`%DLQ%<group>\` (and \`onFailure\`) without an invoke; -1 = never (as AWS: -1, or ${MIN_RECORD_AGE_SECONDS}–${MAX_RECORD_AGE_SECONDS}).`,
        default: MAPPING_DEFAULTS.maxRecordAgeSeconds,
      }),
    ),
  onFailure: text()
    .optional()
    .meta(
      info({
        description:
          'An SQS queue ARN or SNS topic ARN that receives a JSON record (condition, reason, message ids and positions) of every message that failed for good: dead-lettered by the poller (too large, too old) or out of retries. In addition to `%DLQ%<group>`.',
        defaultText: 'none',
      }),
    ),
});

/**
 * The schema of a run config file, before defaults and environment variables are applied.
 *
 * @example
 * ```ts
 * const result = runConfigSchema.safeParse(YAML.parse(text));
 * if (!result.success) console.error(result.error.issues);
 * ```
 */
export const runConfigSchema = z
  .strictObject({
    nameServer: nameServerSchema,
    acl: aclSchema,
    tls: tlsSchema,
    zone: z
      .string()
      .regex(ZONE_NAME, { error: 'must be 1–64 of A-Z a-z 0-9 . _ - (no @)' })
      .optional()
      .meta(
        info({
          description:
            "This poller's availability zone (or machine room), the third `@` part of its client id as Java's `unitName`; read by `zoneNearby` allocation. Filled from `ROCKETMQ_LAMBDA_ZONE` when absent, else (on ECS, when a mapping uses `zoneNearby`) from the task metadata's `AvailabilityZone`.",
          defaultText: 'none',
        }),
      ),
    shutdownTimeoutMs: integerOptionKey('shutdownTimeoutMs', {
      note: 'The poller stops on SIGTERM/SIGINT, each mapping within this; keep it below the container stop timeout.',
    }),
    offsets: offsetsSchema,
    lambda: lambdaSchema,
    destinations: destinationsSchema,
    metrics: metricsSchema,
    mappings: z
      .array(mappingSchema)
      .min(1, { error: 'must list at least one mapping' })
      .meta(info({ description: 'The event source mappings: topic → function.' })),
  })
  .meta(info({ description: 'A rocketmq-lambda run config.' }));

/**
 * A config file's content as the schema accepts it (every optional key may be absent).
 *
 * @example
 * ```ts
 * const input: RunConfigInput = { nameServer: '127.0.0.1:9876', offsets: { store: 'memory' }, mappings: [] };
 * ```
 */
export type RunConfigInput = z.input<typeof runConfigSchema>;

/**
 * One mapping as written in the config file.
 *
 * @example
 * ```ts
 * const mapping: MappingInput = { topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./h.js' };
 * ```
 */
export type MappingInput = z.output<typeof mappingSchema>;
