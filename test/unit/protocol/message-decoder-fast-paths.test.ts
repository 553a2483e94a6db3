/**
 * The decoder's fast paths: int64 fields read as two 32-bit words, topics and hosts remembered from the
 * previous record, property keys interned and property objects built in V8's fast mode. Each must give
 * exactly what the plain decoding gives, whatever the order of the records.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toPlainMessage } from '../../../src/protocol/decoded-message.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import { decodeMessages, MessageDecodeError } from '../../../src/protocol/message-decoder.js';
import { encodeStoredMessages } from '../../../src/protocol/message-encoder.js';
import { decodeProperties } from '../../../src/protocol/message-properties.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/messages/${name}`, import.meta.url));

const S1 = '\u0001';
const S2 = '\u0002';
/** Record layout of v1 IPv4 records (see message-decoder.ts). */
const QUEUE_OFFSET_AT = 20;
const PHYSICAL_OFFSET_AT = 28;
const BORN_TIMESTAMP_AT = 40;
const BORN_HOST_AT = 48;
const STORE_HOST_AT = 64;
const PREPARED_TRANSACTION_OFFSET_AT = 76;

function decodeOne(record: Buffer): MessageExt {
  const { messages, error } = decodeMessages(record);
  expect(error).toBeUndefined();
  const [message] = messages;
  if (message === undefined || messages.length !== 1) throw new Error('expected exactly one message');
  return message;
}

/** The v1 IPv4 fixture with its topic 'TopicTest' replaced by one of the same length. */
function withTopic(record: Buffer, topic: string): Buffer {
  const copy = Buffer.from(record);
  const at = copy.indexOf('TopicTest');
  expect(Buffer.byteLength(topic)).toBe('TopicTest'.length);
  copy.write(topic, at, 'utf8');
  return copy;
}

function withHost(record: Buffer, at: number, ip: readonly number[], port: number): Buffer {
  const copy = Buffer.from(record);
  copy.set(ip, at);
  copy.writeInt32BE(port, at + 4);
  return copy;
}

function withLong(record: Buffer, at: number, value: bigint): Buffer {
  const copy = Buffer.from(record);
  copy.writeBigInt64BE(value, at);
  return copy;
}

/** The properties rules as first written (Object.create(null), no interning): the reference. */
function referenceProperties(text: string): Record<string, string> {
  const properties: Record<string, string> = Object.create(null);
  let index = 0;
  while (index < text.length) {
    let end = text.indexOf(S2, index);
    if (end < 0) end = text.length;
    const separator = text.indexOf(S1, index);
    if (end - index >= 3 && separator > index && separator < end - 1) {
      const key = text.slice(index, separator);
      if (!Object.hasOwn(properties, key)) properties[key] = text.slice(separator + 1, end);
    }
    index = end + 1;
  }
  return properties;
}

describe('int64 fields read as two 32-bit words', () => {
  const base = fixture('v1-ipv4.bin');

  it('decodes values around the 32-bit and 2^53 borders exactly', () => {
    const cases: bigint[] = [0n, 1n, 0x7fffffffn, 0x80000000n, 0xffffffffn, 0x100000000n, 2n ** 53n - 1n];
    for (const value of cases) {
      expect(decodeOne(withLong(base, QUEUE_OFFSET_AT, value)).queueOffset).toBe(Number(value));
      expect(decodeOne(withLong(base, BORN_TIMESTAMP_AT, value)).bornTimestamp).toBe(Number(value));
    }
  });

  it('decodes negative values (two-complement high word)', () => {
    for (const value of [-1n, -2n, -0x80000000n, -0x100000001n, -(2n ** 53n) + 1n]) {
      const m = decodeOne(withLong(base, PREPARED_TRANSACTION_OFFSET_AT, value));
      expect(m.preparedTransactionOffset).toBe(Number(value));
    }
  });

  it('rejects values beyond 2^53 either way, naming the exact value', () => {
    for (const value of [2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 53n), -(2n ** 63n)]) {
      const { messages, error } = decodeMessages(withLong(base, PHYSICAL_OFFSET_AT, value));
      expect(messages).toHaveLength(0);
      expect(error).toBeInstanceOf(MessageDecodeError);
      expect(error?.message).toContain(`PHYSICALOFFSET ${value} is beyond 2^53`);
    }
  });

  it('agrees with BigInt decoding on any int64', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (value) => {
        const { messages, error } = decodeMessages(withLong(base, BORN_TIMESTAMP_AT, value));
        if (value >= -(2n ** 53n) + 1n && value <= 2n ** 53n - 1n) {
          expect(messages[0]?.bornTimestamp).toBe(Number(value));
        } else {
          expect(error?.message).toContain(`BORNTIMESTAMP ${value}`);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('topics and hosts repeated from the previous record', () => {
  const ipv4 = fixture('v1-ipv4.bin');
  const variants: Buffer[] = [
    ipv4,
    withTopic(ipv4, 'TopicTesu'),
    withTopic(ipv4, 'Topic订x'),
    withHost(ipv4, BORN_HOST_AT, [10, 0, 0, 1], 54321),
    withHost(ipv4, BORN_HOST_AT, [192, 0, 2, 10], 54322),
    withHost(ipv4, STORE_HOST_AT, [198, 51, 100, 8], 10911),
    withHost(ipv4, STORE_HOST_AT, [198, 51, 100, 7], 10912),
    fixture('v1-ipv6.bin'),
    fixture('v1-inner-batch.bin'),
  ];

  it('decode each topic of a run of same-length topics that differ in any byte', () => {
    // Topics are compared 4 bytes at a time, then byte by byte: differences in either part must show.
    const topic = fc.stringMatching(/^[A-Za-z0-9_%-]{1,11}$/);
    fc.assert(
      fc.property(fc.array(topic, { minLength: 1, maxLength: 12 }), fc.nat(3), (topics, pick) => {
        const length = topics[pick % topics.length]?.length ?? 1;
        const sameLength = topics.map((name) => name.padEnd(length, 'x').slice(0, length));
        const { messages, error } = decodeMessages(
          encodeStoredMessages(sameLength.map((name) => ({ topic: name }))),
        );
        expect(error).toBeUndefined();
        expect(messages.map((m) => m.topic)).toEqual(sameLength);
      }),
      { numRuns: 500 },
    );
  });

  it('decode a changed topic or host even when only one byte differs', () => {
    const body = Buffer.concat(variants);
    const { messages, error } = decodeMessages(body);
    expect(error).toBeUndefined();
    expect(messages.slice(0, 8).map((m) => m.topic)).toEqual([
      'TopicTest',
      'TopicTesu',
      'Topic订x',
      'TopicTest',
      'TopicTest',
      'TopicTest',
      'TopicTest',
      'TopicTest',
    ]);
    expect(messages.slice(0, 8).map((m) => m.bornHost)).toEqual([
      '192.0.2.10:54321',
      '192.0.2.10:54321',
      '192.0.2.10:54321',
      '10.0.0.1:54321',
      '192.0.2.10:54322',
      '192.0.2.10:54321',
      '192.0.2.10:54321',
      '[2001:db8::1]:54321',
    ]);
    expect(messages.slice(0, 8).map((m) => m.storeHost)).toEqual([
      '198.51.100.7:10911',
      '198.51.100.7:10911',
      '198.51.100.7:10911',
      '198.51.100.7:10911',
      '198.51.100.7:10911',
      '198.51.100.8:10911',
      '198.51.100.7:10912',
      '[2001:db8::2:7]:10911',
    ]);
  });

  it('give every record what it decodes to alone, in any order', () => {
    const alone = variants.map((record) => decodeMessages(record).messages);
    fc.assert(
      fc.property(fc.array(fc.nat(variants.length - 1), { minLength: 1, maxLength: 12 }), (picks) => {
        const { messages, error } = decodeMessages(Buffer.concat(picks.map((i) => variants[i] as Buffer)));
        expect(error).toBeUndefined();
        const expected = picks.flatMap((i) => alone[i] ?? []);
        expect(messages.map(comparable)).toEqual(expected.map(comparable));
      }),
      { numRuns: 200 },
    );
  });

  it('do not keep the pull buffer: reusing it for other bytes decodes the new bytes', () => {
    const buffer = Buffer.from(ipv4);
    expect(decodeOne(buffer).topic).toBe('TopicTest');
    buffer.write('TopicTesv', buffer.indexOf('TopicTest'), 'utf8');
    buffer.set([203, 0, 113, 5], STORE_HOST_AT);
    const m = decodeOne(buffer);
    expect(m.topic).toBe('TopicTesv');
    expect(m.storeHost).toBe('203.0.113.5:10911');
    expect(m.offsetMsgId.startsWith('CB007105')).toBe(true);
  });
});

describe('property objects', () => {
  it('keep a null prototype on decoded messages', () => {
    const m = decodeOne(fixture('v1-ipv4.bin'));
    expect(Object.getPrototypeOf(m.properties)).toBeNull();
    expect(Object.keys(m.properties)).toEqual(['color', 'KEYS', 'UNIQ_KEY', 'WAIT', 'TAGS']);
  });

  it('are separate objects per message (changing one leaves the others)', () => {
    const { messages } = decodeMessages(Buffer.concat([fixture('v1-ipv4.bin'), fixture('v1-ipv4.bin')]));
    const [first, second] = messages;
    if (first === undefined || second === undefined) throw new Error('expected two messages');
    first.properties.TAGS = 'changed';
    expect(second.properties.TAGS).toBe('TagA');
  });

  it('match the reference rules on arbitrary text, keys such as __proto__ and 0 included', () => {
    const unit = fc.constantFrom('a', 'b', 'K', '0', '1', S1, S2, 'é', '🚀', '__proto__', 'constructor');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), (units) => {
        const text = units.join('');
        const decoded = decodeProperties(text);
        const expected = referenceProperties(text);
        expect(Object.getPrototypeOf(decoded)).toBeNull();
        expect(Object.entries(decoded)).toEqual(Object.entries(expected));
      }),
      { numRuns: 2000 },
    );
  });

  it('keep the first of duplicate keys however often the key was seen before', () => {
    for (let i = 0; i < 3; i++) {
      expect(decodeProperties(`UNIQ_KEY${S1}own-${i}${S2}WAIT${S1}true${S2}UNIQ_KEY${S1}batch${S2}`)).toEqual(
        {
          UNIQ_KEY: `own-${i}`,
          WAIT: 'true',
        },
      );
    }
  });
});

/** The fields of a message as plain data, the body as text. */
function comparable(message: MessageExt): Record<string, unknown> {
  return {
    ...toPlainMessage(message),
    body: message.body.toString('latin1'),
    properties: { ...message.properties },
  };
}
