import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompressionType } from '../../../src/protocol/compression.js';
import {
  bodyLengthOf,
  findProperty,
  findPropertyInBytes,
  offsetMessageId,
  propertiesHeadOf,
  propertyOf,
  storedRecordOf,
  toPlainMessage,
} from '../../../src/protocol/decoded-message.js';
import { MessageConst, type MessageExt } from '../../../src/protocol/message.js';
import { decodeMessages } from '../../../src/protocol/message-decoder.js';
import { encodeStoredMessages } from '../../../src/protocol/message-encoder.js';

function decodedOne(): MessageExt {
  const { messages } = decodeMessages(
    encodeStoredMessages([
      {
        topic: 'T',
        body: Buffer.from('hello'),
        properties: { [MessageConst.UNIQ_KEY]: 'ID1', [MessageConst.TAGS]: 'a', color: 'blue' },
      },
    ]),
  );
  const message = messages[0];
  if (message === undefined) throw new Error('no message decoded');
  return message;
}

describe('DecodedMessage', () => {
  it('reads its head from the properties text until the properties object is built, then not', () => {
    const message = decodedOne();
    expect(propertyOf(message, 'color')).toBe('blue');
    const head = propertiesHeadOf(message);
    expect(head, 'a single lookup does not build the object').toMatchObject({
      uniqKey: 'ID1',
      tags: 'a',
      keys: undefined,
      userKeys: ['color'],
      userValues: ['blue'],
    });
    expect([message.msgId, message.tags, message.keys]).toEqual(['ID1', 'a', []]);
    message.properties.color = 'red';
    expect(propertiesHeadOf(message), 'the object exists (and may differ from the text)').toBeUndefined();
    expect(propertyOf(message, 'color')).toBe('red');
  });

  it('keeps what was set or read before its head is read', () => {
    const message = decodedOne();
    message.msgId = 'SET';
    message.tags = undefined;
    expect(message.keys).toEqual([]);
    message.keys.push('kept');
    expect(propertiesHeadOf(message)?.uniqKey).toBe('ID1');
    expect([message.msgId, message.tags, message.keys]).toEqual(['SET', undefined, ['kept']]);
  });

  it('has no properties head for a plain message', () => {
    expect(propertiesHeadOf(toPlainMessage(decodedOne()))).toBeUndefined();
  });

  it('knows its body length before the body view exists, and views the pull buffer once read', () => {
    const bodies = [
      Buffer.from('first body'),
      Buffer.alloc(0),
      Buffer.from('third, the longest body of all'),
    ];
    const pull = encodeStoredMessages(bodies.map((body) => ({ topic: 'T', body })));
    const { messages, error } = decodeMessages(pull);
    expect(error).toBeUndefined();
    expect(messages.map(bodyLengthOf)).toEqual(bodies.map((b) => b.length));
    for (const [i, message] of messages.entries()) {
      const body = message.body;
      expect(body.equals(bodies[i] as Buffer)).toBe(true);
      expect(message.body, 'made once, then kept').toBe(body);
      expect(body.buffer, 'a view of the pull buffer, not a copy').toBe(pull.buffer);
      expect(bodyLengthOf(message)).toBe(body.length);
    }
  });

  it('takes a new body through its setter, and its length with it', () => {
    const message = decodedOne();
    message.body = Buffer.from('a longer replacement body');
    expect(message.body.toString()).toBe('a longer replacement body');
    expect(bodyLengthOf(message)).toBe(25);
    expect(toPlainMessage(message).body.toString()).toBe('a longer replacement body');
  });

  it('gives a plain message its body length too', () => {
    expect(bodyLengthOf(toPlainMessage(decodedOne()))).toBe(5);
  });

  it('spreading keeps only the eagerly read fields; toPlainMessage keeps every one', () => {
    const message = decodedOne();
    expect({ ...message }.msgId).toBeUndefined();
    expect({ ...message }.body, 'the body is lazy too').toBeUndefined();
    expect(toPlainMessage(message).body.toString()).toBe('hello');
    expect({ ...toPlainMessage(message) }).toMatchObject({ msgId: 'ID1', tags: 'a', topic: 'T' });
  });
});

describe('storedRecordOf', () => {
  it('gives each record of a pull body as stored, and decoding it again gives the same message', () => {
    const body = encodeStoredMessages(
      ['a', 'bb', 'ccc'].map((text, i) => ({
        topic: 'T',
        queueOffset: 10 + i,
        body: Buffer.from(text),
        properties: { [MessageConst.UNIQ_KEY]: `ID${i}`, color: text },
      })),
    );
    const { messages } = decodeMessages(body);
    const records = messages.map((message) => storedRecordOf(message));
    expect(Buffer.concat(records as Buffer[]).equals(body), 'the records, in order, are the pull body').toBe(
      true,
    );
    for (const [i, record] of records.entries()) {
      const again = decodeMessages(Buffer.from(record as Buffer)).messages;
      expect(again.map(toPlainMessage)).toEqual([toPlainMessage(messages[i] as MessageExt)]);
    }
  });

  it('is undefined for a message that keeps no record', () => {
    expect(storedRecordOf(toPlainMessage(decodedOne()))).toBeUndefined();
    const inner = decodeMessages(
      readFileSync(new URL('../../fixtures/messages/v1-inner-batch.bin', import.meta.url)),
    ).messages;
    expect(inner.length, 'an inner batch unwraps into several messages').toBeGreaterThan(1);
    for (const entry of inner) expect(storedRecordOf(entry)).toBeUndefined();
    const compressed = decodeMessages(
      encodeStoredMessages([{ topic: 'T', body: Buffer.alloc(64, 1), compression: CompressionType.ZLIB }]),
    ).messages[0];
    expect(compressed?.body.equals(Buffer.alloc(64, 1))).toBe(true);
    expect(storedRecordOf(compressed as MessageExt)).toBeUndefined();
  });
});

describe('offsetMessageId', () => {
  /** The id by its definition: upper-case hex of the store host's bytes, then of PHYSICALOFFSET's. */
  function byDefinition(record: Buffer, host: number, hostBytes: number, offset: number): string {
    return (
      record.toString('hex', host, host + hostBytes) + record.toString('hex', offset, offset + 8)
    ).toUpperCase();
  }

  it('is the upper-case hex of the host and offset bytes, for IPv4 and IPv6 hosts and any bytes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 64, maxLength: 64 }),
        fc.constantFrom(8, 20),
        fc.nat(20),
        fc.nat(20),
        (bytes, hostBytes, host, offset) => {
          const record = Buffer.from(bytes);
          expect(offsetMessageId(record, host, hostBytes, offset)).toBe(
            byDefinition(record, host, hostBytes, offset),
          );
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('writes every hex digit in upper case', () => {
    const record = Buffer.from('0123456789abcdeffedcba9876543210', 'hex');
    expect(offsetMessageId(record, 0, 8, 8)).toBe('0123456789ABCDEFFEDCBA9876543210');
  });
});

describe('findPropertyInBytes', () => {
  const KEYS = ['UNIQ_KEY', 'TAGS', 'K', 'KK', 'UNIQ'];
  // Pieces from keys, values with separators, non-ASCII and empty parts, and malformed fragments.
  const UNIT = fc.constantFrom(...KEYS, '\u0001', '\u0002', 'v', 'é', '🚀', 'x y', '');
  const TEXT = fc.array(UNIT, { maxLength: 14 }).map((units) => units.join(''));

  it('finds what findProperty finds in the decoded text, for any text and key', () => {
    fc.assert(
      fc.property(TEXT, fc.constantFrom(...KEYS), fc.nat(3), (text, key, pad) => {
        // The properties sit inside a larger buffer, as in a pull body: bytes around them must not count.
        const bytes = Buffer.concat([
          Buffer.alloc(pad, 0x02),
          Buffer.from(text),
          Buffer.from('\u0001K\u0001z'),
        ]);
        const end = pad + Buffer.byteLength(text);
        expect(findPropertyInBytes(bytes, pad, end, key)).toBe(findProperty(text, key));
      }),
      { numRuns: 3000 },
    );
  });

  it('with searchEnd, finds the value exactly when its piece starts before searchEnd, else nothing', () => {
    fc.assert(
      fc.property(TEXT, fc.constantFrom(...KEYS), fc.nat(3), fc.nat(60), (text, key, pad, cut) => {
        const bytes = Buffer.concat([Buffer.alloc(pad, 0x02), Buffer.from(text), Buffer.from('\u0001K')]);
        const end = pad + Buffer.byteLength(text);
        // The piece that findProperty takes, and where it starts in the bytes.
        const pieces = text.split('\u0002');
        const winner = pieces.findIndex(
          (piece) => piece.startsWith(`${key}\u0001`) && piece.length > key.length + 1,
        );
        const winnerStart = Buffer.byteLength(
          pieces
            .slice(0, winner)
            .map((piece) => `${piece}\u0002`)
            .join(''),
        );
        const searchEnd = pad + cut;
        const expected = winner >= 0 && winnerStart < cut ? findProperty(text, key) : undefined;
        expect(findPropertyInBytes(bytes, pad, end, key, searchEnd)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the first piece with a value, skipping empty ones and longer keys', () => {
    const text = 'UNIQ_KEYS\u0001a\u0002UNIQ_KEY\u0001\u0002UNIQ_KEY\u0001b\u0001c\u0002UNIQ_KEY\u0001d';
    expect(findPropertyInBytes(Buffer.from(text), 0, Buffer.byteLength(text), 'UNIQ_KEY')).toBe('b\u0001c');
    expect(findProperty(text, 'UNIQ_KEY')).toBe('b\u0001c');
  });
});
