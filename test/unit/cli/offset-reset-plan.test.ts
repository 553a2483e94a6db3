import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseQueueSelector, parseResetTo } from '../../../src/cli/offsets-reset-command.js';
import {
  describeResetTo,
  planQueueReset,
  type QueueResetStep,
  resetTotals,
  skipGuard,
} from '../../../src/operations/offset-reset-plan.js';

const queue = { topic: 'Orders', brokerName: 'broker-a', queueId: 0 };
const facts = { queue, minOffset: 3, maxOffset: 120, committed: 118 };

describe('parseResetTo', () => {
  it('reads earliest, latest, offsets and ISO times', () => {
    expect(parseResetTo('earliest')).toEqual({ kind: 'earliest' });
    expect(parseResetTo('latest')).toEqual({ kind: 'latest' });
    expect(parseResetTo('1042')).toEqual({ kind: 'offset', offset: 1042 });
    expect(parseResetTo('2026-12-01T12:00:00Z')).toEqual({
      kind: 'time',
      timestampMs: Date.UTC(2026, 11, 1, 12),
    });
    expect(parseResetTo('2026-12-01T14:00:00.250+02:00')).toEqual({
      kind: 'time',
      timestampMs: Date.UTC(2026, 11, 1, 12, 0, 0, 250),
    });
  });

  it('refuses anything else with the accepted forms', () => {
    for (const text of [
      '',
      'first',
      '-1',
      '1.5',
      'yesterday',
      '2026-13-45T99:00:00Z',
      '99999999999999999999',
    ]) {
      expect(() => parseResetTo(text), text).toThrow(InvalidArgumentError);
    }
    expect(() => parseResetTo('soon')).toThrow(/earliest, latest, an ISO time with its zone .* or an offset/);
  });

  it('refuses a time without a zone, saying how to write it, instead of guessing one', () => {
    for (const text of ['2026-01-01T00:00:00', '2026-12-01T10:00', '2026-12-01']) {
      expect(() => parseResetTo(text), text).toThrow(InvalidArgumentError);
      expect(() => parseResetTo(text), text).toThrow(/has no time zone, so it is ambiguous: add Z for UTC/);
    }
    expect(() => parseResetTo('2026-01-01T00:00:00')).toThrow('(2026-01-01T00:00:00Z)');
  });
});

describe('describeResetTo', () => {
  it('shows a time in UTC and in the local zone', () => {
    const saved = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo';
    try {
      expect(describeResetTo({ kind: 'time', timestampMs: Date.UTC(2026, 11, 1, 12) })).toBe(
        '2026-12-01T12:00:00.000Z (local 2026-12-01T21:00:00.000+09:00 Asia/Tokyo)',
      );
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});

describe('what a reset redelivers and skips', () => {
  it('counts from the higher of the store and the broker copy: back redelivers, forward skips', () => {
    expect(planQueueReset({ kind: 'earliest' }, facts)).toMatchObject({
      from: 118,
      after: 3,
      redelivered: 115,
      skipped: 0,
      alreadyThere: false,
    });
    expect(planQueueReset({ kind: 'latest' }, facts)).toMatchObject({
      from: 118,
      redelivered: 0,
      skipped: 2,
    });
    // The broker's copy ahead of the store: a poller would start there (start-offset.ts).
    expect(planQueueReset({ kind: 'offset', offset: 119 }, { ...facts, brokerCommitted: 120 })).toMatchObject(
      {
        from: 120,
        redelivered: 1,
        skipped: 0,
      },
    );
    expect(planQueueReset({ kind: 'offset', offset: 119 }, { ...facts, brokerCommitted: 100 })).toMatchObject(
      {
        from: 118,
        skipped: 1,
      },
    );
  });

  it('without any committed offset, counts from where the mapping starts', () => {
    const none = { ...facts, committed: undefined };
    expect(planQueueReset({ kind: 'offset', offset: 10 }, { ...none, startOffset: 3 })).toMatchObject({
      from: 3,
      skipped: 7,
    });
    expect(planQueueReset({ kind: 'offset', offset: 10 }, { ...none, startOffset: 120 })).toMatchObject({
      from: 120,
      redelivered: 110,
    });
    // Unknown start: the min offset, the most a forward move can skip.
    expect(planQueueReset({ kind: 'latest' }, none)).toMatchObject({ from: 3, skipped: 117 });
  });

  it('counts only stored messages: a committed offset below min or above max is clamped', () => {
    expect(planQueueReset({ kind: 'latest' }, { ...facts, committed: 0 })).toMatchObject({
      from: 3,
      skipped: 117,
    });
    expect(planQueueReset({ kind: 'earliest' }, { ...facts, committed: 500 })).toMatchObject({
      from: 120,
      redelivered: 117,
    });
  });

  it('a queue whose store and broker copies are at the target already is already there', () => {
    expect(planQueueReset({ kind: 'offset', offset: 118 }, facts).alreadyThere).toBe(true);
    expect(
      planQueueReset({ kind: 'offset', offset: 118 }, { ...facts, brokerCommitted: 118 }).alreadyThere,
    ).toBe(true);
    // Half done (the store moved, the broker copy not): not there yet, and nothing to redeliver.
    expect(planQueueReset({ kind: 'offset', offset: 118 }, { ...facts, brokerCommitted: 110 })).toMatchObject(
      {
        alreadyThere: false,
        redelivered: 0,
        skipped: 0,
      },
    );
    expect(
      planQueueReset({ kind: 'offset', offset: 118 }, { ...facts, committed: undefined }).alreadyThere,
    ).toBe(false);
  });

  it('totals the queues, and the guard names what a reset skips', () => {
    const q = (queueId: number) => ({ ...queue, queueId });
    const steps: QueueResetStep[] = [
      planQueueReset({ kind: 'latest' }, { ...facts, queue: q(0), committed: 100 }),
      planQueueReset({ kind: 'latest' }, { ...facts, queue: q(1), committed: 120 }),
      planQueueReset({ kind: 'latest' }, { ...facts, queue: q(2), committed: 114 }),
      planQueueReset({ kind: 'offset', offset: 200 }, { ...facts, queue: q(3) }),
    ];
    expect(resetTotals(steps)).toEqual({
      queues: 4,
      moving: 2,
      alreadyThere: 1,
      refused: 1,
      redelivered: 0,
      skipped: 26,
    });
    const nowMs = Date.UTC(2026, 5, 1);
    expect(skipGuard({ kind: 'latest' }, steps, nowMs)).toEqual({
      future: false,
      skipped: 26,
      reason: 'it skips 26 unconsumed message(s) (broker-a:0 20, broker-a:2 6)',
    });
    const back = [planQueueReset({ kind: 'earliest' }, facts)];
    expect(resetTotals(back)).toMatchObject({ redelivered: 115, skipped: 0 });
    expect(skipGuard({ kind: 'earliest' }, back, nowMs)).toBeUndefined();
  });

  it('the guard refuses a time in the future even when nothing is left to skip', () => {
    const nowMs = Date.UTC(2026, 5, 1);
    const future = { kind: 'time', timestampMs: Date.UTC(2030, 0, 1) } as const;
    const drained = [planQueueReset(future, { ...facts, committed: 120, searchedOffset: 120 })];
    expect(skipGuard(future, drained, nowMs)).toEqual({
      future: true,
      skipped: 0,
      reason:
        '2030-01-01T00:00:00.000Z is in the future (now 2026-06-01T00:00:00.000Z): every queue lands on its latest offset; it skips 0 unconsumed message(s)',
    });
    const past = { kind: 'time', timestampMs: Date.UTC(2026, 0, 1) } as const;
    expect(skipGuard(past, [planQueueReset(past, { ...facts, searchedOffset: 50 })], nowMs)).toBeUndefined();
  });
});

describe('planQueueReset', () => {
  it('earliest is the min offset, latest the max offset', () => {
    expect(planQueueReset({ kind: 'earliest' }, facts).after).toBe(3);
    expect(planQueueReset({ kind: 'latest' }, facts).after).toBe(120);
  });

  it('a time lands where the broker search says, kept within [min, max]', () => {
    const to = { kind: 'time', timestampMs: 0 } as const;
    expect(planQueueReset(to, { ...facts, searchedOffset: 57 }).after).toBe(57);
    expect(planQueueReset(to, { ...facts, searchedOffset: 0 }).after).toBe(3);
    expect(planQueueReset(to, { ...facts, searchedOffset: 500 }).after).toBe(120);
    expect(planQueueReset(to, facts).refused).toMatch(/did not answer/);
  });

  it('an offset inside [min, max] is taken as is (both ends included)', () => {
    expect(planQueueReset({ kind: 'offset', offset: 3 }, facts).after).toBe(3);
    expect(planQueueReset({ kind: 'offset', offset: 120 }, facts).after).toBe(120);
    expect(planQueueReset({ kind: 'offset', offset: 50 }, facts)).toMatchObject({
      after: 50,
      committed: 118,
    });
  });

  it('an offset outside [min, max] is refused with the reason', () => {
    const below = planQueueReset({ kind: 'offset', offset: 2 }, facts);
    expect(below.after).toBeUndefined();
    expect(below.refused).toBe('offset 2 is below the min offset 3: older messages are no longer stored');
    const above = planQueueReset({ kind: 'offset', offset: 121 }, facts);
    expect(above.refused).toBe(
      "offset 121 is above the max offset 120 (the next message's): nothing is stored there",
    );
  });
});

describe('parseQueueSelector', () => {
  it('reads a queue id or broker:id', () => {
    expect(parseQueueSelector('3')).toEqual({ brokerName: undefined, queueId: 3 });
    expect(parseQueueSelector('broker-a:3')).toEqual({ brokerName: 'broker-a', queueId: 3 });
    expect(() => parseQueueSelector('a')).toThrow(InvalidArgumentError);
    expect(() => parseQueueSelector('broker-a:')).toThrow(InvalidArgumentError);
  });
});
