import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyResult } from '../../../../src/consumer/consume/classify-result.js';
import type { ConsumeResult, DeadLetterEntry } from '../../../../src/consumer/message-listener.js';

/** Indexes a listener might return: in range, out of range, negative, not an integer. */
const anyIndex = fc.oneof(fc.integer({ min: -2, max: 14 }), fc.constant(1.5));

const deadLetter: fc.Arbitrary<DeadLetterEntry[] | undefined> = fc.option(
  fc.array(fc.record({ index: anyIndex, reason: fc.constantFrom('a', 'b', 'c') }), { maxLength: 6 }),
  { nil: undefined },
);

const result: fc.Arbitrary<ConsumeResult> = fc.oneof(
  fc.constant<ConsumeResult>({ status: 'SUCCESS' }),
  fc.record({ status: fc.constant('FAILED' as const), reason: fc.constant('failed'), deadLetter }),
  fc.record({
    status: fc.constant('PARTIAL' as const),
    failedIndexes: fc.array(anyIndex, { maxLength: 8 }),
    reason: fc.constant('partial'),
    deadLetter,
  }),
);

const inBatch = (index: number, length: number) => Number.isInteger(index) && index >= 0 && index < length;

/** The failed indexes as message-listener.ts defines them, written out independently of the code. */
function expectedFailed(r: ConsumeResult, length: number): { failed: Set<number>; invalid: boolean } {
  const all = new Set(Array.from({ length }, (_, i) => i));
  if (r.status === 'SUCCESS') return { failed: new Set(), invalid: false };
  if (r.status === 'FAILED') return { failed: all, invalid: false };
  if (r.failedIndexes.some((i) => !inBatch(i, length))) return { failed: all, invalid: true };
  return { failed: new Set(r.failedIndexes), invalid: false };
}

describe('classifyResult', () => {
  it('puts every record in exactly one of succeeded, retry and deadLetter, as the result says (property)', () => {
    fc.assert(
      fc.property(result, fc.nat(12), fc.boolean(), (r, length, deadLetters) => {
        const records = Array.from({ length }, (_, i) => i);
        const c = classifyResult(r, records, { deadLetters });
        const dead = c.deadLetter.map((v) => v.record);

        // Exactly one set per record, and inOrder agrees with the sets.
        expect([...c.succeeded, ...c.retry, ...dead].sort((a, b) => a - b)).toEqual(records);
        expect(c.inOrder.map((v) => v.record)).toEqual(records);
        for (const v of c.inOrder) {
          const set = v.kind === 'succeeded' ? c.succeeded : v.kind === 'retry' ? c.retry : dead;
          expect(set).toContain(v.record);
          // A dead letter's verdict is one object, wherever it is read from.
          if (v.kind === 'deadLetter') expect(c.deadLetter).toContain(v);
        }
        // Made on the first read, then the same list.
        expect(c.inOrder).toBe(c.inOrder);

        // Succeeded: exactly the records the result does not fail.
        const { failed, invalid } = expectedFailed(r, length);
        expect(c.invalidPartial).toBe(invalid);
        expect(c.succeeded).toEqual(records.filter((i) => !failed.has(i)));
        expect(c.failedCount).toBe(failed.size);

        // Dead letters: only when honoured, only failed records of the batch, the last entry's reason.
        const expectedDead = new Map<number, string>();
        if (deadLetters && r.status !== 'SUCCESS') {
          for (const e of r.deadLetter ?? []) {
            if (inBatch(e.index, length) && failed.has(e.index)) expectedDead.set(e.index, e.reason);
          }
        }
        expect(new Map(c.deadLetter.map((v) => [v.record, v.reason]))).toEqual(expectedDead);
        expect(c.reason).toBe(r.status === 'SUCCESS' ? 'invalid result' : r.reason);
      }),
      { numRuns: 500 },
    );
  });

  it('splits a PARTIAL with a dead letter into the three verdicts, in batch order', () => {
    const r: ConsumeResult = {
      status: 'PARTIAL',
      failedIndexes: [3, 1],
      reason: 'x',
      deadLetter: [{ index: 3, reason: 'too large' }],
    };
    const c = classifyResult(r, ['a', 'b', 'c', 'd'], { deadLetters: true });
    expect(c.inOrder.map((v) => v.kind)).toEqual(['succeeded', 'retry', 'succeeded', 'deadLetter']);
    expect(c).toMatchObject({ succeeded: ['a', 'c'], retry: ['b'], failedCount: 2, invalidPartial: false });
    expect(c.deadLetter).toEqual([{ record: 'd', kind: 'deadLetter', reason: 'too large' }]);
  });

  it('retries dead-lettered records when dead letters are not honoured (nothing is lost)', () => {
    const r: ConsumeResult = { status: 'FAILED', reason: 'x', deadLetter: [{ index: 0, reason: 'old' }] };
    const c = classifyResult(r, ['a', 'b'], { deadLetters: false });
    expect(c).toMatchObject({ succeeded: [], retry: ['a', 'b'], deadLetter: [], failedCount: 2 });
  });

  it('fails the whole batch when a PARTIAL names an index outside it', () => {
    const c = classifyResult({ status: 'PARTIAL', failedIndexes: [0, 5], reason: 'x' }, ['a', 'b'], {
      deadLetters: true,
    });
    expect(c).toMatchObject({ invalidPartial: true, succeeded: [], retry: ['a', 'b'], failedCount: 2 });
  });
});
