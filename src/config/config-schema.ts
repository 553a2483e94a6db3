/**
 * The closed zod schema of the `rocketmq-lambda run` config file: every key, its type, range, default
 * and description. A key not listed is an error (typos are caught). The keys of consumer options take
 * their range, default and description from the consumer's one definition (`consumer-option-keys.ts`);
 * the keys a mapping shares with the Serverless `rocketmq` event come from `mapping-keys.ts`, `tls` from
 * `tls-config-schema.ts`; the others are defined here. Defaults are not filled by the schema (so cross-field rules can tell "left
 * out" from "set"); `resolveConfig` fills them, once, from `RUN_DEFAULTS` and
 * `MAPPING_DEFAULTS` (`config-defaults.ts`), the same values the reference table shows.
 *
 * Rules spanning several keys (AT_TIMESTAMP needs a timestamp, unique names, one mapping per consumer
 * group, ...) live in `config-rules.ts`.
 */
import { z } from 'zod';
import { destinationsSchema, lambdaSchema } from './aws-config-schema.js';
import { MAPPING_DEFAULTS, RUN_DEFAULTS } from './config-defaults.js';
import { CONSUMER_DEFAULTS, enumOptionKey, integerOptionKey } from './consumer-option-keys.js';
import {
  consumerGroupKey,
  MAPPING_KEYS,
  MAX_RECORD_AGE_SECONDS,
  MIN_RECORD_AGE_SECONDS,
} from './mapping-keys.js';
import { metricsSchema } from './metrics-config-schema.js';
import { info, intKey, tableName, text } from './schema-meta.js';
import { tlsSchema, tlsSettingsSchema } from './tls-config-schema.js';

/** A zone name: it becomes the third `@` part of the client id (zone-conventions.ts). */
const ZONE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** Mapping names appear in logs and metrics. */
const MAPPING_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

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

const offsetsSchema = z
  .strictObject({
    store: z.enum(['dynamodb', 'file', 'memory']).meta(
      info({
        description:
          'Where clustering offsets live: `dynamodb` (shared by all pollers of a group; production), `file` (one poller only), `memory` (lost on exit; tests). BROADCASTING mappings always keep offsets in local files under `path` (in memory with `memory`).',
      }),
    ),
    table: tableName()
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
          description:
            'DynamoDB endpoint (dynalite, DynamoDB Local). On loopback, no AWS credentials are needed (placeholders when the chain has none).',
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

const mappingSchema = z.strictObject({
  name: z
    .string()
    .regex(MAPPING_NAME, { error: 'must be 1–64 of A-Z a-z 0-9 . _ -, starting with a letter or digit' })
    .optional()
    .meta(
      info({ description: 'Unique name of the mapping (logs, metrics).', defaultText: 'the consumerGroup' }),
    ),
  topic: MAPPING_KEYS.topic,
  consumerGroup: consumerGroupKey('The consumer group; one mapping per group.'),
  filter: MAPPING_KEYS.filter,
  filters: MAPPING_KEYS.filters,
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
  batchSize: MAPPING_KEYS.batchSize,
  maximumBatchingWindowMs: integerOptionKey('maximumBatchingWindowMs'),
  maxConcurrency: integerOptionKey('maxConcurrency'),
  orderly: MAPPING_KEYS.orderly,
  orderlyFailure: MAPPING_KEYS.orderlyFailure,
  maxReconsumeTimes: MAPPING_KEYS.maxReconsumeTimes,
  messageModel: enumOptionKey('messageModel'),
  consumeMode: enumOptionKey('consumeMode', {
    note: 'POP takes no offset store and refuses `orderly`, `AT_TIMESTAMP`, `BROADCASTING` and `bisectBatchOnError`; a popped message stays invisible for the longest consume of a batch (batching window + `functionTimeoutMs` + 10 s for a Lambda function, `consumeTimeoutMs` for a local handler, + 30 s).',
  }),
  allocateStrategy: MAPPING_KEYS.allocateStrategy,
  allocateVirtualNodes: MAPPING_KEYS.allocateVirtualNodes,
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
  startingPosition: MAPPING_KEYS.startingPosition,
  startingPositionTimestamp: MAPPING_KEYS.startingPositionTimestamp,
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
  bisectBatchOnError: MAPPING_KEYS.bisectBatchOnError,
  messageTrace: MAPPING_KEYS.messageTrace,
  maxRecordAgeSeconds: z
    .number()
    .int()
    .min(-1)
    .max(MAX_RECORD_AGE_SECONDS)
    // The gap 0..59 is a rule (config-rules.ts, recordAgeProblems), shared with the serverless event.
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
          'An SQS queue ARN or SNS topic ARN that receives a JSON record (condition, reason, message ids and positions) of every message that failed for good: dead-lettered by the poller (too large, too old) or out of retries; or an S3 bucket ARN (`arn:aws:s3:::<bucket>[/<key prefix>]`) that receives one JSON object per such message, its whole record and body included (docs/operating.md). In addition to `%DLQ%<group>`.',
        defaultText: 'none',
      }),
    ),
});

/**
 * The schema of a run config file, before defaults and environment variables are applied.
 */
export const runConfigSchema = z
  .strictObject({
    nameServer: nameServerSchema,
    acl: aclSchema,
    tls: tlsSchema(tlsSettingsSchema('relative to the config file')),
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
 */
export type RunConfigInput = z.input<typeof runConfigSchema>;

/**
 * One mapping as written in the config file.
 */
export type MappingInput = z.output<typeof mappingSchema>;
