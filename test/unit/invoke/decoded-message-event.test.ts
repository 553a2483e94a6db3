import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import {
  buildEvent,
  estimateEventOverheadBytes,
  layoutRecord,
  serializeEvent,
  serializeLayouts,
} from '../../../src/invoke/event-builder.js';
import { DecodedMessage, propertiesHeadOf, toPlainMessage } from '../../../src/protocol/decoded-message.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import { decodeMessages } from '../../../src/protocol/message-decoder.js';
import { encodeStoredMessages } from '../../../src/protocol/message-encoder.js';

const queue = { topic: 'orders', brokerName: 'broker-a', queueId: 2 };

function consumedOf(message: MessageExt): ConsumedMessage {
  return { message, queue, topic: queue.topic };
}

/** A decoded message holding `text` as its properties text, as the decoder makes one without a record. */
function decodedWithText(text: string, body: Buffer, queueOffset: number): DecodedMessage {
  const message = new DecodedMessage(body, undefined, 0, 0, 0, text);
  message.topic = queue.topic;
  message.queueId = queue.queueId;
  message.queueOffset = queueOffset;
  message.bornTimestamp = 1_700_000_000_000;
  message.storeTimestamp = 1_700_000_000_001;
  return message;
}

/** Properties texts from separators, escapes, non-ASCII characters and system and user keys. */
const anyText = fc
  .array(
    fc.constantFrom(
      '\u0001',
      '\u0002',
      '\u0002',
      'TAGS\u0001',
      'KEYS\u0001',
      'UNIQ_KEY\u0001',
      'k',
      '7',
      '"',
      '\\',
      '\n',
      '\u0000',
      'é',
      '😀',
      '__proto__',
      ' ',
    ),
    { maxLength: 20 },
  )
  .map((tokens) => tokens.join(''));
const anyBody = fc.oneof(
  fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom('plain', 'q"\\\n', 'caf\u00e9 😀').map((text) => Buffer.from(text)),
);

describe('events of decoded messages (properties written from the properties text)', () => {
  it('serialize to the event of the same messages with their properties objects, sizes as planned', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(anyText, anyBody), { minLength: 1, maxLength: 5 }),
        fc.option(fc.integer({ min: 0, max: 600 }), { nil: undefined }),
        (entries, maxPayloadBytes) => {
          const decoded = entries.map(([text, body], i) => consumedOf(decodedWithText(text, body, i)));
          const envelopeBytes = estimateEventOverheadBytes('group');
          // serializeLayouts throws when the bytes it writes differ from the sizes layoutRecord planned.
          const layouts = decoded.map((m) => layoutRecord(m, envelopeBytes, maxPayloadBytes));
          const payload = serializeLayouts('group', layouts);
          for (const m of decoded) expect(propertiesHeadOf(m.message)).toBeDefined();

          // The same messages with their properties objects built: the object path of the serializer.
          const plain = entries.map(([text, body], i) =>
            consumedOf(toPlainMessage(decodedWithText(text, body, i))),
          );
          expect(JSON.parse(payload.toString('utf8'))).toStrictEqual(
            JSON.parse(JSON.stringify(buildEvent('group', plain, { maxPayloadBytes }))),
          );
          expect(payload.length).toBe(serializeEvent('group', plain, { maxPayloadBytes }).length);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('serialize a PULL body decoded from the stored format, user properties and escapes included', () => {
    const body = encodeStoredMessages([
      {
        topic: 'orders',
        queueId: 2,
        queueOffset: 7,
        body: Buffer.from('hello'),
        properties: {
          TAGS: 'created',
          UNIQ_KEY: 'AC110001',
          'q"é': 'line\nfeed 😀',
          '10': 'ten',
          WAIT: 'true',
        },
      },
      {
        topic: 'orders',
        queueId: 2,
        queueOffset: 8,
        body: Buffer.from([0xff, 0x00]),
        properties: { TAGS: 'created', UNIQ_KEY: 'AC110002', 'q"é': 'x', '10': 'y', WAIT: 'true' },
      },
    ]);
    const decoded = decodeMessages(body).messages.map(consumedOf);
    const payload = serializeEvent('group', decoded);
    expect(decoded.every((m) => propertiesHeadOf(m.message) !== undefined)).toBe(true);
    const event = JSON.parse(payload.toString('utf8')) as { Records: { properties: unknown }[] };
    expect(event.Records.map((r) => r.properties)).toStrictEqual([
      { 'q"é': 'line\nfeed 😀', '10': 'ten' },
      { 'q"é': 'x', '10': 'y' },
    ]);
    const plain = decodeMessages(body).messages.map((m) => consumedOf(toPlainMessage(m)));
    // Equal once parsed: the object lists the integer-like key '10' first, the text in stored order.
    const fromObjects = serializeEvent('group', plain);
    expect(event).toStrictEqual(JSON.parse(fromObjects.toString('utf8')));
    expect(payload.length).toBe(fromObjects.length);
  });
});
