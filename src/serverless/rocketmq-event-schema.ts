/**
 * The `rocketmq` event of a function in serverless.yml: one event source mapping (topic → this function).
 * A closed schema: a key not listed is an error. Durations are in seconds, as in AWS's own event source
 * mappings (`maximumBatchingWindow`, `maxRecordAge`); the plugin converts them for the poller. The keys
 * the run config also has take their range, default and description from the same definitions (the
 * consumer's option specs through `consumer-option-keys.ts`, the run config's constants), none restated.
 *
 * ```yaml
 * functions:
 *   orders:
 *     handler: src/orders.handler
 *     events:
 *       - rocketmq:
 *           topic: Orders
 *           consumerGroup: orders-fn
 *           filter: "TagA || TagB"
 *           batchSize: 50
 * ```
 */
import { z } from 'zod';
import {
  ISO_TIMESTAMP,
  MAPPING_DEFAULTS,
  MAX_GROUP_CHARS,
  MAX_RECORD_AGE_SECONDS,
  MAX_TOPIC_CHARS,
  MIN_RECORD_AGE_SECONDS,
  RESOURCE_NAME,
} from '../config/config-schema.js';
import {
  booleanOptionKey,
  enumOptionKey,
  integerOptionKey,
  secondsOptionKey,
} from '../config/consumer-option-keys.js';
import { info, type KeyInfo } from '../config/schema-meta.js';
import { cfnIntrinsicSchema } from './cfn-intrinsic.js';

/** An SQS queue or SNS topic ARN. */
export const FAILURE_DESTINATION_ARN =
  /^arn:aws[a-zA-Z-]*:(sqs|sns):[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]{1,256}$/;

/**
 * The queue count assumed of a topic when its event gives no `queues`: RocketMQ's `defaultTopicQueueNums`.
 *
 * @example
 * ```ts
 * event.queues ?? QUEUES_PER_TOPIC; // => 8 when the event says nothing
 * ```
 */
export const QUEUES_PER_TOPIC = 8;

/** The limits of `maxRecordAge`, in seconds, as AWS's stream event source mappings (-1: no limit). */
export const MAX_RECORD_AGE_LIMITS = {
  noLimit: MAPPING_DEFAULTS.maxRecordAgeSeconds,
  min: MIN_RECORD_AGE_SECONDS,
  max: MAX_RECORD_AGE_SECONDS,
} as const;

/**
 * The poller's batching window when an event gives none, in seconds (the consumer's default).
 *
 * @example
 * ```ts
 * (event.maximumBatchingWindow ?? DEFAULT_BATCHING_WINDOW_SECONDS) * 1000; // => 500 when unset
 * ```
 */
export const DEFAULT_BATCHING_WINDOW_SECONDS = MAPPING_DEFAULTS.maximumBatchingWindowMs / 1000;

const int = (min: number, max: number, meta: KeyInfo) =>
  z.number().int().min(min).max(max).optional().meta(info(meta));

/**
 * The schema of one `rocketmq` event.
 *
 * @example
 * ```ts
 * rocketmqEventSchema.safeParse({ topic: 'Orders', consumerGroup: 'orders-fn' }).success; // => true
 * ```
 */
export const rocketmqEventSchema = z.strictObject({
  topic: z
    .string()
    .regex(RESOURCE_NAME, { error: 'must be a RocketMQ topic name (A-Z a-z 0-9 _ - % |)' })
    .max(MAX_TOPIC_CHARS)
    .meta(info({ description: 'The topic to consume.' })),
  consumerGroup: z
    .string()
    .regex(RESOURCE_NAME, { error: 'must be a RocketMQ group name (A-Z a-z 0-9 _ - % |)' })
    .max(MAX_GROUP_CHARS)
    .meta(
      info({
        description: 'The consumer group; its offsets live in the offsets table. One event per group.',
      }),
    ),
  filter: z
    .union(
      [
        z
          .string()
          .min(1)
          .meta(info({ description: 'A tag expression: "*", "TagA || TagB".' })),
        z.strictObject({
          sql: z
            .string()
            .trim()
            .min(1)
            .meta(
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
        description: 'A tag expression (`"*"`, `"TagA || TagB"`), or `{ sql: "a > 5" }`.',
        default: MAPPING_DEFAULTS.filter,
      }),
    ),
  batchSize: integerOptionKey('batchSize'),
  maximumBatchingWindow: secondsOptionKey('maximumBatchingWindowMs', {
    note: "The poller's default is that of AWS's Kafka and MQ event sources.",
  }),
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
    .meta(info({ description: 'With AT_TIMESTAMP: Unix time in seconds, or an ISO 8601 date-time.' })),
  orderly: booleanOptionKey('orderly'),
  orderlyFailure: enumOptionKey('orderlyFailure'),
  maxConcurrency: integerOptionKey('maxConcurrency', { note: 'Per poller task.' }),
  maxReconsumeTimes: integerOptionKey('maxReconsumeTimes'),
  maxRecordAge: int(MAX_RECORD_AGE_LIMITS.noLimit, MAX_RECORD_AGE_LIMITS.max, {
    description: `Seconds: older messages go to the failure path without an invoke; -1 for no limit, else ${MAX_RECORD_AGE_LIMITS.min}–${MAX_RECORD_AGE_LIMITS.max}.`,
    default: MAX_RECORD_AGE_LIMITS.noLimit,
  }),
  bisectBatchOnError: z
    .boolean()
    .optional()
    .meta(
      info({
        description: 'Split a failed batch in two and retry the halves before counting a retry.',
        default: MAPPING_DEFAULTS.bisectBatchOnError,
      }),
    ),
  onFailure: z
    .union(
      [
        z.string().regex(FAILURE_DESTINATION_ARN, { error: 'must be an SQS queue ARN or SNS topic ARN' }),
        cfnIntrinsicSchema,
      ],
      {
        error:
          'must be an SQS queue or SNS topic ARN, or Ref / Fn::GetAtt / Fn::ImportValue / Fn::Sub / Fn::Join',
      },
    )
    .optional()
    .meta(
      info({
        description: 'An SQS queue or SNS topic that receives a record of messages that failed for good.',
        defaultText: 'none',
      }),
    ),
  messageModel: enumOptionKey('messageModel', {
    note: "Here the consumers are the poller's tasks; BROADCASTING turns scaling off.",
  }),
  consumeMode: enumOptionKey('consumeMode', {
    note: 'POP refuses `orderly`, `AT_TIMESTAMP`, `BROADCASTING` and `bisectBatchOnError`.',
  }),
  allocateStrategy: enumOptionKey('allocateStrategy', { note: 'PUSH only.' }),
  allocateVirtualNodes: integerOptionKey('allocateVirtualNodes', { note: 'With `CONSISTENT_HASH` only.' }),
  queues: int(1, 65_536, {
    description:
      "The topic's queue count: sizes the scaling's default `maxCount` (the largest among the events). 8 is RocketMQ's `defaultTopicQueueNums`, the queue count of a topic created without one.",
    default: QUEUES_PER_TOPIC,
  }),
  enabled: z
    .boolean()
    .optional()
    .meta(
      info({
        description: 'false: no poller reads this mapping; its offsets stay in the table.',
        default: true,
      }),
    ),
});

/**
 * One `rocketmq` event as the schema accepts it.
 *
 * @example
 * ```ts
 * const event: RocketMQEventOptions = { topic: 'Orders', consumerGroup: 'orders-fn', batchSize: 10 };
 * ```
 */
export type RocketMQEventOptions = z.output<typeof rocketmqEventSchema>;
