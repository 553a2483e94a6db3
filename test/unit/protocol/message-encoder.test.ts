import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompressionType } from '../../../src/protocol/compression.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import type { Message } from '../../../src/protocol/message.js';
import { decodeMessages } from '../../../src/protocol/message-decoder.js';
import {
  computeBodyCrc,
  encodeBatchBody,
  encodeStoredMessage,
  encodeStoredMessages,
  type StoredMessageInput,
} from '../../../src/protocol/message-encoder.js';
import { parseHostPort, parseIpAddress } from '../../../src/protocol/message-id.js';
import { decodeProperties } from '../../../src/protocol/message-properties.js';
import { MessageSysFlag } from '../../../src/protocol/message-sys-flag.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/messages/${name}`, import.meta.url));

describe('computeBodyCrc', () => {
  it('matches the test vector of docs/protocol.md: CRC32("hello") & 0x7FFFFFFF = 907060870', () => {
    expect(computeBodyCrc(Buffer.from('hello'))).toBe(907060870);
    expect(computeBodyCrc(Buffer.alloc(0))).toBe(0);
  });

  it('matches the BODYCRC Java wrote for a compressed body', () => {
    const record = fixture('v1-lz4.bin');
    const [message] = decodeMessages(record).messages;
    const storedBody = record.subarray(88, 88 + record.readInt32BE(84));
    expect(computeBodyCrc(storedBody)).toBe(message?.bodyCrc);
  });
});

describe('encodeBatchBody', () => {
  it('writes the same bytes as Java MessageDecoder.encodeMessages', () => {
    const java = fixture('batch-body.bin');
    const messages: Message[] = [];
    for (let position = 0, i = 0; position < java.length; i++) {
      const size = java.readInt32BE(position);
      const bodyLength = java.readInt32BE(position + 16);
      const propertiesText = java.toString('utf8', position + 22 + bodyLength, position + size);
      // Java iterates a HashMap; reuse its order so the bytes can be compared.
      messages.push({
        topic: 'TopicTest',
        body: Buffer.from(`inner ${i}`),
        flag: i,
        properties: decodeProperties(propertiesText),
      });
      position += size;
    }
    expect(messages).toHaveLength(3);
    expect(encodeBatchBody(messages).equals(java)).toBe(true);
  });

  it('rejects properties above 32767 bytes', () => {
    const big: Message = { topic: 't', body: Buffer.alloc(0), properties: { k: 'x'.repeat(40_000) } };
    expect(() => encodeBatchBody([big])).toThrow(ProtocolError);
  });
});

describe('encodeStoredMessage', () => {
  it('reproduces the record Java wrote, byte for byte', () => {
    const java = fixture('v1-ipv4.bin');
    const properties = decodeProperties(java.toString('utf8', java.length - 0x5d, java.length));
    const ours = encodeStoredMessage({
      topic: 'TopicTest',
      body: Buffer.from('hello'),
      properties,
      queueId: 3,
      flag: 7,
      queueOffset: 42,
      physicalOffset: 0x100000abc,
      bornTimestamp: 1700000000123,
      bornHost: '192.0.2.10:54321',
      storeTimestamp: 1700000000456,
      storeHost: '198.51.100.7:10911',
      reconsumeTimes: 2,
    });
    expect(ours.equals(java)).toBe(true);
  });

  it('chooses v2 for topics longer than 127 UTF-8 bytes and refuses them in v1', () => {
    const topic = '订'.repeat(50); // 150 bytes
    expect(encodeStoredMessage({ topic }).readInt32BE(4)).toBe(0xdaa320ab | 0);
    expect(encodeStoredMessage({ topic: 'short' }).readInt32BE(4)).toBe(0xdaa320a7 | 0);
    expect(() => encodeStoredMessage({ topic, magic: 'v1' })).toThrow(ProtocolError);
  });

  it('sets the IPv6 host bits from the host strings', () => {
    const record = encodeStoredMessage({ topic: 't', bornHost: '[::1]:1', storeHost: '10.0.0.1:2' });
    expect(record.readInt32BE(36)).toBe(MessageSysFlag.BORNHOST_V6);
  });

  it('refuses to compress with zstd (no encoder here) unless given the stored bytes', () => {
    expect(() =>
      encodeStoredMessage({ topic: 't', body: Buffer.from('x'), compression: CompressionType.ZSTD }),
    ).toThrow(ProtocolError);
    const zstd = fixture('java-zstd.bin');
    const [message] = decodeMessages(
      encodeStoredMessage({ topic: 't', storedBody: zstd, compression: CompressionType.ZSTD }),
    ).messages;
    expect(message?.body.toString()).toMatch(/^RocketMQ compressed body line 0 /);
  });

  it('rejects unsafe integers', () => {
    expect(() => encodeStoredMessage({ topic: 't', queueOffset: 2 ** 60 })).toThrow(ProtocolError);
  });
});

const safeText = (maxLength: number) =>
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength })
    .filter((s) => !s.includes('\u0001') && !s.includes('\u0002'));
const hostArbitrary = fc
  .tuple(fc.oneof(fc.ipV4(), fc.ipV6()), fc.integer({ min: 0, max: 65535 }))
  .map(([ip, port]) => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`));
const bodyArbitrary = fc.oneof(
  { weight: 8, arbitrary: fc.uint8Array({ maxLength: 2000 }) },
  { weight: 1, arbitrary: fc.constant(new Uint8Array(0)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }).map((b) => new Uint8Array(300_000).fill(b)) },
);
const inputArbitrary: fc.Arbitrary<StoredMessageInput> = fc.record(
  {
    topic: fc.string({ unit: 'grapheme', maxLength: 200 }),
    body: bodyArbitrary,
    compression: fc.constantFrom(undefined, CompressionType.ZLIB, CompressionType.LZ4),
    properties: fc.dictionary(safeText(12), safeText(40), { maxKeys: 8 }),
    queueId: fc.integer({ min: 0, max: 1023 }),
    flag: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    queueOffset: fc.maxSafeNat(),
    physicalOffset: fc.maxSafeNat(),
    sysFlag: fc.constantFrom(0, MessageSysFlag.MULTI_TAGS, MessageSysFlag.TRANSACTION_COMMIT_TYPE),
    bornTimestamp: fc.maxSafeInteger(),
    bornHost: hostArbitrary,
    storeTimestamp: fc.maxSafeInteger(),
    storeHost: hostArbitrary,
    reconsumeTimes: fc.integer({ min: 0, max: 100 }),
    preparedTransactionOffset: fc.maxSafeNat(),
    magic: fc.constantFrom(undefined, 'v2' as const),
  },
  { requiredKeys: ['topic'] },
);

describe('encodeStoredMessage -> decodeMessages round trip', () => {
  it('keeps every field of arbitrary messages', () => {
    fc.assert(
      fc.property(fc.array(inputArbitrary, { minLength: 1, maxLength: 3 }), (inputs) => {
        const { messages, error } = decodeMessages(encodeStoredMessages(inputs));
        expect(error).toBeUndefined();
        expect(messages).toHaveLength(inputs.length);
        inputs.forEach((input, i) => {
          const m = messages[i];
          if (m === undefined) throw new Error('missing message');
          expect(m.topic).toBe(input.topic);
          expect(Buffer.from(input.body ?? []).equals(m.body)).toBe(true);
          expect(m.properties).toEqual({ ...input.properties });
          expect(m.queueId).toBe(input.queueId ?? 0);
          expect(m.flag).toBe(input.flag ?? 0);
          expect(m.queueOffset).toBe(input.queueOffset ?? 0);
          expect(m.physicalOffset).toBe(input.physicalOffset ?? 0);
          expect(m.bornTimestamp).toBe(input.bornTimestamp ?? 0);
          expect(m.storeTimestamp).toBe(input.storeTimestamp ?? 0);
          expect(m.reconsumeTimes).toBe(input.reconsumeTimes ?? 0);
          expect(m.preparedTransactionOffset).toBe(input.preparedTransactionOffset ?? 0);
          expect(m.sysFlag & 0xf).toBe((input.sysFlag ?? 0) & 0xf);
          for (const [decoded, given] of [
            [m.bornHost, input.bornHost ?? '127.0.0.1:0'],
            [m.storeHost, input.storeHost ?? '127.0.0.1:10911'],
          ] as const) {
            const a = parseHostPort(decoded);
            const b = parseHostPort(given);
            expect(a.port).toBe(b.port);
            expect(Buffer.from(a.ip).equals(Buffer.from(b.ip))).toBe(true);
          }
          expect(m.msgId).toBe(input.properties?.UNIQ_KEY ?? m.offsetMsgId);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('renders IPv6 hosts in RFC 5952 form', () => {
    const [m] = decodeMessages(
      encodeStoredMessage({
        topic: 't',
        bornHost: '[2001:0DB8:0:0:1:0:0:1]:9',
        storeHost: '[::ffff:10.0.0.1]:10911',
      }),
    ).messages;
    expect(m?.bornHost).toBe('[2001:db8::1:0:0:1]:9');
    expect(m?.storeHost).toBe('[::ffff:a00:1]:10911');
    expect(parseIpAddress('::ffff:a00:1')).toEqual(parseIpAddress('::ffff:10.0.0.1'));
  });
});
