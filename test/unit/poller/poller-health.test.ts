import { describe, expect, it } from 'vitest';
import { assessPollerHealth, type HealthAssessed } from '../../../src/poller/poller-health.js';

/** A runtime whose verdict lists `problems`, recording the time it was asked at. */
function runtime(problems: string[], askedAt: number[] = []): HealthAssessed {
  return {
    health(nowMs) {
      askedAt.push(nowMs);
      return { problems };
    },
  };
}

describe('assessPollerHealth', () => {
  it('is healthy when no mapping has a problem', () => {
    const runtimes = new Map([
      ['orders', runtime([])],
      ['audit', runtime([])],
    ]);
    expect(assessPollerHealth(runtimes, false, 0)).toMatchObject({ healthy: true, problems: [] });
  });

  it("lists every mapping's problems, each prefixed with the mapping name, asked at the given time", () => {
    const askedAt: number[] = [];
    const runtimes = new Map([
      ['orders', runtime(['no pull for 90 s', 'offset store failing'], askedAt)],
      ['audit', runtime([], askedAt)],
      ['billing', runtime(['fatal: function not found'], askedAt)],
    ]);
    expect(assessPollerHealth(runtimes, false, 1234)).toMatchObject({
      healthy: false,
      problems: [
        'orders: no pull for 90 s',
        'orders: offset store failing',
        'billing: fatal: function not found',
      ],
    });
    expect(askedAt).toEqual([1234, 1234, 1234]);
  });

  it("gives each mapping's verdict and consume state, so a waiting standby reads healthy and a missing topic names it", () => {
    const since = Date.parse('2026-12-06T03:00:00.000Z');
    const runtimes = new Map<string, HealthAssessed>([
      [
        'standby',
        {
          health: () => ({
            healthy: true,
            problems: [],
            state: {
              state: 'waiting',
              reason: 'standby: group G has 3 members for the 2 queue(s) of topic T',
              sinceMs: since,
            },
          }),
        },
      ],
      [
        'orders',
        {
          health: () => ({
            healthy: false,
            problems: ['cannot consume (topic_missing) for 31 s: topic Orders does not exist'],
            state: { state: 'topic_missing', reason: 'topic Orders does not exist', sinceMs: since },
          }),
        },
      ],
    ]);
    expect(assessPollerHealth(runtimes, false, since + 31_000)).toEqual({
      healthy: false,
      problems: ['orders: cannot consume (topic_missing) for 31 s: topic Orders does not exist'],
      mappings: [
        {
          mapping: 'standby',
          healthy: true,
          state: 'waiting',
          reason: 'standby: group G has 3 members for the 2 queue(s) of topic T',
          since: '2026-12-06T03:00:00.000Z',
          problems: [],
        },
        {
          mapping: 'orders',
          healthy: false,
          state: 'topic_missing',
          reason: 'topic Orders does not exist',
          since: '2026-12-06T03:00:00.000Z',
          problems: ['cannot consume (topic_missing) for 31 s: topic Orders does not exist'],
        },
      ],
    });
  });

  it('is unhealthy while stopping, whatever the mappings say', () => {
    const runtimes = new Map([['orders', runtime([])]]);
    expect(assessPollerHealth(runtimes, true, 0)).toEqual({
      healthy: false,
      problems: ['the poller is stopping'],
    });
  });
});
