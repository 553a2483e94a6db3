/**
 * The `rocketmq` event of a function in serverless.yml: one event source mapping (topic → this function).
 * A closed schema: a key not listed is an error. Durations are in seconds, as in AWS's own event source
 * mappings (`maximumBatchingWindow`, `maxRecordAge`); the plugin converts them for the poller. The keys
 * the run config also has are the run config's own (`mapping-keys.ts`, and the consumer's option specs
 * through `consumer-option-keys.ts`), none restated; so are the rules that span them (`config-rules.ts`,
 * run by `schema-problems.ts`).
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
 *           filters:
 *             - body:
 *                 status: [paid]
 *           batchSize: 50
 * ```
 */
import { z } from 'zod';
import { MAPPING_DEFAULTS } from '../config/config-defaults.js';
import { enumOptionKey, integerOptionKey, secondsOptionKey } from '../config/consumer-option-keys.js';
import {
  consumerGroupKey,
  MAPPING_KEYS,
  MAX_RECORD_AGE_SECONDS,
  MIN_RECORD_AGE_SECONDS,
} from '../config/mapping-keys.js';
import { info, intKey } from '../config/schema-meta.js';
import { ANY_FAILURE_DESTINATION_ARN } from '../util/failure-destination-arn-pattern.js';
import { cfnIntrinsicSchema } from './cfn-intrinsic.js';

/**
 * The queue count assumed of a topic when its event gives no `queues`: RocketMQ's `defaultTopicQueueNums`.
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
 */
export const DEFAULT_BATCHING_WINDOW_SECONDS = MAPPING_DEFAULTS.maximumBatchingWindowMs / 1000;

/**
 * The schema of one `rocketmq` event.
 *
 * @example
 * ```ts
 * rocketmqEventSchema.safeParse({ topic: 'Orders', consumerGroup: 'orders-fn' }).success; // => true
 * ```
 */
export const rocketmqEventSchema = z.strictObject({
  topic: MAPPING_KEYS.topic,
  consumerGroup: consumerGroupKey(
    'The consumer group; its offsets live in the offsets table. One event per group.',
  ),
  filter: MAPPING_KEYS.filter,
  filters: MAPPING_KEYS.filters,
  batchSize: MAPPING_KEYS.batchSize,
  maximumBatchingWindow: secondsOptionKey('maximumBatchingWindowMs', {
    note: "The poller's default is that of AWS's Kafka and MQ event sources.",
  }),
  startingPosition: MAPPING_KEYS.startingPosition,
  startingPositionTimestamp: MAPPING_KEYS.startingPositionTimestamp,
  orderly: MAPPING_KEYS.orderly,
  orderlyFailure: MAPPING_KEYS.orderlyFailure,
  maxConcurrency: integerOptionKey('maxConcurrency', { note: 'Per poller task.' }),
  maxReconsumeTimes: MAPPING_KEYS.maxReconsumeTimes,
  maxRecordAge: intKey(MAX_RECORD_AGE_LIMITS.noLimit, MAX_RECORD_AGE_LIMITS.max, {
    description: `Seconds: older messages go to the failure path without an invoke; -1 for no limit, else ${MAX_RECORD_AGE_LIMITS.min}–${MAX_RECORD_AGE_LIMITS.max}.`,
    default: MAX_RECORD_AGE_LIMITS.noLimit,
  }),
  bisectBatchOnError: MAPPING_KEYS.bisectBatchOnError,
  messageTrace: MAPPING_KEYS.messageTrace,
  onFailure: z
    .union(
      [
        z.string().regex(ANY_FAILURE_DESTINATION_ARN, {
          error:
            'must be an SQS queue ARN, SNS topic ARN or S3 bucket ARN (arn:aws:s3:::<bucket>[/<key prefix>])',
        }),
        cfnIntrinsicSchema,
      ],
      {
        error:
          'must be an SQS queue, SNS topic or S3 bucket ARN, or Ref / Fn::GetAtt / Fn::ImportValue / Fn::Sub / Fn::Join',
      },
    )
    .optional()
    .meta(
      info({
        description:
          'An SQS queue or SNS topic that receives a record of messages that failed for good, or an S3 bucket (`arn:aws:s3:::<bucket>[/<key prefix>]`) that receives one object per such message, body included.',
        defaultText: 'none',
      }),
    ),
  messageModel: enumOptionKey('messageModel', {
    note: "Here the consumers are the poller's tasks; BROADCASTING turns scaling off.",
  }),
  consumeMode: enumOptionKey('consumeMode', {
    note: 'POP refuses `orderly`, `AT_TIMESTAMP`, `BROADCASTING` and `bisectBatchOnError`.',
  }),
  allocateStrategy: MAPPING_KEYS.allocateStrategy,
  allocateVirtualNodes: MAPPING_KEYS.allocateVirtualNodes,
  queues: intKey(1, 65_536, {
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
