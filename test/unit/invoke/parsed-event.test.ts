import { deepStrictEqual, notStrictEqual } from 'node:assert/strict';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  estimateEventOverheadBytes,
  layoutRecord,
  serializeLayouts,
} from '../../../src/invoke/event-builder.js';
import { parsedEvent } from '../../../src/invoke/parsed-event.js';
import {
  NUMBER_CHARS_BOUND,
  recordHead,
  recordHeadBytes,
  recordHeadBytesBound,
} from '../../../src/invoke/record-head.js';
import type { RecordHeadValues } from '../../../src/invoke/record-head-values.js';
import { anyConsumed, anyNumber, anyString } from './arbitrary-consumed.js';
import { messageExt } from './consumed-message.js';

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
          traceContext: fc.option(
            fc.record({ traceparent: anyString, tracestate: anyString }, { requiredKeys: ['traceparent'] }),
            { nil: undefined },
          ),
        }),
        (values: RecordHeadValues) => {
          expect(recordHeadBytes(values)).toBe(Buffer.byteLength(recordHead(values), 'utf8'));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('is never above recordHeadBytesBound, for any values', () => {
    // Strings of any code unit (lone surrogates, controls, quotes) and any JSON properties text.
    const wideString = fc.oneof(anyString, fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));
    fc.assert(
      fc.property(
        fc.record({
          messageId: wideString,
          offsetMsgId: wideString,
          topic: wideString,
          brokerName: wideString,
          queueId: fc.double(),
          queueOffset: fc.double(),
          tags: fc.option(wideString, { nil: null }),
          keys: fc.array(wideString, { maxLength: 4 }),
          propertiesJson: fc.dictionary(wideString, wideString).map((p) => JSON.stringify(p)),
          bornTimestamp: fc.double(),
          storeTimestamp: fc.double(),
          bornHost: wideString,
          storeHost: wideString,
          reconsumeTimes: fc.double(),
          traceContext: fc.option(
            fc.record({ traceparent: wideString, tracestate: wideString }, { requiredKeys: ['traceparent'] }),
            { nil: undefined },
          ),
        }),
        (values: RecordHeadValues) => {
          expect(recordHeadBytesBound(values)).toBeGreaterThanOrEqual(recordHeadBytes(values));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('bounds every number at NUMBER_CHARS_BOUND characters, which one reaches', () => {
    fc.assert(
      fc.property(fc.double(), (n) => {
        expect(String(n).length).toBeLessThanOrEqual(NUMBER_CHARS_BOUND);
      }),
      { numRuns: 10_000 },
    );
    expect(String(-0.0000012345678901234567)).toHaveLength(NUMBER_CHARS_BOUND);
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
      traceContext: undefined,
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
