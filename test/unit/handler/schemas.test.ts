import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RocketMQParseError } from '../../../src/handler/errors.js';
import { parseEvent } from '../../../src/handler/parse-event.js';
import { recordBody } from '../../../src/handler/record-body.js';
import {
  RocketMQBatchResponseSchema,
  RocketMQEventSchema,
  RocketMQRecordSchema,
  RocketMQResponseSchema,
  RocketMQStatusResponseSchema,
} from '../../../src/handler/schemas.js';
import { buildRecord, serializeEvent } from '../../../src/invoke/event-builder.js';
import { consumed } from '../invoke/consumed-message.js';
import { eventOf } from './fixtures.js';

/** A deep copy through JSON, as the function receives the event. */
function overJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function parseError(input: unknown): RocketMQParseError {
  try {
    parseEvent(input);
  } catch (error) {
    if (error instanceof RocketMQParseError) return error;
    throw error;
  }
  throw new Error('parseEvent accepted the input');
}

describe('schemas and types agree', () => {
  it('knows exactly the fields of a record the event builder writes', () => {
    const record = eventOf(['x']).Records[0];
    // Every optional field present: a text body and a trace context.
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const fullRecord = buildRecord(
      consumed({ body: Buffer.from('x'), properties: { traceparent, tracestate: 'k=v' } }),
      'utf8',
    );
    expect(Object.keys(RocketMQRecordSchema.shape).sort()).toEqual(Object.keys(fullRecord).sort());
    expect(RocketMQRecordSchema.parse(fullRecord)).toEqual(fullRecord);
    const optional = ['bodyEncoding', 'traceContext'];
    expect(Object.keys(RocketMQRecordSchema.shape).filter((key) => !optional.includes(key))).toEqual(
      expect.arrayContaining(Object.keys(record ?? {})),
    );
    expect(Object.keys(record ?? {})).toHaveLength(Object.keys(RocketMQRecordSchema.shape).length - 2);
  });
});

describe('RocketMQEventSchema', () => {
  it('accepts events built by the poller, unchanged', () => {
    const event = eventOf(['{"id":1}', Buffer.from([0xff, 0x00, 0xfe]), '']);
    expect(RocketMQEventSchema.parse(event)).toEqual(event);
    expect(parseEvent(overJson(event))).toEqual(event);
  });

  it('accepts the serialized payload the poller sends, exotic fields included', () => {
    const payload = serializeEvent('g', [
      consumed({
        msgId: 'm-1',
        tags: undefined,
        keys: [],
        bornHost: '[::1]:40000',
        queueOffset: 9_007_199_254_740_991,
        reconsumeTimes: 3,
        body: Buffer.from('héllo ✓'),
        properties: { UNIQ_KEY: 'm-1', 'trace-id': 'a"b\\c', ключ: 'значение' },
      }),
    ]);
    const event = parseEvent(JSON.parse(payload.toString('utf8')));
    expect(event.Records[0]).toMatchObject({
      messageId: 'm-1',
      tags: null,
      keys: [],
      reconsumeTimes: 3,
      properties: { 'trace-id': 'a"b\\c', ключ: 'значение' },
    });
  });

  it('accepts an empty batch and drops unknown keys (a later event version may add fields)', () => {
    const event = { ...eventOf(['a']), eventVersion: '1.1' };
    expect(parseEvent(event)).not.toHaveProperty('eventVersion');
    expect(parseEvent({ eventSource: 'rocketmq', consumerGroup: 'g', Records: [] }).Records).toEqual([]);
  });

  it('rejects an SQS event, naming the paths', () => {
    const error = parseError({ Records: [{ messageId: 'x', body: 'hello', eventSource: 'aws:sqs' }] });
    expect(error.subject).toBe('RocketMQ event');
    expect(error.issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining(['eventSource', 'consumerGroup', 'Records[0].topic (messageId "x")']),
    );
    expect(error.message).toMatch(/^invalid RocketMQ event: eventSource: /);
  });

  it('names the record and field of a bad value', () => {
    const event = overJson(eventOf(['a', 'b', 'c'])) as unknown as { Records: Record<string, unknown>[] };
    const record = event.Records[2] as Record<string, unknown>;
    record.queueId = '3';
    record.body = 'not base64!';
    record.properties = { ok: 'yes', 'bad-key': 7 };
    const error = parseError(event);
    expect(error.issues.map((issue) => issue.path)).toEqual([
      'Records[2].queueId (messageId "id-2")',
      'Records[2].properties["bad-key"] (messageId "id-2")',
      'Records[2].body (messageId "id-2")',
    ]);
    expect(error.issues[2]?.message).toMatch(/base64/);
    expect(error.message).toContain('Records[2].queueId (messageId "id-2"): ');
    expect(error.cause).toBeDefined();
  });

  it('accepts a record whose body is UTF-8 text (bodyEncoding "utf8"), and no other encoding', () => {
    const event = overJson(eventOf(['a', 'b'])) as unknown as { Records: Record<string, unknown>[] };
    const text = event.Records[0] as Record<string, unknown>;
    text.bodyEncoding = 'utf8';
    text.body = 'not base64! {"é":"✓"}';
    expect(parseEvent(event).Records[0]).toMatchObject({
      bodyEncoding: 'utf8',
      body: 'not base64! {"é":"✓"}',
    });
    expect(parseEvent(event).Records[1]).not.toHaveProperty('bodyEncoding');
    (event.Records[1] as Record<string, unknown>).bodyEncoding = 'base64';
    expect(parseError(event).issues.map((issue) => issue.path)).toEqual([
      'Records[1].bodyEncoding (messageId "id-1")',
    ]);
  });

  it('accepts the serialized payload of a record that travels as text', () => {
    const m = consumed({ msgId: 'big', body: Buffer.from(`"quoted" é ✓ \n${'x'.repeat(400)}`) });
    const payload = serializeEvent('g', [m], { maxPayloadBytes: serializeEvent('g', [m]).length - 1 });
    const record = parseEvent(JSON.parse(payload.toString('utf8'))).Records[0];
    expect(record).toMatchObject({ messageId: 'big', bodyEncoding: 'utf8' });
    expect(record && recordBody(record)).toEqual(m.message.body);
  });

  it('keeps the record schema free of refinements, so that it can be extended, picked and omitted', () => {
    const Custom = RocketMQRecordSchema.extend({ body: z.string().transform((body) => body.length) });
    const record = overJson(eventOf(['hello']).Records[0]);
    expect(Custom.parse(record).body).toBe(8);
    expect(RocketMQRecordSchema.pick({ messageId: true, bodyEncoding: true }).parse(record)).toEqual({
      messageId: 'id-0',
    });
    expect(Object.keys(RocketMQRecordSchema.omit({ body: true }).parse(record))).not.toContain('body');
    expect(RocketMQRecordSchema.partial().parse({})).toEqual({});
  });

  it('rejects negative offsets, fractions and a missing messageId', () => {
    const event = overJson(eventOf(['a', 'b'])) as unknown as { Records: Record<string, unknown>[] };
    (event.Records[0] as Record<string, unknown>).queueOffset = -1;
    (event.Records[0] as Record<string, unknown>).bornTimestamp = 1.5;
    delete (event.Records[1] as Record<string, unknown>).messageId;
    const paths = parseError(event).issues.map((issue) => issue.path);
    expect(paths).toEqual([
      'Records[0].queueOffset (messageId "id-0")',
      'Records[0].bornTimestamp (messageId "id-0")',
      'Records[1].messageId',
    ]);
  });

  it('rejects what is not an object at all', () => {
    expect(parseError(null).issues).toEqual([{ path: '', message: expect.any(String) }]);
    expect(parseError(null).message).toMatch(/^invalid RocketMQ event: /);
    expect(parseError({ eventSource: 'rocketmq', consumerGroup: 'g' }).issues[0]?.path).toBe('Records');
  });

  it('shortens a message with many issues but keeps them all', () => {
    const error = parseError({ Records: [{}] });
    expect(error.issues.length).toBeGreaterThan(5);
    expect(error.message).toMatch(/; and \d+ more$/);
  });
});

describe('response schemas', () => {
  it('accept the responses of the contract', () => {
    expect(RocketMQResponseSchema.parse({ batchItemFailures: [] })).toEqual({ batchItemFailures: [] });
    expect(RocketMQResponseSchema.parse({ batchItemFailures: [{ itemIdentifier: 'a' }] })).toEqual({
      batchItemFailures: [{ itemIdentifier: 'a' }],
    });
    expect(RocketMQResponseSchema.parse({ status: 'CONSUME_SUCCESS', ackIndex: -1 })).toEqual({
      status: 'CONSUME_SUCCESS',
      ackIndex: -1,
    });
    expect(RocketMQStatusResponseSchema.parse({ status: 'RECONSUME_LATER' })).toEqual({
      status: 'RECONSUME_LATER',
    });
  });

  it('reject what the poller treats as malformed, with paths', () => {
    const bad = [
      { batchItemFailures: [{ itemIdentifier: 1 }] },
      { batchItemFailures: 'a' },
      { status: 'OK' },
      { status: 'CONSUME_SUCCESS', ackIndex: -2 },
      { status: 'CONSUME_SUCCESS', ackIndex: 1.5 },
    ];
    for (const response of bad) expect(RocketMQResponseSchema.safeParse(response).success).toBe(false);
    const result = RocketMQBatchResponseSchema.safeParse({
      batchItemFailures: [{ itemIdentifier: 'a' }, {}],
    });
    expect(result.error?.issues[0]?.path).toEqual(['batchItemFailures', 1, 'itemIdentifier']);
  });
});
