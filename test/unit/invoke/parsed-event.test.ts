import { deepStrictEqual, notStrictEqual } from 'node:assert/strict';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import {
  estimateEventOverheadBytes,
  layoutRecord,
  serializeLayouts,
} from '../../../src/invoke/event-builder.js';
import { parsedEvent } from '../../../src/invoke/parsed-event.js';
import { recordHead, recordHeadBytes } from '../../../src/invoke/record-head.js';
import type { RecordHeadValues } from '../../../src/invoke/record-head-values.js';
import { DecodedMessage } from '../../../src/protocol/decoded-message.js';
import { messageExt } from './consumed-message.js';

/** Strings that repeat, escape, leave ASCII or are not well-formed UTF-16. */
const anyString = fc.oneof(
  fc.constantFrom('orders', 'orders', '', 'b"r\\ö', 'caf\u00e9', 'x\u2028y', '\ud800', '😀', '\u0000\n'),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const anyNumber = fc.oneof(fc.maxSafeNat(), fc.constantFrom(0, -0, -1, 1.5, 2 ** 60, 1e21, 1e-7));
const anyBody = fc.oneof(
  fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom('plain', 'q"\\\n\u0001', 'caf\u00e9 😀').map((text) => Buffer.from(text)),
);
const anyProperties = fc.dictionary(
  fc.constantFrom('color', '__proto__', '10', 'k"é', 'UNIQ_KEY', 'TAGS'),
  fc.constantFrom('red', 'x"\\y', '😀'),
);
const anyConsumed: fc.Arbitrary<ConsumedMessage> = fc
  .record({
    topic: anyString,
    brokerName: anyString,
    msgId: anyString,
    offsetMsgId: anyString,
    bornHost: anyString,
    storeHost: anyString,
    tags: fc.option(anyString, { nil: undefined }),
    keys: fc.array(anyString, { maxLength: 2 }),
    queueId: anyNumber,
    queueOffset: anyNumber,
    bornTimestamp: anyNumber,
    reconsumeTimes: anyNumber,
    properties: anyProperties,
    text: fc.option(fc.constantFrom('a\u00011\u0002__proto__\u0001p\u0002', 'TAGS\u0001t\u0002', ''), {
      nil: undefined,
    }),
    body: anyBody,
  })
  .map((f) => {
    const message =
      f.text === undefined
        ? messageExt({ ...f, tags: f.tags, properties: Object.assign(Object.create(null), f.properties) })
        : Object.assign(new DecodedMessage(f.body, undefined, 0, 0, 0, f.text), {
            queueId: f.queueId,
            queueOffset: f.queueOffset,
            reconsumeTimes: f.reconsumeTimes,
          });
    return { message, queue: { topic: f.topic, brokerName: f.brokerName, queueId: 1 }, topic: f.topic };
  });

describe('parsedEvent', () => {
  it('equals JSON.parse of the serialized event, prototypes and key order included (differential)', () => {
    fc.assert(
      fc.property(
        anyString,
        fc.array(anyConsumed, { maxLength: 5 }),
        fc.option(fc.integer({ min: 0, max: 1_500 }), { nil: undefined }),
        (group, batch, maxPayloadBytes) => {
          const envelopeBytes = estimateEventOverheadBytes(group);
          const layouts = batch.map((m) => layoutRecord(m, envelopeBytes, maxPayloadBytes));
          const event = parsedEvent(group, layouts);
          // Built before the payload: the objects do not depend on the head text being written.
          const parsed: unknown = JSON.parse(serializeLayouts(group, layouts).toString('utf8'));
          deepStrictEqual(event, parsed);
          expect(JSON.stringify(event)).toBe(JSON.stringify(parsed));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('makes a fresh object graph on every call', () => {
    const layouts = [
      layoutRecord(
        {
          message: messageExt({ keys: ['k1'], properties: { color: 'red' } }),
          queue: { topic: 'orders', brokerName: 'b', queueId: 1 },
          topic: 'orders',
        },
        estimateEventOverheadBytes('g'),
      ),
    ];
    const first = parsedEvent('g', layouts);
    const second = parsedEvent('g', layouts);
    deepStrictEqual(first, second);
    notStrictEqual(first.Records, second.Records);
    notStrictEqual(first.Records[0], second.Records[0]);
    notStrictEqual(first.Records[0]?.keys, second.Records[0]?.keys);
    notStrictEqual(first.Records[0]?.properties, second.Records[0]?.properties);
    (first.Records[0] as { keys: string[] }).keys.push('changed');
    (first.Records[0] as { properties: Record<string, string> }).properties.color = 'blue';
    expect(parsedEvent('g', layouts)).toStrictEqual(second);
  });
});

describe('recordHeadBytes', () => {
  it('counts the UTF-8 bytes of recordHead for any values', () => {
    fc.assert(
      fc.property(
        fc.record({
          messageId: anyString,
          offsetMsgId: anyString,
          topic: anyString,
          brokerName: anyString,
          queueId: anyNumber,
          queueOffset: anyNumber,
          tags: fc.option(anyString, { nil: null }),
          keys: fc.array(anyString, { maxLength: 3 }),
          propertiesJson: fc.constantFrom('{}', '{"a":"é"}', '{"__proto__":"\\u0000"}'),
          bornTimestamp: anyNumber,
          storeTimestamp: anyNumber,
          bornHost: anyString,
          storeHost: anyString,
          reconsumeTimes: anyNumber,
        }),
        (values: RecordHeadValues) => {
          expect(recordHeadBytes(values)).toBe(Buffer.byteLength(recordHead(values), 'utf8'));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('counts the digits of numbers at every power of ten', () => {
    const base: RecordHeadValues = {
      messageId: 'm',
      offsetMsgId: 'o',
      topic: 't',
      brokerName: 'b',
      queueId: 0,
      queueOffset: 0,
      tags: null,
      keys: [],
      propertiesJson: '{}',
      bornTimestamp: 0,
      storeTimestamp: 0,
      bornHost: 'h',
      storeHost: 'h',
      reconsumeTimes: 0,
    };
    const numbers = [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 1e21, -1, 0.5];
    for (let power = 1; power <= 1e16; power *= 10) numbers.push(power - 1, power);
    for (const n of numbers) {
      const values = { ...base, queueOffset: n, bornTimestamp: n };
      expect(recordHeadBytes(values), String(n)).toBe(Buffer.byteLength(recordHead(values), 'utf8'));
    }
  });
});
