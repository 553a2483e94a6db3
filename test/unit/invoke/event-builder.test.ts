import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import {
  base64Length,
  buildEvent,
  buildRecord,
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
  const anyConsumed: fc.Arbitrary<ConsumedMessage> = fc
    .record({
      msgId: anyString,
      offsetMsgId: anyString,
      topic: anyString,
      brokerName: anyString,
      queueId: fc.integer({ min: 0, max: 0x7fffffff }),
      queueOffset: fc.maxSafeNat(),
      tags: fc.option(anyString, { nil: undefined }),
      keys: fc.array(anyString, { maxLength: 3 }),
      body: fc.uint8Array({ maxLength: 64 }),
      properties: fc.dictionary(fc.oneof(anyString, fc.constantFrom('UNIQ_KEY', 'TAGS', 'WAIT')), anyString, {
        maxKeys: 5,
      }),
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

  it('grows by 4/3 of the body plus a fixed part per record', () => {
    const small = estimateRecordBytes(consumed({ body: Buffer.alloc(0) }));
    const large = estimateRecordBytes(consumed({ body: Buffer.alloc(300_000) }));
    expect(large - small).toBe(400_000);
  });
});
