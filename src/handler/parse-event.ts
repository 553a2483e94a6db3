/**
 * Parsing a whole event: its envelope ({@link parseEvent}) or every record's body at once
 * ({@link parseRecords}, an envelope in the sense of Powertools' parser).
 */
import type { BodySchema } from './body-schema.js';
import { formatPath, RocketMQParseError } from './errors.js';
import { recordJson } from './record-body.js';
import { RocketMQEventSchema } from './schemas.js';
import type { RocketMQEvent } from './types.js';

/**
 * Checks that `value` is a RocketMQ event (event v1) and returns it typed (a copy without unknown keys).
 * Throws a {@link RocketMQParseError} whose message names the path of each problem, with the record's
 * `messageId` where there is one: `Records[3].queueId (messageId "A1"): Invalid input: expected number`.
 *
 * @example
 * ```ts
 * import { parseEvent } from 'rocketmq-lambda-handler';
 *
 * export const handler = async (input: unknown) => {
 *   const event = parseEvent(input);
 *   console.log(event.consumerGroup, event.Records.length);
 * };
 * ```
 */
export function parseEvent(value: unknown): RocketMQEvent {
  const result = RocketMQEventSchema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: formatPath('', issue.path) + messageIdHint(value, issue.path),
    message: issue.message,
  }));
  throw new RocketMQParseError('RocketMQ event', issues, { cause: result.error });
}

/** ` (messageId "x")` for a path inside `Records[i]` whose record has a string messageId. */
function messageIdHint(value: unknown, path: readonly PropertyKey[]): string {
  const index = path[1];
  if (path[0] !== 'Records' || typeof index !== 'number' || path.length < 3) return '';
  const records = isObject(value) ? value.Records : undefined;
  const record: unknown = Array.isArray(records) ? records[index] : undefined;
  const messageId = isObject(record) ? record.messageId : undefined;
  return typeof messageId === 'string' ? ` (messageId ${JSON.stringify(messageId)})` : '';
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null;
}

/**
 * Every record's body as JSON validated by `schema`, in record order (an envelope, like Powertools
 * parser's `SqsEnvelope`). All or nothing: the first invalid body throws a {@link RocketMQParseError}
 * naming its `messageId` and path, which fails the whole batch. To fail only the bad records, use
 * {@link recordJson} inside a per-record handler (see `processRocketMQBatch`).
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { parseRecords, type RocketMQHandler } from 'rocketmq-lambda-handler';
 *
 * const Order = z.object({ orderId: z.string() });
 *
 * export const handler: RocketMQHandler = async (event) => {
 *   const orders = parseRecords(event, Order); // { orderId: string }[]
 *   await saveAll(orders);
 * };
 * ```
 */
export function parseRecords<Output>(
  event: Pick<RocketMQEvent, 'Records'>,
  schema: BodySchema<Output>,
): Output[] {
  return event.Records.map((record) => recordJson(record, schema));
}
