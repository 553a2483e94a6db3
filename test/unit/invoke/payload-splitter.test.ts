import { deepStrictEqual } from 'node:assert/strict';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import {
  chooseBodyEncoding,
  estimateEventOverheadBytes,
  estimateRecordBytes,
  layoutRecord,
  type RecordLayout,
  recordBytesBound,
  serializeEvent,
  serializeLayouts,
} from '../../../src/invoke/event-builder.js';
import { parsedEvent } from '../../../src/invoke/parsed-event.js';
import { LAMBDA_MAX_PAYLOAD_BYTES, planLayouts, planPayloads } from '../../../src/invoke/payload-splitter.js';
import { anyConsumed } from './arbitrary-consumed.js';
import { consumed } from './consumed-message.js';

/** The plan of measuring every record: its sizes, chunks filled in order, a text record alone. */
function measuredPlan(group: string, batch: readonly ConsumedMessage[], maxBytes: number) {
  const envelopeBytes = estimateEventOverheadBytes(group);
  const chunks: number[][] = [];
  const oversize: number[] = [];
  let current: number[] = [];
  let bytes = envelopeBytes - 1;
  const flush = (): void => {
    if (current.length > 0) chunks.push(current);
    current = [];
    bytes = envelopeBytes - 1;
  };
  batch.forEach((message, index) => {
    const layout = layoutRecord(message, envelopeBytes, maxBytes);
    if (!layout.fits) {
      oversize.push(index);
    } else if (layout.encoding === 'utf8') {
      flush();
      chunks.push([index]);
    } else {
      if (bytes + layout.recordBytes > maxBytes) flush();
      current.push(index);
      bytes += layout.recordBytes;
    }
  });
  flush();
  return { chunks, oversize };
}

function sized(bodyBytes: number, i = 0) {
  return consumed({
    msgId: `id-${i}`,
    body: Buffer.alloc(bodyBytes, 'x'),
    properties: { UNIQ_KEY: `id-${i}` },
  });
}

describe('planPayloads', () => {
  it('keeps a batch that fits in one chunk', () => {
    const batch = [sized(10, 0), sized(10, 1)];
    expect(planPayloads('g', batch, [0, 1], LAMBDA_MAX_PAYLOAD_BYTES)).toEqual({
      chunks: [[0, 1]],
      oversize: [],
    });
  });

  it('fits a chunk exactly at the limit', () => {
    const batch = [sized(300, 0), sized(300, 1), sized(300, 2)];
    const exact = serializeEvent('g', batch.slice(0, 2)).length;
    expect(planPayloads('g', batch, [0, 1, 2], exact).chunks).toEqual([[0, 1], [2]]);
    expect(planPayloads('g', batch, [0, 1, 2], exact - 1).chunks).toEqual([[0], [1], [2]]);
  });

  it('names the messages that cannot fit alone, with their event sizes and the reason', () => {
    const batch = [sized(10, 0), sized(9_000_000, 1), sized(10, 2)];
    const plan = planPayloads('g', batch, [0, 1, 2], LAMBDA_MAX_PAYLOAD_BYTES);
    expect(plan.chunks).toEqual([[0, 2]]);
    const alone = batch[1] ?? sized(0);
    const envelopeBytes = estimateEventOverheadBytes('g');
    const textEventBytes = envelopeBytes + estimateRecordBytes(alone, 'utf8') - 1;
    expect(plan.oversize).toEqual([
      {
        index: 1,
        eventBytes: serializeEvent('g', [alone]).length,
        textEventBytes,
        reason:
          `record too large: its body is 9000000 bytes of UTF-8 text, in an event of ${textEventBytes} bytes ` +
          `as text (${serializeEvent('g', [alone]).length} as base64), over the 6291456-byte payload limit`,
      },
    ]);
  });

  it('plans a message that fits only as UTF-8 text alone, in order', () => {
    const text = sized(2_000, 1);
    const batch = [sized(10, 0), text, sized(10, 2), sized(10, 3)];
    const envelopeBytes = estimateEventOverheadBytes('g');
    const maxPayloadBytes = envelopeBytes + estimateRecordBytes(text) - 2;
    expect(chooseBodyEncoding(text, maxPayloadBytes, envelopeBytes)).toMatchObject({ encoding: 'utf8' });
    const plan = planPayloads('g', batch, [0, 1, 2, 3], maxPayloadBytes);
    expect(plan).toEqual({ chunks: [[0], [1], [2, 3]], oversize: [] });
    const payload = serializeEvent('g', [text], { maxPayloadBytes });
    expect(payload.length).toBeLessThanOrEqual(maxPayloadBytes);
    expect(payload.toString('utf8')).toContain(`"bodyEncoding":"utf8","body":"${'x'.repeat(2_000)}"`);
  });

  it('dead-letters a binary body that does not fit as base64, saying why', () => {
    const binary = consumed({ msgId: 'bin', body: Buffer.alloc(2_000, 0xff), properties: {} });
    const envelopeBytes = estimateEventOverheadBytes('g');
    const eventBytes = envelopeBytes + estimateRecordBytes(binary) - 1;
    const plan = planPayloads('g', [binary], [0], eventBytes - 1);
    expect(plan).toEqual({
      chunks: [],
      oversize: [
        {
          index: 0,
          eventBytes,
          textEventBytes: undefined,
          reason:
            `record too large: its body is 2000 bytes of binary data (not valid UTF-8), which travel as ` +
            `base64 in an event of ${eventBytes} bytes, over the ${eventBytes - 1}-byte payload limit`,
        },
      ],
    });
  });

  it('bounds every record from above (recordBytesBound)', () => {
    fc.assert(
      fc.property(anyConsumed, (message) => {
        expect(recordBytesBound(message)).toBeGreaterThanOrEqual(estimateRecordBytes(message));
      }),
      { numRuns: 1_000 },
    );
  });

  it('plans any batch as measuring every record would, at a glance or not, and serializes it the same (differential)', () => {
    let atAGlance = 0;
    let measured = 0;
    fc.assert(
      fc.property(
        fc.array(anyConsumed, { maxLength: 8 }),
        fc.integer({ min: 100, max: 5_000 }),
        (batch, maxBytes) => {
          const indexes = batch.map((_, i) => i);
          const plan = planLayouts('group', batch, indexes, maxBytes);
          const expected = measuredPlan('group', batch, maxBytes);
          expect(plan.chunks).toEqual(expected.chunks);
          expect(plan.oversize.map((o) => o.index)).toEqual(expected.oversize);
          const bound = batch.reduce(
            (sum, m) => sum + recordBytesBound(m),
            estimateEventOverheadBytes('group') - 1,
          );
          if (bound <= maxBytes) atAGlance++;
          else measured++;
          for (const chunk of plan.chunks) {
            const layouts = chunk.map((i) => plan.layouts[i] as RecordLayout);
            // The event built in-process first, then the bytes (as the LocalInvoker, then a payload).
            const event = parsedEvent('group', layouts);
            const payload = serializeLayouts('group', layouts);
            const messages = chunk.map((i) => batch[i] as ConsumedMessage);
            expect(payload.equals(serializeEvent('group', messages, { maxPayloadBytes: maxBytes }))).toBe(
              true,
            );
            deepStrictEqual(event, JSON.parse(payload.toString('utf8')));
          }
        },
      ),
      { numRuns: 600 },
    );
    // Both paths ran: a vacuous pass on one of them would hide a wrong plan.
    expect(atAGlance).toBeGreaterThan(50);
    expect(measured).toBeGreaterThan(50);
  });

  it('packs any batch in order into chunks whose events are within the limit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 500, max: 8_000 }),
        (sizes, maxBytes) => {
          const batch = sizes.map((size, i) => sized(size, i));
          const indexes = batch.map((_, i) => i);
          const { chunks, oversize } = planPayloads('group', batch, indexes, maxBytes);
          for (const chunk of chunks) {
            expect(chunk.length).toBeGreaterThan(0);
            const payload = serializeEvent(
              'group',
              chunk.map((i) => batch[i] ?? sized(0)),
              { maxPayloadBytes: maxBytes },
            );
            expect(payload.length).toBeLessThanOrEqual(maxBytes);
            if (payload.includes('"bodyEncoding"')) expect(chunk).toHaveLength(1);
          }
          for (const { index, eventBytes, textEventBytes } of oversize) {
            const alone = [batch[index] ?? sized(0)];
            expect(eventBytes).toBe(serializeEvent('group', alone, { maxPayloadBytes: maxBytes }).length);
            expect(eventBytes).toBeGreaterThan(maxBytes);
            expect(textEventBytes).toBeGreaterThan(maxBytes);
          }
          const covered = [...chunks.flat(), ...oversize.map((o) => o.index)].sort((a, b) => a - b);
          expect(covered).toEqual(indexes);
          expect(chunks.flat()).toEqual([...chunks.flat()].sort((a, b) => a - b));
        },
      ),
    );
  });
});
