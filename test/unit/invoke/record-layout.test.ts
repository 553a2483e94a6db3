import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import {
  estimateEventOverheadBytes,
  estimateRecordBytes,
  layoutRecord,
  type RecordLayout,
  serializeEvent,
  serializeLayouts,
} from '../../../src/invoke/event-builder.js';
import { planLayouts, planPayloads } from '../../../src/invoke/payload-splitter.js';
import { messageExt } from './consumed-message.js';

/** A few values per field, ASCII and not, so that consecutive records both repeat and change them. */
const fewStrings = fc.constantFrom('orders', 'orders', 'b"r\\ö', 'caf\u00e9', '', 'x\u2028y', '\ud800');
const anyBody = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ unit: 'grapheme', maxLength: 200 }).map((text) => Buffer.from(`"q"\n\\${text}`)),
);
const anyConsumed: fc.Arbitrary<ConsumedMessage> = fc
  .record({
    topic: fewStrings,
    brokerName: fewStrings,
    bornHost: fewStrings,
    storeHost: fewStrings,
    tags: fc.option(fewStrings, { nil: undefined }),
    keys: fc.array(fewStrings, { maxLength: 2 }),
    msgId: fc.string({ maxLength: 12 }),
    queueOffset: fc.maxSafeNat(),
    userValue: fewStrings,
    body: anyBody,
  })
  .map((f) => ({
    message: messageExt({
      msgId: f.msgId,
      queueOffset: f.queueOffset,
      bornHost: f.bornHost,
      storeHost: f.storeHost,
      tags: f.tags,
      keys: f.keys,
      body: f.body,
      properties: { UNIQ_KEY: f.msgId, tenant: f.userValue },
    }),
    queue: { topic: f.topic, brokerName: f.brokerName, queueId: 1 },
    topic: f.topic,
  }));

describe('layoutRecord and serializeLayouts', () => {
  it('serialize any batch to the bytes of serializeEvent, with or without a payload limit', () => {
    fc.assert(
      fc.property(
        fewStrings,
        fc.array(anyConsumed, { maxLength: 6 }),
        fc.option(fc.integer({ min: 0, max: 2_000 }), { nil: undefined }),
        (group, batch, maxPayloadBytes) => {
          const envelopeBytes = estimateEventOverheadBytes(group);
          const layouts = batch.map((m) => layoutRecord(m, envelopeBytes, maxPayloadBytes));
          const payload = serializeLayouts(group, layouts);
          expect(payload.equals(serializeEvent(group, batch, { maxPayloadBytes }))).toBe(true);
          layouts.forEach((layout, i) => {
            const message = batch[i] as ConsumedMessage;
            expect(layout.body).toBe(message.message.body);
            expect(layout.recordBytes).toBe(estimateRecordBytes(message, layout.encoding));
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('measure the same record the same way in any batch (a layout serves every sub-batch)', () => {
    fc.assert(
      fc.property(fewStrings, fc.array(anyConsumed, { minLength: 1, maxLength: 6 }), (group, batch) => {
        const envelopeBytes = estimateEventOverheadBytes(group);
        const layouts = batch.map((m) => layoutRecord(m, envelopeBytes, 1_000));
        batch.forEach((message, i) => {
          const alone = layoutRecord(message, envelopeBytes, 1_000);
          expect(
            serializeLayouts(group, [alone]).equals(serializeLayouts(group, [layouts[i] as RecordLayout])),
          ).toBe(true);
        });
      }),
    );
  });
});

describe('planLayouts', () => {
  it('plans as planPayloads, and its layouts serialize each chunk as serializeEvent does', () => {
    fc.assert(
      fc.property(
        fc.array(anyConsumed, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 300, max: 3_000 }),
        (batch, maxPayloadBytes) => {
          const indexes = batch.map((_, i) => i).filter((i) => i % 5 !== 4);
          const plan = planLayouts('group', batch, indexes, maxPayloadBytes);
          expect({ chunks: plan.chunks, oversize: plan.oversize }).toEqual(
            planPayloads('group', batch, indexes, maxPayloadBytes),
          );
          for (const chunk of plan.chunks) {
            const layouts = chunk.map((i) => plan.layouts[i] as RecordLayout);
            const expected = serializeEvent(
              'group',
              chunk.map((i) => batch[i] as ConsumedMessage),
              { maxPayloadBytes },
            );
            expect(serializeLayouts('group', layouts).equals(expected)).toBe(true);
          }
          const planned = new Set(plan.chunks.flat());
          for (let i = 0; i < batch.length; i++) expect(plan.layouts[i] !== undefined).toBe(planned.has(i));
        },
      ),
      { numRuns: 200 },
    );
  });
});
