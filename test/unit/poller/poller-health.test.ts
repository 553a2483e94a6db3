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
    expect(assessPollerHealth(runtimes, false, 0)).toEqual({ healthy: true, problems: [] });
  });

  it("lists every mapping's problems, each prefixed with the mapping name, asked at the given time", () => {
    const askedAt: number[] = [];
    const runtimes = new Map([
      ['orders', runtime(['no pull for 90 s', 'offset store failing'], askedAt)],
      ['audit', runtime([], askedAt)],
      ['billing', runtime(['fatal: function not found'], askedAt)],
    ]);
    expect(assessPollerHealth(runtimes, false, 1234)).toEqual({
      healthy: false,
      problems: [
        'orders: no pull for 90 s',
        'orders: offset store failing',
        'billing: fatal: function not found',
      ],
    });
    expect(askedAt).toEqual([1234, 1234, 1234]);
  });

  it('is unhealthy while stopping, whatever the mappings say', () => {
    const runtimes = new Map([['orders', runtime([])]]);
    expect(assessPollerHealth(runtimes, true, 0)).toEqual({
      healthy: false,
      problems: ['the poller is stopping'],
    });
  });
});
