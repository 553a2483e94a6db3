import fc from 'fast-check';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import { DecodedMessage } from '../../../src/protocol/decoded-message.js';
import { messageExt } from './consumed-message.js';

/**
 * Random consumed messages for the event builder's differential tests (parsed-event.test.ts,
 * payload-splitter.test.ts).
 */

/** Strings that repeat, escape, leave ASCII or are not well-formed UTF-16. */
export const anyString = fc.oneof(
  fc.constantFrom('orders', 'orders', '', 'b"r\\ö', 'caf\u00e9', 'x\u2028y', '\ud800', '😀', '\u0000\n'),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
export const anyNumber = fc.oneof(fc.maxSafeNat(), fc.constantFrom(0, -0, -1, 1.5, 2 ** 60, 1e21, 1e-7));
const anyBody = fc.oneof(
  fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom('plain', 'q"\\\n\u0001', 'caf\u00e9 😀').map((text) => Buffer.from(text)),
);
/** A valid traceparent, and a valid tracestate whose value needs JSON escapes. */
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const TRACESTATE = 'k=v"\\w,rojo=00f067aa0ba902b7';
const anyProperties = fc.dictionary(
  fc.constantFrom('color', '__proto__', '10', 'k"é', 'UNIQ_KEY', 'TAGS', 'traceparent', 'tracestate'),
  fc.constantFrom('red', 'x"\\y', '😀', TRACEPARENT, TRACESTATE),
);
export const anyConsumed: fc.Arbitrary<ConsumedMessage> = fc
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
    text: fc.option(
      fc.constantFrom(
        'a\u00011\u0002__proto__\u0001p\u0002',
        'TAGS\u0001t\u0002',
        '',
        `traceparent\u0001${TRACEPARENT}\u0002tracestate\u0001${TRACESTATE}\u0002`,
        `traceparent\u0001${TRACEPARENT}\u0002`,
      ),
      { nil: undefined },
    ),
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
