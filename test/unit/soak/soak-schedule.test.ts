import { describe, expect, it } from 'vitest';
import {
  clock,
  formatSchedule,
  planSoakSchedule,
  SOAK_FAULT_DURATIONS,
  SOAK_FAULT_KINDS,
} from '../../support/soak/soak-schedule.js';

const HOUR_MS = 60 * 60_000;

describe('planSoakSchedule', () => {
  it('gives the same schedule for the same seed and another for another seed', () => {
    const a = planSoakSchedule({ seed: 42, runMs: HOUR_MS });
    expect(planSoakSchedule({ seed: 42, runMs: HOUR_MS })).toEqual(a);
    expect(planSoakSchedule({ seed: 43, runMs: HOUR_MS })).not.toEqual(a);
  });

  it('spaces fault starts 30-90 s apart, the first 30-90 s in, all before the end of the run', () => {
    for (const seed of [0, 1, 2, 99, 123_456]) {
      const faults = planSoakSchedule({ seed, runMs: HOUR_MS });
      let previous = 0;
      for (const fault of faults) {
        expect(fault.startMs - previous).toBeGreaterThanOrEqual(30_000);
        expect(fault.startMs - previous).toBeLessThanOrEqual(90_000);
        expect(fault.startMs).toBeLessThan(HOUR_MS);
        previous = fault.startMs;
      }
      expect(faults.map((f) => f.index)).toEqual(faults.map((_, i) => i + 1));
      // An hour holds 40-120 gaps; the last partial one may hold no fault.
      expect(faults.length).toBeGreaterThanOrEqual(39);
      expect(faults.length).toBeLessThanOrEqual(120);
    }
  });

  it("draws each fault's duration from its kind's range and targets within the cluster and poller slots", () => {
    const faults = planSoakSchedule({ seed: 5, runMs: 10 * HOUR_MS, brokerGroups: 2, pollerSlots: 3 });
    for (const fault of faults) {
      const [min, max] = SOAK_FAULT_DURATIONS[fault.kind];
      expect(fault.durationMs).toBeGreaterThanOrEqual(min);
      expect(fault.durationMs).toBeLessThanOrEqual(max);
      expect(fault.target).toBeGreaterThanOrEqual(0);
      expect(fault.target).toBeLessThanOrEqual(2);
      if (fault.kind === 'master-sigkill' || fault.kind === 'slave-sigkill')
        expect(fault.target).toBeLessThan(2);
    }
  });

  it('reaches every kind of fault', () => {
    const seen = new Set(planSoakSchedule({ seed: 7, runMs: 10 * HOUR_MS }).map((f) => f.kind));
    expect([...seen].sort()).toEqual([...SOAK_FAULT_KINDS].sort());
  });

  it('honours a narrower gap and a subset of kinds (the short CI soak)', () => {
    const faults = planSoakSchedule({
      seed: 3,
      runMs: 60_000,
      gapMs: [10_000, 20_000],
      kinds: ['poller-sigkill', 'lambda-errors'],
    });
    expect(faults.length).toBeGreaterThanOrEqual(2);
    for (const fault of faults) expect(['poller-sigkill', 'lambda-errors']).toContain(fault.kind);
  });

  it('refuses a bad seed, run length, gap or an empty kind list, naming what is wrong', () => {
    expect(() => planSoakSchedule({ seed: -1, runMs: 1000 })).toThrow(
      /seed must be a non-negative integer, not -1/,
    );
    expect(() => planSoakSchedule({ seed: 1.5, runMs: 1000 })).toThrow(/seed/);
    expect(() => planSoakSchedule({ seed: 1, runMs: 0 })).toThrow(/run length must be a positive/);
    expect(() => planSoakSchedule({ seed: 1, runMs: 1000, gapMs: [5, 1] })).toThrow(
      /gap must be 0 < min <= max/,
    );
    expect(() => planSoakSchedule({ seed: 1, runMs: 1000, kinds: [] })).toThrow(/at least one fault kind/);
  });

  it('formats the schedule one line per fault', () => {
    expect(clock(107_000)).toBe('01:47');
    const lines = formatSchedule([
      { index: 3, kind: 'master-sigkill', startMs: 107_000, durationMs: 12_000, target: 1 },
    ]);
    expect(lines).toEqual(['#3 +01:47 master-sigkill target 1 for 12.0 s']);
  });
});
