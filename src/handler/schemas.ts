/**
 * zod schemas of the function contract (docs/writing-a-handler.md), matching the types of ./types.ts
 * field for field (a type test checks both directions). Objects strip unknown keys, so a handler that
 * parses with them keeps working when a later event version adds fields.
 */
import { z } from 'zod';

const nonNegativeInt = () => z.int().min(0);
const base64 = z.base64();

/**
 * One record of a {@link RocketMQEventSchema}. Extend it to type a record of your own, e.g. with a
 * `transform` of its body. It has no refinements, so `extend`, `pick`, `omit` and `partial` all work:
 * that `body` is valid base64 when `bodyEncoding` is absent is checked by {@link RocketMQEventSchema}'s
 * `Records`.
 *
 * @example
 * ```ts
 * import { RocketMQRecordSchema } from 'rocketmq-lambda-handler';
 *
 * const record = RocketMQRecordSchema.parse(event.Records[0]);
 * const tenant = record.properties.tenant ?? 'default';
 * ```
 */
export const RocketMQRecordSchema = z.object({
  messageId: z.string(),
  offsetMsgId: z.string(),
  topic: z.string(),
  brokerName: z.string(),
  queueId: nonNegativeInt(),
  queueOffset: nonNegativeInt(),
  tags: z.string().nullable(),
  keys: z.array(z.string()),
  body: z.string(),
  bodyEncoding: z.literal('utf8').optional(),
  properties: z.record(z.string(), z.string()),
  bornTimestamp: z.int(),
  storeTimestamp: z.int(),
  bornHost: z.string(),
  storeHost: z.string(),
  reconsumeTimes: nonNegativeInt(),
  traceContext: z.object({ traceparent: z.string(), tracestate: z.string().optional() }).optional(),
});

/**
 * Adds an issue at `[i, 'body']` for each record without `bodyEncoding` whose body is a string but not
 * base64. Runs even when the records have other issues (so every problem is reported at once), hence it
 * reads its input as an unknown value.
 */
function checkBase64Bodies(records: unknown, ctx: z.RefinementCtx): void {
  if (!Array.isArray(records)) return;
  records.forEach((record, index) => {
    if (typeof record !== 'object' || record === null) return;
    const { body, bodyEncoding } = record as { body?: unknown; bodyEncoding?: unknown };
    if (bodyEncoding !== undefined || typeof body !== 'string' || base64.safeParse(body).success) return;
    ctx.addIssue({
      code: 'invalid_format',
      format: 'base64',
      path: [index, 'body'],
      message: 'Invalid base64-encoded string (a body without bodyEncoding is base64)',
      input: body,
    });
  });
}

/**
 * The event of one invoke (event v1). {@link parseEvent} wraps it with errors that name the path.
 *
 * @example
 * ```ts
 * import { RocketMQEventSchema } from 'rocketmq-lambda-handler';
 *
 * const result = RocketMQEventSchema.safeParse(input);
 * if (!result.success) console.error(result.error.issues);
 * ```
 */
export const RocketMQEventSchema = z.object({
  eventSource: z.literal('rocketmq'),
  consumerGroup: z.string(),
  Records: z.array(RocketMQRecordSchema).superRefine(checkBase64Bodies, { when: () => true }),
});

/**
 * One entry of a {@link RocketMQBatchResponseSchema}.
 *
 * @example
 * ```ts
 * RocketMQBatchItemFailureSchema.parse({ itemIdentifier: record.messageId });
 * ```
 */
export const RocketMQBatchItemFailureSchema = z.object({ itemIdentifier: z.string() });

/**
 * The partial-batch response, `{ batchItemFailures: [{ itemIdentifier }] }`.
 *
 * @example
 * ```ts
 * import { RocketMQBatchResponseSchema } from 'rocketmq-lambda-handler';
 *
 * const response = RocketMQBatchResponseSchema.parse(await handler(event, context));
 * console.log(response.batchItemFailures.length, 'records failed');
 * ```
 */
export const RocketMQBatchResponseSchema = z.object({
  batchItemFailures: z.array(RocketMQBatchItemFailureSchema),
});

/**
 * RocketMQ's own consume status, `{ status, ackIndex? }` (`ackIndex` an integer ≥ -1).
 *
 * @example
 * ```ts
 * import { RocketMQStatusResponseSchema } from 'rocketmq-lambda-handler';
 *
 * RocketMQStatusResponseSchema.parse({ status: 'CONSUME_SUCCESS', ackIndex: 3 });
 * ```
 */
export const RocketMQStatusResponseSchema = z.object({
  status: z.enum(['CONSUME_SUCCESS', 'RECONSUME_LATER']),
  ackIndex: z.int().min(-1).optional(),
});

/**
 * Either response with a meaning to the poller. Useful in a handler's own tests: what the handler returns
 * should pass it (or be `undefined`, which means every record succeeded).
 *
 * @example
 * ```ts
 * import { RocketMQResponseSchema } from 'rocketmq-lambda-handler';
 *
 * const response = await handler(event, context);
 * if (response !== undefined) RocketMQResponseSchema.parse(response);
 * ```
 */
export const RocketMQResponseSchema = z.union([RocketMQBatchResponseSchema, RocketMQStatusResponseSchema]);
