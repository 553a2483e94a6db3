/**
 * The `rocketmq` event of a function in serverless.yml: one event source mapping (topic → this function).
 * A closed schema: a key not listed is an error. Durations are in seconds, as in AWS's own event source
 * mappings (`maximumBatchingWindow`, `maxRecordAge`); the plugin converts them for the poller.
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
import { ISO_TIMESTAMP, MAPPING_DEFAULTS } from '../config/config-schema.js';
import { info, type KeyInfo } from '../config/schema-meta.js';
import { cfnIntrinsicSchema } from './cfn-intrinsic.js';

/** RocketMQ's topic and group name characters (`TopicValidator`). */
const RESOURCE_NAME = /^[%|a-zA-Z0-9_-]+$/;
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
export const MAX_RECORD_AGE_LIMITS = { noLimit: -1, min: 60, max: 604_800 } as const;

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
    .max(127)
    .meta(info({ description: 'The topic to consume.' })),
  consumerGroup: z
    .string()
    .regex(RESOURCE_NAME, { error: 'must be a RocketMQ group name (A-Z a-z 0-9 _ - % |)' })
    .max(255)
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
  batchSize: int(1, 10_000, {
    description: 'Most messages per invoke.',
    default: MAPPING_DEFAULTS.batchSize,
  }),
  maximumBatchingWindow: int(0, 300, {
    description: 'Seconds a batch may wait to fill.',
    defaultText: "the poller's 0.5 s, as AWS's Kafka and MQ event sources",
  }),
  startingPosition: z
    .enum(['LATEST', 'TRIM_HORIZON', 'AT_TIMESTAMP'])
    .optional()
    .meta(
      info({
        description: 'Where a queue without a stored offset starts: its end, its beginning, or a time.',
        default: MAPPING_DEFAULTS.startingPosition,
      }),
    ),
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
  orderly: z
    .boolean()
    .optional()
    .meta(
      info({
        description: 'Orderly consumption: one batch per queue at a time, in queue order.',
        default: MAPPING_DEFAULTS.orderly,
      }),
    ),
  orderlyFailure: z
    .enum(['skip', 'block'])
    .optional()
    .meta(
      info({
        description: 'Orderly, after maxReconsumeTimes: skip to `%DLQ%<group>`, or block.',
        default: MAPPING_DEFAULTS.orderlyFailure,
      }),
    ),
  maxConcurrency: int(1, 1000, {
    description: 'Most batches in flight at once per poller task.',
    default: MAPPING_DEFAULTS.maxConcurrency,
  }),
  maxReconsumeTimes: int(0, 10_000, {
    description: 'Deliveries after the first before a message goes to `%DLQ%<group>`.',
    default: MAPPING_DEFAULTS.maxReconsumeTimes,
  }),
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
  messageModel: z
    .enum(['CLUSTERING', 'BROADCASTING'])
    .optional()
    .meta(
      info({
        description:
          'CLUSTERING shares the queues among the poller tasks; BROADCASTING gives each every message (and turns scaling off).',
        default: MAPPING_DEFAULTS.messageModel,
      }),
    ),
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
