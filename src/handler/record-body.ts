/**
 * Reading a record's body. Bodies travel base64-encoded because they are bytes, except a UTF-8 body too
 * large for the invoke as base64, which travels as its text (`bodyEncoding: 'utf8'`). These helpers honour
 * both and read the body as bytes, as text, or as JSON (optionally validated by a schema), with errors
 * that name the record.
 */
import { TextDecoder } from 'node:util';
import type { BodySchema } from './body-schema.js';
import { validateSync } from './body-schema.js';
import { RocketMQParseError } from './errors.js';
import type { RocketMQRecord } from './types.js';

/** The longest excerpt of a messageId quoted in an error subject. */
const MAX_ID_CHARS = 80;

let strictUtf8: TextDecoder | undefined;

function bodySubject(record: Pick<RocketMQRecord, 'messageId'>): string {
  const id = record.messageId;
  return `record ${JSON.stringify(id.length > MAX_ID_CHARS ? `${id.slice(0, MAX_ID_CHARS)}…` : id)} body`;
}

/**
 * The body's bytes, exactly as the producer sent them: base64-decoded, or, for a record with
 * `bodyEncoding: 'utf8'`, the UTF-8 encoding of its text.
 *
 * @example
 * ```ts
 * import { recordBody } from 'rocketmq-lambda-handler';
 *
 * const bytes = recordBody(record);
 * await s3.send(new PutObjectCommand({ Bucket, Key: record.messageId, Body: bytes }));
 * ```
 */
export function recordBody(record: Pick<RocketMQRecord, 'body' | 'bodyEncoding'>): Buffer {
  return Buffer.from(record.body, record.bodyEncoding === 'utf8' ? 'utf8' : 'base64');
}

/**
 * The body as text. Decoding is lenient, like `Buffer#toString`: bytes that are not valid in the encoding
 * become U+FFFD. Use {@link recordJson} for JSON, which rejects invalid UTF-8.
 *
 * @example
 * ```ts
 * import { recordText } from 'rocketmq-lambda-handler';
 *
 * const line = recordText(record); // UTF-8
 * const legacy = recordText(record, 'latin1');
 * ```
 */
export function recordText(
  record: Pick<RocketMQRecord, 'body' | 'bodyEncoding'>,
  encoding: BufferEncoding = 'utf8',
): string {
  return recordBody(record).toString(encoding);
}

/**
 * The body parsed as JSON (UTF-8, a leading byte order mark ignored), and, given a schema (zod or any
 * Standard Schema), validated: the schema's output is returned. Throws a {@link RocketMQParseError} naming
 * the record's `messageId` and the path of each problem (`body.items[0].price: ...`) when the body is not
 * UTF-8, not JSON, or does not match. Inside a per-record handler that fails just this record.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { recordJson } from 'rocketmq-lambda-handler';
 *
 * const Order = z.object({ orderId: z.string(), amount: z.number().positive() });
 *
 * const anything = recordJson(record); // unknown
 * const order = recordJson(record, Order); // { orderId: string; amount: number }
 * ```
 */
export function recordJson(record: Pick<RocketMQRecord, 'body' | 'bodyEncoding' | 'messageId'>): unknown;
export function recordJson<Output>(
  record: Pick<RocketMQRecord, 'body' | 'bodyEncoding' | 'messageId'>,
  schema: BodySchema<Output>,
): Output;
export function recordJson<Output>(
  record: Pick<RocketMQRecord, 'body' | 'bodyEncoding' | 'messageId'>,
  schema?: BodySchema<Output>,
): unknown {
  const value = parseJsonBody(record);
  if (schema === undefined) return value;
  const result = validateSync(schema, value, 'body');
  if (result.ok) return result.value;
  throw new RocketMQParseError(bodySubject(record), result.issues, { messageId: record.messageId });
}

function parseJsonBody(record: Pick<RocketMQRecord, 'body' | 'bodyEncoding' | 'messageId'>): unknown {
  strictUtf8 ??= new TextDecoder('utf-8', { fatal: true });
  let text: string;
  try {
    text = strictUtf8.decode(recordBody(record));
  } catch (error) {
    throw new RocketMQParseError(
      bodySubject(record),
      [{ path: 'body', message: 'not valid UTF-8, so not JSON (read it with recordBody)' }],
      { messageId: record.messageId, cause: error },
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RocketMQParseError(bodySubject(record), [{ path: 'body', message: `not JSON (${reason})` }], {
      messageId: record.messageId,
      cause: error,
    });
  }
}
