import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConsumeResult } from '../../../src/consumer/message-listener.js';
import type { InvokeOutcome } from '../../../src/invoke/invoker.js';
import { type FunctionResultNotice, mapFunctionResult } from '../../../src/invoke/result-mapper.js';

function records(...ids: string[]): { messageId: string }[] {
  return ids.map((messageId) => ({ messageId }));
}

function ok(response: unknown): InvokeOutcome {
  return { ok: true, payload: Buffer.from(JSON.stringify(response) ?? 'null') };
}

function raw(text: string): InvokeOutcome {
  return { ok: true, payload: Buffer.from(text) };
}

/** The indexes a result marks as failed, for a batch of `count` records. */
function failedSet(result: ConsumeResult, count: number): number[] {
  if (result.status === 'SUCCESS') return [];
  if (result.status === 'FAILED') return Array.from({ length: count }, (_, i) => i);
  return [...result.failedIndexes];
}

const abc = records('a', 'b', 'c');

describe('mapFunctionResult, rule 1: the invoke failed', () => {
  it.each(['function-error', 'timeout', 'network', 'server-error', 'aborted'] as const)(
    'fails the whole batch on %s, naming the error',
    (kind) => {
      const result = mapFunctionResult({ ok: false, kind, message: 'it broke' }, abc);
      expect(result).toEqual({ status: 'FAILED', reason: `invoke failed (${kind}): it broke` });
    },
  );

  it('wins over a response the failure might carry', () => {
    const outcome: InvokeOutcome = { ok: false, kind: 'function-error', message: '{"batchItemFailures":[]}' };
    expect(mapFunctionResult(outcome, abc).status).toBe('FAILED');
  });
});

describe('mapFunctionResult, rule 2: batchItemFailures', () => {
  it('fails exactly the named records', () => {
    const result = mapFunctionResult(
      ok({ batchItemFailures: [{ itemIdentifier: 'c' }, { itemIdentifier: 'a' }] }),
      abc,
    );
    expect(result).toEqual({
      status: 'PARTIAL',
      failedIndexes: [0, 2],
      reason: 'function reported 2 of 3 records failed (batchItemFailures)',
    });
  });

  it('tolerates duplicates', () => {
    const response = { batchItemFailures: [{ itemIdentifier: 'b' }, { itemIdentifier: 'b' }] };
    expect(mapFunctionResult(ok(response), abc)).toMatchObject({ status: 'PARTIAL', failedIndexes: [1] });
  });

  it('fails every record that shares the identifier', () => {
    const batch = records('a', 'x', 'b', 'x');
    const result = mapFunctionResult(ok({ batchItemFailures: [{ itemIdentifier: 'x' }] }), batch);
    expect(result).toMatchObject({ status: 'PARTIAL', failedIndexes: [1, 3] });
  });

  it('is a success when the list is empty', () => {
    expect(mapFunctionResult(ok({ batchItemFailures: [] }), abc)).toEqual({ status: 'SUCCESS' });
  });

  it('is a whole-batch failure when every record is named', () => {
    const response = { batchItemFailures: abc.map((r) => ({ itemIdentifier: r.messageId })) };
    expect(mapFunctionResult(ok(response), abc)).toEqual({
      status: 'FAILED',
      reason: 'function reported all 3 records failed (batchItemFailures)',
    });
  });

  it('fails the whole batch when an identifier names no record, naming it', () => {
    const response = { batchItemFailures: [{ itemIdentifier: 'a' }, { itemIdentifier: 'zz' }] };
    expect(mapFunctionResult(ok(response), abc)).toEqual({
      status: 'FAILED',
      reason: 'batchItemFailures[1].itemIdentifier "zz" names no record of the batch',
    });
  });

  it('ignores extra fields of items and of the response', () => {
    const response = { batchItemFailures: [{ itemIdentifier: 'b', why: 'x' }], status: 'nonsense' };
    expect(mapFunctionResult(ok(response), abc)).toMatchObject({ status: 'PARTIAL', failedIndexes: [1] });
  });

  it.each([
    [{ batchItemFailures: null }, 'batchItemFailures is null, not an array'],
    [{ batchItemFailures: 'a' }, 'batchItemFailures is a string ("a"), not an array'],
    [
      { batchItemFailures: { itemIdentifier: 'a' } },
      'batchItemFailures is an object ({"itemIdentifier":"a"}), not an array',
    ],
    [
      { batchItemFailures: ['a'] },
      'batchItemFailures[0] is a string ("a"), not an object with an itemIdentifier',
    ],
    [{ batchItemFailures: [null] }, 'batchItemFailures[0] is null, not an object with an itemIdentifier'],
    [{ batchItemFailures: [{ id: 'a' }] }, 'batchItemFailures[0].itemIdentifier is missing, not a string'],
    [
      { batchItemFailures: [{ itemIdentifier: 1 }] },
      'batchItemFailures[0].itemIdentifier is a number (1), not a string',
    ],
    [
      { batchItemFailures: [{ itemIdentifier: 'a' }, { itemIdentifier: null }] },
      'batchItemFailures[1].itemIdentifier is null, not a string',
    ],
  ])('fails the whole batch on a malformed claim %j', (response, why) => {
    expect(mapFunctionResult(ok(response), abc)).toEqual({
      status: 'FAILED',
      reason: `malformed function response: ${why}`,
    });
  });
});

describe('mapFunctionResult, rule 3: status and ackIndex', () => {
  const five = records('a', 'b', 'c', 'd', 'e');

  it('CONSUME_SUCCESS without ackIndex: all succeeded', () => {
    expect(mapFunctionResult(ok({ status: 'CONSUME_SUCCESS' }), five)).toEqual({ status: 'SUCCESS' });
  });

  it('CONSUME_SUCCESS with ackIndex i: records 0..i succeeded, the rest failed', () => {
    expect(mapFunctionResult(ok({ status: 'CONSUME_SUCCESS', ackIndex: 1 }), five)).toEqual({
      status: 'PARTIAL',
      failedIndexes: [2, 3, 4],
      reason: 'function reported 3 of 5 records failed (CONSUME_SUCCESS with ackIndex 1)',
    });
  });

  it.each([4, 5, 1000, Number.MAX_SAFE_INTEGER])(
    'ackIndex %d at or past the last record: all succeeded',
    (i) => {
      expect(mapFunctionResult(ok({ status: 'CONSUME_SUCCESS', ackIndex: i }), five)).toEqual({
        status: 'SUCCESS',
      });
    },
  );

  it('ackIndex -1: all failed, as in Java', () => {
    expect(mapFunctionResult(ok({ status: 'CONSUME_SUCCESS', ackIndex: -1 }), five)).toEqual({
      status: 'FAILED',
      reason: 'function reported all 5 records failed (CONSUME_SUCCESS with ackIndex -1)',
    });
  });

  it('RECONSUME_LATER: all failed, whatever the ackIndex', () => {
    for (const response of [{ status: 'RECONSUME_LATER' }, { status: 'RECONSUME_LATER', ackIndex: 3 }]) {
      expect(mapFunctionResult(ok(response), five)).toEqual({
        status: 'FAILED',
        reason: 'function returned RECONSUME_LATER',
      });
    }
  });

  it.each([
    [{ status: 'OK' }, 'status "OK" is neither CONSUME_SUCCESS nor RECONSUME_LATER'],
    [
      { status: 'consume_success' },
      'status "consume_success" is neither CONSUME_SUCCESS nor RECONSUME_LATER',
    ],
    [{ status: 200 }, 'status 200 is neither CONSUME_SUCCESS nor RECONSUME_LATER'],
    [{ status: null }, 'status null is neither CONSUME_SUCCESS nor RECONSUME_LATER'],
    [{ ackIndex: 2 }, 'ackIndex without a status'],
    [{ status: 'CONSUME_SUCCESS', ackIndex: 1.5 }, 'ackIndex 1.5 is not an integer'],
    [{ status: 'CONSUME_SUCCESS', ackIndex: '2' }, 'ackIndex "2" is not an integer'],
    [{ status: 'CONSUME_SUCCESS', ackIndex: null }, 'ackIndex null is not an integer'],
    [{ status: 'RECONSUME_LATER', ackIndex: [] }, 'ackIndex [] is not an integer'],
    [{ status: 'CONSUME_SUCCESS', ackIndex: -2 }, 'ackIndex -2 is below -1'],
  ])('fails the whole batch on a malformed claim %j', (response, why) => {
    expect(mapFunctionResult(ok(response), five)).toEqual({
      status: 'FAILED',
      reason: `malformed function response: ${why}`,
    });
  });
});

describe('mapFunctionResult, rule 4: anything else', () => {
  it.each([
    ['null', 'null'],
    ['an empty payload', ''],
    ['a string', '"done"'],
    ['a number', '42'],
    ['an array', '[{"batchItemFailures":[{"itemIdentifier":"zz"}]}]'],
    ['an unrelated object', '{"statusCode":200,"body":"ok"}'],
    ['true', 'true'],
  ])('is a success for %s', (_name, text) => {
    const notices: FunctionResultNotice[] = [];
    expect(mapFunctionResult(raw(text), abc, { onNotice: (n) => notices.push(n) })).toEqual({
      status: 'SUCCESS',
    });
    expect(notices).toEqual([]);
  });

  it('is a success for a payload that is not JSON, with a notice', () => {
    const notices: FunctionResultNotice[] = [];
    const result = mapFunctionResult(raw('{"batchItemFailures": ['), abc, {
      onNotice: (n) => notices.push(n),
    });
    expect(result).toEqual({ status: 'SUCCESS' });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      kind: 'non-json-payload',
      payloadBytes: 23,
      preview: '{"batchItemFailures": [',
    });
  });

  it('treats a __proto__ key as data, not as a claim', () => {
    const payload = '{"__proto__":{"batchItemFailures":"x","status":"OK"}}';
    expect(mapFunctionResult(raw(payload), abc)).toEqual({ status: 'SUCCESS' });
  });
});

describe('mapFunctionResult, properties', () => {
  const uniqueIds = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), {
    minLength: 1,
    maxLength: 30,
  });

  it('fails exactly the records named by batchItemFailures', () => {
    fc.assert(
      fc.property(
        uniqueIds.chain((ids) =>
          fc.tuple(
            fc.constant(ids),
            fc.array(fc.nat({ max: ids.length - 1 }), { maxLength: ids.length * 2 }),
          ),
        ),
        ([ids, named]) => {
          const result = mapFunctionResult(
            ok({ batchItemFailures: named.map((i) => ({ itemIdentifier: ids[i] })) }),
            records(...ids),
          );
          const expected = [...new Set(named)].sort((x, y) => x - y);
          expect(failedSet(result, ids.length)).toEqual(expected);
          if (result.status === 'PARTIAL') {
            expect(result.failedIndexes.length).toBeGreaterThan(0);
            expect(result.failedIndexes.length).toBeLessThan(ids.length);
          }
        },
      ),
    );
  });

  it('fails every record sharing a named id, when ids repeat', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<string>('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 20 }),
        fc.subarray<string>(['a', 'b', 'c', 'd']),
        (ids, named) => {
          const present = named.filter((id) => ids.includes(id));
          const result = mapFunctionResult(
            ok({ batchItemFailures: present.map((itemIdentifier) => ({ itemIdentifier })) }),
            records(...ids),
          );
          const expected = ids.flatMap((id, i) => (present.includes(id) ? [i] : []));
          expect(failedSet(result, ids.length)).toEqual(expected);
        },
      ),
    );
  });

  it('fails the records after ackIndex and no others', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: -1, max: 60 }), (count, ackIndex) => {
        const batch = records(...Array.from({ length: count }, (_, i) => `m${i}`));
        const result = mapFunctionResult(ok({ status: 'CONSUME_SUCCESS', ackIndex }), batch);
        const expected = Array.from({ length: count }, (_, i) => i).filter((i) => i > ackIndex);
        expect(failedSet(result, count)).toEqual(expected);
      }),
    );
  });

  it('never throws, and always returns a well-formed result, for any JSON response', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record({ batchItemFailures: fc.jsonValue() }),
          fc.record({ batchItemFailures: fc.array(fc.record({ itemIdentifier: fc.jsonValue() })) }),
          fc.record({ status: fc.jsonValue(), ackIndex: fc.jsonValue() }, { requiredKeys: [] }),
        ),
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 10 }),
        (response, ids) => {
          const result = mapFunctionResult(ok(response), records(...ids));
          expect(['SUCCESS', 'FAILED', 'PARTIAL']).toContain(result.status);
          if (result.status === 'PARTIAL') {
            const indexes = result.failedIndexes;
            expect(
              indexes.every(
                (i, k) =>
                  Number.isInteger(i) && i >= 0 && i < ids.length && (k === 0 || i > (indexes[k - 1] ?? -1)),
              ),
            ).toBe(true);
          }
        },
      ),
    );
  });

  it('never throws for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const result = mapFunctionResult({ ok: true, payload: Buffer.from(bytes) }, records('a'));
        expect(['SUCCESS', 'FAILED', 'PARTIAL']).toContain(result.status);
      }),
    );
  });

  it('survives deeply nested JSON', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(mapFunctionResult(raw(deep), abc)).toEqual({ status: 'SUCCESS' });
  });
});
