import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RocketMQParseError } from '../../../src/handler/errors.js';
import { parseRecords } from '../../../src/handler/parse-event.js';
import { recordBody, recordJson, recordText } from '../../../src/handler/record-body.js';
import type { RocketMQRecord } from '../../../src/handler/types.js';
import { buildRecord } from '../../../src/invoke/event-builder.js';
import { consumed } from '../invoke/consumed-message.js';
import { eventOf } from './fixtures.js';

function recordOf(body: string | Buffer, messageId = 'id-0'): RocketMQRecord {
  return buildRecord(
    consumed({ msgId: messageId, body: typeof body === 'string' ? Buffer.from(body) : body, properties: {} }),
  );
}

function thrown(fn: () => unknown): RocketMQParseError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RocketMQParseError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

const Order = z.object({
  orderId: z.string(),
  items: z.array(z.object({ sku: z.string(), price: z.number().positive() })),
});

describe('recordBody', () => {
  it('returns the exact bytes of any body', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(recordBody(recordOf(Buffer.from(bytes)))).toEqual(Buffer.from(bytes));
      }),
    );
  });

  it('returns an empty buffer for an empty body', () => {
    expect(recordBody(recordOf('')).length).toBe(0);
  });
});

describe('records whose body is UTF-8 text (bodyEncoding "utf8")', () => {
  function textRecordOf(body: string | Buffer, messageId = 'id-0'): RocketMQRecord {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    return JSON.parse(
      JSON.stringify(buildRecord(consumed({ msgId: messageId, body: bytes, properties: {} }), 'utf8')),
    ) as RocketMQRecord;
  }

  it('gives the exact bytes of any UTF-8 body, after a JSON round trip', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const bytes = Buffer.from(text, 'utf8');
        const record = textRecordOf(bytes);
        expect(record.bodyEncoding).toBe('utf8');
        expect(recordBody(record)).toEqual(bytes);
        expect(recordText(record)).toBe(bytes.toString('utf8'));
      }),
    );
  });

  it('reads text, other encodings and JSON (a byte order mark ignored) as for base64 bodies', () => {
    const record = textRecordOf('\uFEFF{"orderId":"o-1","items":[{"sku":"é\\n✓","price":2}]}', 'T1');
    expect(record.body.startsWith('\uFEFF{')).toBe(true);
    expect(recordJson(record, Order)).toEqual({ orderId: 'o-1', items: [{ sku: 'é\n✓', price: 2 }] });
    expect(recordText(textRecordOf('hi'), 'hex')).toBe('6869');
    expect(recordText(textRecordOf('café'), 'latin1')).toBe('cafÃ©');
    const error = thrown(() => recordJson(textRecordOf('{"orderId":1}', 'T2'), Order));
    expect(error.messageId).toBe('T2');
  });

  it('takes a body without bodyEncoding as base64, whatever it looks like', () => {
    expect(recordBody({ body: 'aGk=' })).toEqual(Buffer.from('hi'));
    expect(recordBody({ body: 'aGk=', bodyEncoding: 'utf8' })).toEqual(Buffer.from('aGk='));
  });
});

describe('recordText', () => {
  it('decodes UTF-8 by default and other encodings on request', () => {
    expect(recordText(recordOf('héllo ✓'))).toBe('héllo ✓');
    expect(recordText(recordOf(Buffer.from([0x63, 0x61, 0x66, 0xe9])), 'latin1')).toBe('café');
    expect(recordText(recordOf('hi'), 'hex')).toBe('6869');
  });

  it('is lenient with invalid UTF-8', () => {
    expect(recordText(recordOf(Buffer.from([0x61, 0xff, 0x62])))).toBe('a\uFFFDb');
  });
});

describe('recordJson', () => {
  it('parses JSON without a schema (a byte order mark ignored)', () => {
    expect(recordJson(recordOf('{"a":[1,2]}'))).toEqual({ a: [1, 2] });
    expect(recordJson(recordOf('\uFEFF"x"'))).toBe('x');
  });

  it('validates with a zod schema and returns its typed output', () => {
    const order = recordJson(recordOf('{"orderId":"o-1","items":[{"sku":"a","price":2}],"extra":1}'), Order);
    expect(order).toEqual({ orderId: 'o-1', items: [{ sku: 'a', price: 2 }] });
    const Doubled = z.number().transform((n) => n * 2);
    expect(recordJson(recordOf('21'), Doubled)).toBe(42);
  });

  it('names the messageId and the path of each mismatch', () => {
    const body = '{"orderId":7,"items":[{"sku":"a","price":1},{"sku":"b","price":-3}]}';
    const error = thrown(() => recordJson(recordOf(body, 'A1B2'), Order));
    expect(error.messageId).toBe('A1B2');
    expect(error.subject).toBe('record "A1B2" body');
    expect(error.issues.map((issue) => issue.path)).toEqual(['body.orderId', 'body.items[1].price']);
    expect(error.message).toMatch(
      /^invalid record "A1B2" body: body\.orderId: .+; body\.items\[1\]\.price: /,
    );
  });

  it('names the messageId of a body that is not JSON', () => {
    const error = thrown(() => recordJson(recordOf('{oops', 'm-9'), Order));
    expect(error.messageId).toBe('m-9');
    expect(error.issues).toEqual([{ path: 'body', message: expect.stringMatching(/^not JSON \(/) }]);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('rejects a body that is not UTF-8 instead of parsing replacement characters', () => {
    const error = thrown(() => recordJson(recordOf(Buffer.from([0x22, 0xff, 0x22]), 'm-2')));
    expect(error.messageId).toBe('m-2');
    expect(error.issues[0]?.message).toMatch(/not valid UTF-8/);
  });

  it('accepts any Standard Schema, not only zod', () => {
    const evenNumber = {
      '~standard': {
        version: 1 as const,
        vendor: 'hand-made',
        validate: (value: unknown) =>
          typeof value === 'number' && value % 2 === 0
            ? { value }
            : { issues: [{ message: 'expected an even number', path: [{ key: 'n' }] }] },
      },
    };
    expect(recordJson(recordOf('4'), evenNumber)).toBe(4);
    expect(thrown(() => recordJson(recordOf('3'), evenNumber)).issues).toEqual([
      { path: 'body.n', message: 'expected an even number' },
    ]);
  });

  it('refuses an asynchronous schema with a TypeError', () => {
    const AsyncSchema = z.string().refine(async () => true);
    expect(() => recordJson(recordOf('"x"'), AsyncSchema)).toThrow(TypeError);
  });
});

describe('parseRecords', () => {
  it('parses every body in record order', () => {
    const event = eventOf(['{"orderId":"a","items":[]}', '{"orderId":"b","items":[]}']);
    const orders = parseRecords(event, Order);
    expect(orders.map((order) => order.orderId)).toEqual(['a', 'b']);
  });

  it('throws for the first invalid body, naming its record', () => {
    const event = eventOf(['{"orderId":"a","items":[]}', '{"orderId":1,"items":[]}', 'nope']);
    const error = thrown(() => parseRecords(event, Order));
    expect(error.messageId).toBe('id-1');
    expect(error.issues).toEqual([{ path: 'body.orderId', message: expect.any(String) }]);
  });
});
