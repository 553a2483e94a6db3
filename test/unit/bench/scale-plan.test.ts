import { describe, expect, it } from 'vitest';
import { BENCH_DEFAULTS, BenchUsageError, parseBenchOptions } from '../../../bench/bench-options.js';
import { scaleCases, scalePlan } from '../../../bench/scale-plan.js';

describe('scaleCases', () => {
  it('runs the baseline, the mapping counts on small topics and the wide topic cases', () => {
    const cases = scaleCases(scalePlan(false));
    expect(cases.map((c) => [c.id, c.mappings.length, c.queues, c.idle, c.drain])).toEqual([
      ['baseline', 0, 0, false, false],
      ['mappings-1', 1, 8, true, false],
      ['mappings-10', 10, 80, true, false],
      ['mappings-50', 50, 400, true, true],
      ['wide-1', 1, 64, false, false],
      ['wide-10', 10, 640, true, false],
    ]);
    const fifty = cases.find((c) => c.id === 'mappings-50');
    expect(new Set(fifty?.mappings.map((m) => (m.topic.kind === 'small' ? m.topic.index : -1))).size).toBe(
      50,
    );
    expect(cases.find((c) => c.id === 'wide-10')?.mappings.every((m) => m.topic.kind === 'wide')).toBe(true);
  });

  it('keeps the quick plan tiny', () => {
    const plan = scalePlan(true);
    expect(plan.idleMs).toBeLessThanOrEqual(5000);
    expect(scaleCases(plan).map((c) => c.id)).toEqual(['baseline', 'mappings-1', 'mappings-3', 'wide-1']);
  });

  it('refuses a wide count without a small-topic case to compare with', () => {
    expect(() => scaleCases({ ...scalePlan(true), wideMappingCounts: [2] })).toThrow(/wide mapping count 2/);
  });
});

describe('parseBenchOptions --only scale', () => {
  it('has its own runs, broker heap and results file, and no decode part', () => {
    const full = parseBenchOptions(['--only', 'scale'], {});
    expect(full).toMatchObject({
      only: 'scale',
      rounds: BENCH_DEFAULTS.scale.full.rounds,
      brokerHeapMb: BENCH_DEFAULTS.scale.brokerHeapMb,
      decode: false,
      outFile: BENCH_DEFAULTS.scale.full.outFile,
    });
    const quick = parseBenchOptions(['--only=scale', '--quick'], {});
    expect(quick).toMatchObject({ quick: true, rounds: 1, outFile: BENCH_DEFAULTS.scale.quick.outFile });
    expect(
      parseBenchOptions(['--only', 'scale', '--rounds', '5', '--broker-heap-mb', '384'], {}),
    ).toMatchObject({
      rounds: 5,
      brokerHeapMb: 384,
    });
  });

  it('still defaults the other parts as before', () => {
    expect(parseBenchOptions([], {})).toMatchObject({
      only: undefined,
      rounds: 3,
      brokerHeapMb: 512,
      decode: true,
    });
  });

  it('names the parts it knows when --only is unknown', () => {
    expect(() => parseBenchOptions(['--only', 'scales'], {})).toThrow(BenchUsageError);
    expect(() => parseBenchOptions(['--only', 'scales'], {})).toThrow(/decode, scale/);
  });
});
