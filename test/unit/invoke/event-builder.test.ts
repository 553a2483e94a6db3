import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import { RocketMQError } from '../../../src/errors.js';
import { recordBody } from '../../../src/handler/record-body.js';
import type { RocketMQEvent } from '../../../src/handler/types.js';
import {
  base64Length,
  buildEvent,
  buildRecord,
  chooseBodyEncoding,
  estimateEventOverheadBytes,
  estimateRecordBytes,
  serializeEvent,
} from '../../../src/invoke/event-builder.js';
import { consumed, messageExt } from './consumed-message.js';

function parse(payload: Buffer): unknown {
  return JSON.parse(payload.toString('utf8'));
}

describe('buildRecord', () => {
  it('maps every field of a message', () => {
    const message = messageExt({
      topic: 'orders',
      queueId: 3,
      queueOffset: 9_007_199_254_740_991,
      bornTimestamp: 1_700_000_000_123,
      storeTimestamp: 1_700_000_000_456,
      bornHost: '[::1]:40000',
      storeHost: '192.168.0.2:10911',
      reconsumeTimes: 0,
      offsetMsgId: 'C0A8000200002A9F00000000000ABCDE',
      msgId: 'UNIQ-1',
      tags: 'created',
      keys: ['order-1', 'customer-9'],
      body: Buffer.from('{"id":1}'),
      properties: {
        UNIQ_KEY: 'UNIQ-1',
        TAGS: 'created',
        KEYS: 'order-1 customer-9',
        WAIT: 'true',
        MIN_OFFSET: '0',
        MAX_OFFSET: '10',
        CONSUME_START_TIME: '1700000000999',
        '__RMQ.TRANSIENT.TOPIC_SYS_FLAG': '0',
        tenant: 'acme',
        'trace-id': 'abc',
      },
    });
    const record = buildRecord({
      message,
      queue: { topic: 'orders', brokerName: 'broker-b', queueId: 3 },
      topic: 'orders',
    });
    expect(record).toEqual({
      messageId: 'UNIQ-1',
      offsetMsgId: 'C0A8000200002A9F00000000000ABCDE',
      topic: 'orders',
      brokerName: 'broker-b',
      queueId: 3,
      queueOffset: 9_007_199_254_740_991,
      tags: 'created',
      keys: ['order-1', 'customer-9'],
      body: Buffer.from('{"id":1}').toString('base64'),
      properties: { tenant: 'acme', 'trace-id': 'abc' },
      bornTimestamp: 1_700_000_000_123,
      storeTimestamp: 1_700_000_000_456,
      bornHost: '[::1]:40000',
      storeHost: '192.168.0.2:10911',
      reconsumeTimes: 0,
    });
  });

  it('gives a redelivered message its real topic and the retry queue it was read from', () => {
    const retryQueue = { topic: '%RETRY%orders-consumer', brokerName: 'broker-a', queueId: 0 };
    const message = messageExt({
      topic: '%RETRY%orders-consumer',
      queueId: 0,
      queueOffset: 7,
      reconsumeTimes: 2,
      msgId: 'UNIQ-2',
      offsetMsgId: '7F00000100002A9F0000000000009999',
      properties: {
        UNIQ_KEY: 'UNIQ-2',
        RETRY_TOPIC: 'orders',
        REAL_TOPIC: '%RETRY%orders-consumer',
        REAL_QID: '0',
        ORIGIN_MESSAGE_ID: '7F00000100002A9F0000000000000400',
        RECONSUME_TIME: '2',
        DELAY: '3',
        MAX_RECONSUME_TIMES: '16',
        color: 'red',
      },
    });
    const record = buildRecord({ message, queue: retryQueue, topic: 'orders' });
    expect(record.topic).toBe('orders');
    expect(record.brokerName).toBe('broker-a');
    expect(record.queueId).toBe(0);
    expect(record.queueOffset).toBe(7);
    expect(record.reconsumeTimes).toBe(2);
    expect(record.messageId).toBe('UNIQ-2');
    expect(record.offsetMsgId).toBe('7F00000100002A9F0000000000009999');
    expect(record.properties).toEqual({ color: 'red' });
  });

  it('uses the offset message id when there is no UNIQ_KEY, null tags and no keys', () => {
    const record = buildRecord(
      consumed({ msgId: 'OFFSETID', offsetMsgId: 'OFFSETID', tags: undefined, keys: [], properties: {} }),
    );
    expect(record.messageId).toBe('OFFSETID');
    expect(record.tags).toBeNull();
    expect(record.keys).toEqual([]);
    expect(record.properties).toEqual({});
  });

  it('encodes any bytes, invalid UTF-8 included, and only the bytes of a body view', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0xed, 0xa0, 0x80]);
    const pullBuffer = Buffer.concat([Buffer.from('xxx'), bytes, Buffer.from('yyy')]);
    const body = pullBuffer.subarray(3, 3 + bytes.length);
    const record = buildRecord(consumed({ body }));
    expect(Buffer.from(record.body, 'base64')).toEqual(bytes);
    const roundTripped = parse(serializeEvent('g', [consumed({ body })])) as { Records: { body: string }[] };
    expect(Buffer.from(roundTripped.Records[0]?.body ?? '', 'base64')).toEqual(bytes);
  });

  it('keeps user properties with awkward names as own properties', () => {
    const properties = JSON.parse(
      '{"__proto__":"p","constructor":"c","a\\"b":"q\\\\","é":"ü\\u0001"}',
    ) as Record<string, string>;
    const message = consumed({ properties });
    const record = buildRecord(message);
    expect(Object.keys(record.properties).sort()).toEqual(['__proto__', 'a"b', 'constructor', 'é'].sort());
    expect(Object.getOwnPropertyDescriptor(record.properties, '__proto__')?.value).toBe('p');
    const parsed = parse(serializeEvent('g', [message])) as {
      Records: { properties: Record<string, string> }[];
    };
    const parsedProperties = parsed.Records[0]?.properties ?? {};
    expect(Object.getOwnPropertyDescriptor(parsedProperties, '__proto__')?.value).toBe('p');
    expect(parsedProperties['a"b']).toBe('q\\');
    expect(parsedProperties.é).toBe('ü\u0001');
  });
});

describe('buildEvent and serializeEvent', () => {
  it('wraps records in the v1 envelope', () => {
    const batch = [consumed({ msgId: 'a', queueOffset: 1 }), consumed({ msgId: 'b', queueOffset: 2 })];
    const event = buildEvent('orders-consumer', batch);
    expect(event.eventSource).toBe('rocketmq');
    expect(event.consumerGroup).toBe('orders-consumer');
    expect(event.Records.map((r) => r.messageId)).toEqual(['a', 'b']);
    expect(parse(serializeEvent('orders-consumer', batch))).toEqual(JSON.parse(JSON.stringify(event)));
  });

  it('serializes an empty batch', () => {
    const payload = serializeEvent('g', []);
    expect(parse(payload)).toEqual({ eventSource: 'rocketmq', consumerGroup: 'g', Records: [] });
    expect(payload.length).toBe(estimateEventOverheadBytes('g'));
    expect(estimateEventOverheadBytes('g')).toBe(59);
  });

  it('computes base64 lengths with padding', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map(base64Length)).toEqual([0, 4, 4, 4, 8, 8, 8]);
  });

  const anyString = fc.string({ unit: 'binary', maxLength: 20 });
  /** Characters that JSON escapes, or writes raw although they are unusual. */
  const awkward = fc.constantFrom('"', '\\', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u001f', '\u007f');
  const unusual = fc.constantFrom('\u2028', '\u2029', '\uFEFF', 'é', '✓', '😀', '\uFFFF');
  /** Text (as its UTF-8 bytes, mostly ASCII) or arbitrary bytes (mostly not UTF-8). */
  const anyBody = (maxLength: number) =>
    fc.oneof(
      fc
        .string({
          unit: fc.oneof(
            { weight: 30, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
            { weight: 1, arbitrary: awkward },
            { weight: 1, arbitrary: unusual },
          ),
          maxLength,
          size: 'max',
        })
        .map((text) => new Uint8Array(Buffer.from(text, 'utf8'))),
      fc.uint8Array({ maxLength, size: 'max' }),
    );
  const consumedWithBody = (maxBodyLength: number): fc.Arbitrary<ConsumedMessage> =>
    fc
      .record({
        msgId: anyString,
        offsetMsgId: anyString,
        topic: anyString,
        brokerName: anyString,
        queueId: fc.integer({ min: 0, max: 0x7fffffff }),
        queueOffset: fc.maxSafeNat(),
        tags: fc.option(anyString, { nil: undefined }),
        keys: fc.array(anyString, { maxLength: 3 }),
        body: anyBody(maxBodyLength),
        properties: fc.dictionary(
          fc.oneof(anyString, fc.constantFrom('UNIQ_KEY', 'TAGS', 'WAIT')),
          anyString,
          {
            maxKeys: 5,
          },
        ),
        bornTimestamp: fc.maxSafeNat(),
        storeTimestamp: fc.maxSafeNat(),
        bornHost: anyString,
        storeHost: anyString,
        reconsumeTimes: fc.nat(),
      })
      .map((f) => ({
        message: messageExt({ ...f, body: Buffer.from(f.body) }),
        queue: { topic: `%RETRY%${f.topic}`, brokerName: f.brokerName, queueId: f.queueId },
        topic: f.topic,
      }));
  const anyConsumed = consumedWithBody(64);

  it('serializes to exactly the JSON of buildEvent, for any messages', () => {
    fc.assert(
      fc.property(anyString, fc.array(anyConsumed, { maxLength: 5 }), (group, batch) => {
        const payload = serializeEvent(group, batch);
        expect(parse(payload)).toEqual(JSON.parse(JSON.stringify(buildEvent(group, batch))));
      }),
    );
  });

  it('estimates the payload size exactly (one separator per record)', () => {
    fc.assert(
      fc.property(anyString, fc.array(anyConsumed, { minLength: 1, maxLength: 5 }), (group, batch) => {
        const estimate = batch.reduce(
          (sum, m) => sum + estimateRecordBytes(m),
          estimateEventOverheadBytes(group),
        );
        expect(serializeEvent(group, batch).length).toBe(estimate - 1);
      }),
    );
  });

  it('chooses body encodings the same way in both, and serializes to JSON.stringify byte for byte', () => {
    fc.assert(
      fc.property(
        anyString,
        fc.array(consumedWithBody(600), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 1000 }),
        (group, batch, permille) => {
          // A limit around the sizes of the first record's event, so that both encodings occur.
          const first = batch[0] as ConsumedMessage;
          const envelopeBytes = estimateEventOverheadBytes(group);
          const base64Event = envelopeBytes + estimateRecordBytes(first) - 1;
          const textEvent = isUtf8(first.message.body)
            ? envelopeBytes + estimateRecordBytes(first, 'utf8') - 1
            : base64Event;
          const low = Math.min(base64Event, textEvent) - 30;
          const maxPayloadBytes = low + Math.round(((base64Event + 30 - low) * permille) / 1000);
          const options = { maxPayloadBytes };
          const payload = serializeEvent(group, batch, options);
          const event = buildEvent(group, batch, options);
          expect(payload.toString('utf8')).toBe(JSON.stringify(event));
          const choices = batch.map((m) => chooseBodyEncoding(m, maxPayloadBytes, envelopeBytes));
          expect(payload.length).toBe(choices.reduce((sum, c) => sum + c.recordBytes, envelopeBytes - 1));
          const parsed = parse(payload) as RocketMQEvent;
          parsed.Records.forEach((record, i) => {
            const choice = choices[i];
            expect(record.bodyEncoding).toBe(choice?.encoding === 'utf8' ? 'utf8' : undefined);
            expect(recordBody(record)).toEqual(batch[i]?.message.body);
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('estimates records with UTF-8 text bodies exactly, JSON escapes included', () => {
    fc.assert(
      fc.property(anyConsumed, (m) => {
        fc.pre(isUtf8(m.message.body));
        const nowhere = serializeEvent('g', [m], { maxPayloadBytes: 0 });
        const choice = chooseBodyEncoding(m, 0, estimateEventOverheadBytes('g'));
        expect(choice).toEqual({
          fits: false,
          encoding: 'base64',
          recordBytes: estimateRecordBytes(m),
          utf8RecordBytes: estimateRecordBytes(m, 'utf8'),
        });
        const textEvent = JSON.stringify({
          ...buildEvent('g', [m]),
          Records: [buildRecord(m, 'utf8')],
        });
        expect(Buffer.byteLength(textEvent, 'utf8')).toBe(
          estimateEventOverheadBytes('g') + estimateRecordBytes(m, 'utf8') - 1,
        );
        // A record that fits nowhere is written as base64, the default.
        expect(nowhere.length).toBe(estimateEventOverheadBytes('g') + estimateRecordBytes(m) - 1);
      }),
    );
  });

  it('writes JSON escapes as JSON.stringify does, and non-ASCII characters raw', () => {
    const controls = Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)).join('');
    const text = `${controls}"\\/\u007f é ✓ 😀 \u2028\u2029\uFEFF ${'x'.repeat(500)}`;
    const m = consumed({ body: Buffer.from(text, 'utf8') });
    const group = 'g';
    const envelopeBytes = estimateEventOverheadBytes(group);
    const base64Event = envelopeBytes + estimateRecordBytes(m) - 1;
    const payload = serializeEvent(group, [m], { maxPayloadBytes: base64Event - 1 });
    expect(payload.toString('utf8')).toBe(
      JSON.stringify(buildEvent(group, [m], { maxPayloadBytes: base64Event - 1 })),
    );
    expect(payload.toString('utf8')).toContain(`"bodyEncoding":"utf8","body":${JSON.stringify(text)}}`);
    expect(payload.toString('utf8')).toContain('\\u0000\\u0001');
    expect(payload.toString('utf8')).toContain('\\b\\t\\n\\u000b\\f\\r');
    expect(payload.length).toBe(envelopeBytes + estimateRecordBytes(m, 'utf8') - 1);
    expect((parse(payload) as RocketMQEvent).Records[0]?.body).toBe(text);
  });

  it('writes base64 unless the limit leaves no other choice', () => {
    const m = consumed({ body: Buffer.from('x'.repeat(300)) });
    const envelopeBytes = estimateEventOverheadBytes('g');
    const base64Event = envelopeBytes + estimateRecordBytes(m) - 1;
    const textEvent = envelopeBytes + estimateRecordBytes(m, 'utf8') - 1;
    expect(textEvent).toBeLessThan(base64Event);
    expect(chooseBodyEncoding(m, base64Event, envelopeBytes)).toMatchObject({
      fits: true,
      encoding: 'base64',
    });
    expect(chooseBodyEncoding(m, base64Event - 1, envelopeBytes)).toMatchObject({
      fits: true,
      encoding: 'utf8',
      recordBytes: estimateRecordBytes(m, 'utf8'),
    });
    expect(chooseBodyEncoding(m, textEvent, envelopeBytes)).toMatchObject({ fits: true, encoding: 'utf8' });
    expect(chooseBodyEncoding(m, textEvent - 1, envelopeBytes)).toMatchObject({ fits: false });
    expect(serializeEvent('g', [m], { maxPayloadBytes: textEvent }).length).toBe(textEvent);
    expect(serializeEvent('g', [m]).length).toBe(base64Event);
    expect(buildEvent('g', [m]).Records[0]).not.toHaveProperty('bodyEncoding');
  });

  it('never writes a binary body as text', () => {
    const m = consumed({ body: Buffer.from([0x61, 0xff, 0x62]) });
    const choice = chooseBodyEncoding(m, 10, estimateEventOverheadBytes('g'));
    expect(choice).toEqual({
      fits: false,
      encoding: 'base64',
      recordBytes: estimateRecordBytes(m),
      utf8RecordBytes: undefined,
    });
    expect(() => buildRecord(m, 'utf8')).toThrow(RocketMQError);
    expect(() => estimateRecordBytes(m, 'utf8')).toThrow(/not valid UTF-8/);
  });

  it('grows by 4/3 of the body plus a fixed part per record', () => {
    const small = estimateRecordBytes(consumed({ body: Buffer.alloc(0) }));
    const large = estimateRecordBytes(consumed({ body: Buffer.alloc(300_000) }));
    expect(large - small).toBe(400_000);
  });
});
