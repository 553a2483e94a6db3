import { describe, expect, it } from 'vitest';
import {
  ConsumeReturnType,
  type EncodedTraceRecord,
  encodeSubAfter,
  encodeSubBefore,
  MAX_TRACE_BODY_BYTES,
  MAX_TRACE_RECORDS,
  packTraceMessages,
  TRACE_PACK_LIMITS,
} from '../../../src/protocol/message-trace.js';

const F = '\u0001';
const E = '\u0002';

describe('encodeSubBefore', () => {
  it('writes the 8 fields Apache clients write, separated by U+0001 and ended by U+0002', () => {
    const record = encodeSubBefore({
      beginMs: 1_700_000_000_123,
      regionId: 'DefaultRegion',
      group: 'orders-group',
      requestId: 'REQ1',
      msgId: 'AC110001000078308DB1743C7BE00000',
      reconsumeTimes: 2,
      keys: 'order-1 order-2',
    });
    expect(record.text).toBe(
      `SubBefore${F}1700000000123${F}DefaultRegion${F}orders-group${F}REQ1${F}AC110001000078308DB1743C7BE00000${F}2${F}order-1 order-2${E}`,
    );
    expect(record.text.slice(0, -1).split(F)).toHaveLength(8);
    expect(record.bytes).toBe(Buffer.byteLength(record.text));
    expect(record.keys).toEqual(['AC110001000078308DB1743C7BE00000', 'order-1', 'order-2']);
  });

  it('writes `null` for a message without keys, as Java prints a null', () => {
    const record = encodeSubBefore({
      beginMs: 1,
      regionId: 'r',
      group: 'g',
      requestId: 'R',
      msgId: 'M',
      reconsumeTimes: 0,
      keys: undefined,
    });
    expect(record.text).toBe(`SubBefore${F}1${F}r${F}g${F}R${F}M${F}0${F}null${E}`);
    expect(record.keys).toEqual(['M']);
  });
});

describe('encodeSubAfter', () => {
  it('writes 9 fields: request id, msg id, cost, success, keys, return type, end time, group', () => {
    const record = encodeSubAfter({
      requestId: 'REQ1',
      msgId: 'M1',
      costMs: 12.6,
      success: false,
      keys: 'k1',
      returnType: ConsumeReturnType.FAILED,
      endMs: 1_700_000_000_999,
      group: 'orders-group',
    });
    expect(record.text).toBe(
      `SubAfter${F}REQ1${F}M1${F}13${F}false${F}k1${F}4${F}1700000000999${F}orders-group${E}`,
    );
    expect(record.text.slice(0, -1).split(F)).toHaveLength(9);
  });

  it("numbers the return types as Java's ConsumeReturnType ordinals", () => {
    expect(ConsumeReturnType).toEqual({ SUCCESS: 0, TIME_OUT: 1, EXCEPTION: 2, RETURNNULL: 3, FAILED: 4 });
  });

  it('counts UTF-8 bytes, not characters', () => {
    const record = encodeSubAfter({
      requestId: 'R',
      msgId: 'M',
      costMs: 0,
      success: true,
      keys: 'clé',
      returnType: 0,
      endMs: 0,
      group: 'g',
    });
    expect(record.bytes).toBe(record.text.length + 1);
  });
});

function record(msgId: string, bytes = 50, keys: string[] = []): EncodedTraceRecord {
  const text = `${'x'.repeat(bytes - 1)}${E}`;
  const all = [msgId, ...keys];
  return { text, bytes, keys: all, keysBytes: all.reduce((n, key) => n + Buffer.byteLength(key) + 1, 0) };
}

describe('packTraceMessages', () => {
  it('puts at most 20 records in one trace message, in order', () => {
    const records = Array.from({ length: 45 }, (_, i) => record(`m${i}`));
    const { messages, oversized } = packTraceMessages(records);
    expect(MAX_TRACE_RECORDS).toBe(20);
    expect(messages.map((m) => m.records)).toEqual([20, 20, 5]);
    expect(oversized).toBe(0);
    expect(messages[2]?.keys).toBe('m40 m41 m42 m43 m44');
    expect(messages[0]?.body.toString()).toBe(
      records
        .slice(0, 20)
        .map((r) => r.text)
        .join(''),
    );
  });

  it('keeps each body within 128,000 bytes', () => {
    const records = Array.from({ length: 6 }, (_, i) => record(`m${i}`, 30_000));
    const { messages } = packTraceMessages(records);
    expect(MAX_TRACE_BODY_BYTES).toBe(128_000);
    expect(messages.map((m) => m.body.length)).toEqual([120_000, 60_000]);
    expect(messages.every((m) => m.body.length <= MAX_TRACE_BODY_BYTES)).toBe(true);
  });

  it('fills a body to exactly the limit and no further', () => {
    const { messages } = packTraceMessages([record('a', 64_000), record('b', 64_000), record('c', 1)]);
    expect(messages.map((m) => m.body.length)).toEqual([128_000, 1]);
  });

  it('lists every message id and key once, space-separated, in KEYS', () => {
    const { messages } = packTraceMessages([
      record('M1', 10, ['order-1']),
      record('M1', 10, ['order-1']),
      record('M2', 10, ['order-2', 'order-3']),
    ]);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.keys).toBe('M1 order-1 M2 order-2 order-3');
  });

  it('starts a new message when KEYS would pass its limit', () => {
    const key = 'k'.repeat(99);
    const records = Array.from({ length: 5 }, (_, i) => record(`m${i}`, 10, [`${key}${i}`]));
    const { messages } = packTraceMessages(records, { ...TRACE_PACK_LIMITS, maxKeysBytes: 250 });
    // m0 + key0 = 3 + 101 bytes; two messages' worth fit 250 bytes.
    expect(messages.map((m) => m.records)).toEqual([2, 2, 1]);
    for (const message of messages) expect(Buffer.byteLength(message.keys) + 1).toBeLessThanOrEqual(250);
  });

  it('drops and counts a record larger than a whole trace message', () => {
    const { messages, oversized } = packTraceMessages([record('a'), record('b', 128_001), record('c')]);
    expect(oversized).toBe(1);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.keys).toBe('a c');
  });

  it('makes no message of no records', () => {
    expect(packTraceMessages([])).toEqual({ messages: [], oversized: 0 });
  });
});
