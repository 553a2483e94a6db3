import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeEvent } from '../../../src/invoke/event-builder.js';
import { LAMBDA_MAX_PAYLOAD_BYTES, planPayloads } from '../../../src/invoke/payload-splitter.js';
import { consumed } from './consumed-message.js';

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

  it('names the messages that cannot fit alone, with their event size', () => {
    const batch = [sized(10, 0), sized(9_000_000, 1), sized(10, 2)];
    const plan = planPayloads('g', batch, [0, 1, 2], LAMBDA_MAX_PAYLOAD_BYTES);
    expect(plan.chunks).toEqual([[0, 2]]);
    expect(plan.oversize).toEqual([
      { index: 1, eventBytes: serializeEvent('g', [batch[1] ?? sized(0)]).length },
    ]);
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
            expect(
              serializeEvent(
                'group',
                chunk.map((i) => batch[i] ?? sized(0)),
              ).length,
            ).toBeLessThanOrEqual(maxBytes);
          }
          for (const { index, eventBytes } of oversize) {
            expect(eventBytes).toBe(serializeEvent('group', [batch[index] ?? sized(0)]).length);
            expect(eventBytes).toBeGreaterThan(maxBytes);
          }
          const covered = [...chunks.flat(), ...oversize.map((o) => o.index)].sort((a, b) => a - b);
          expect(covered).toEqual(indexes);
          expect(chunks.flat()).toEqual([...chunks.flat()].sort((a, b) => a - b));
        },
      ),
    );
  });
});
