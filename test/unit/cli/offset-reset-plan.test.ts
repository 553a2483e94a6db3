import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseQueueSelector, parseResetTo } from '../../../src/cli/offsets-reset-command.js';
import { planQueueReset } from '../../../src/operations/offset-reset-plan.js';

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
    expect(() => parseResetTo('soon')).toThrow(/earliest, latest, an ISO time .* or an offset/);
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
