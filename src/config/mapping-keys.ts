/**
 * The keys of one event source mapping that the run config (`mappings[]`) and the Serverless `rocketmq`
 * event share, each declared once: type, range, error wording, description and default. Both schemas
 * compose them (the event adds its own keys, and seconds where the run config counts milliseconds). A
 * consumer option whose description a surface extends with a note of its own (`maxConcurrency`,
 * `messageModel`, `consumeMode`) is built per surface from the consumer's one spec
 * (`consumer-option-keys.ts`).
 */
import { z } from 'zod';
import { DEFAULT_MAX_FILTER_PATTERNS } from '../filter/filter-limits.js';
import { DEFAULT_TRACE_TOPIC } from '../protocol/message-trace.js';
import { MAPPING_DEFAULTS } from './config-defaults.js';
import { booleanOptionKey, enumOptionKey, integerOptionKey } from './consumer-option-keys.js';
import { info, text } from './schema-meta.js';

/** RocketMQ's topic and group name characters (`TopicValidator`). */
export const RESOURCE_NAME = /^[%|a-zA-Z0-9_-]+$/;
/** `TopicValidator.TOPIC_MAX_LENGTH`. */
export const MAX_TOPIC_CHARS = 127;
/** `Validators.CHARACTER_MAX_LENGTH`, the longest consumer group name. */
export const MAX_GROUP_CHARS = 255;
/** Unix seconds beyond this are surely milliseconds (year 5138); `config-rules.ts` says so. */
export const MAX_TIMESTAMP_SECONDS = 99_999_999_999;
/** An ISO 8601 date, or date-time with a zone. */
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;
/** AWS's range of `MaximumRecordAgeInSeconds` (besides -1, "off"). */
export const MIN_RECORD_AGE_SECONDS = 60;
/** AWS's range of `MaximumRecordAgeInSeconds` (7 days). */
export const MAX_RECORD_AGE_SECONDS = 604_800;

/** The consumer group; `description` says what one group is on the surface (one mapping, one event). */
export function consumerGroupKey(description: string) {
  return z
    .string()
    .regex(RESOURCE_NAME, { error: 'must be a RocketMQ group name (A-Z a-z 0-9 _ - % |)' })
    .max(MAX_GROUP_CHARS)
    .meta(info({ description }));
}

/** The shared keys; a schema lists the ones it takes, in the order of its reference table. */
export const MAPPING_KEYS = {
  topic: z
    .string()
    .regex(RESOURCE_NAME, { error: 'must be a RocketMQ topic name (A-Z a-z 0-9 _ - % |)' })
    .max(MAX_TOPIC_CHARS)
    .meta(info({ description: 'The topic to consume.' })),
  filter: z
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
    ),
  filters: z
    .array(
      z.union([z.string(), z.record(z.string(), z.unknown())], {
        error: 'must be a filter pattern: a JSON string or an object',
      }),
    )
    .optional()
    .meta(
      info({
        description: `Filter criteria, as Lambda's \`FilterCriteria.Filters[].Pattern\`: up to ${DEFAULT_MAX_FILTER_PATTERNS} patterns in the EventBridge pattern language (JSON strings or objects) over the record the function would receive (\`topic\`, \`tags\`, \`keys\`, \`properties\`, ...) and its \`body\` when it is JSON. A message that matches no pattern is not invoked and counts as consumed. Applied after the broker's \`filter\`. See docs/filtering.md.`,
        defaultText: 'none (every message the broker-side `filter` passes)',
      }),
    ),
  batchSize: integerOptionKey('batchSize'),
  orderly: booleanOptionKey('orderly'),
  orderlyFailure: enumOptionKey('orderlyFailure'),
  maxReconsumeTimes: integerOptionKey('maxReconsumeTimes'),
  allocateStrategy: enumOptionKey('allocateStrategy', { note: 'PUSH only.' }),
  allocateVirtualNodes: integerOptionKey('allocateVirtualNodes', { note: 'With `CONSISTENT_HASH` only.' }),
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
  messageTrace: z
    .union(
      [
        z.boolean(),
        z.strictObject({
          topic: z
            .string()
            .regex(RESOURCE_NAME, { error: 'must be a RocketMQ topic name (A-Z a-z 0-9 _ - % |)' })
            .max(MAX_TOPIC_CHARS)
            .optional()
            .meta(info({ description: 'The trace topic.', default: DEFAULT_TRACE_TOPIC })),
        }),
      ],
      { error: 'must be true, false or { topic: "<trace topic>" }' },
    )
    .optional()
    .meta(
      info({
        description: `Write RocketMQ message trace consume records (\`SubBefore\`/\`SubAfter\`: group, cost, success) for every message, as Apache's clients do with message trace on, so that \`mqadmin queryMsgTraceById\` and RocketMQ Dashboard show this mapping's consumption beside the producer's record. \`true\` writes to \`${DEFAULT_TRACE_TOPIC}\` (the broker needs \`traceTopicEnable=true\`), \`{ topic }\` to a topic of your own. Written in the background; never slows or fails consumption. See docs/message-trace.md.`,
        default: MAPPING_DEFAULTS.messageTrace,
      }),
    ),
} as const;
