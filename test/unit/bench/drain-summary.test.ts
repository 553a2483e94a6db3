import { describe, expect, it } from 'vitest';
import type { DrainContender, DrainRun } from '../../../bench/drain-race.js';
import { DRAIN_METRICS, drainScenario } from '../../../bench/drain-summary.js';

const MIB = 1024 * 1024;

function contender(id: string, builtin = true): DrainContender {
  return { id, label: `${id} label`, builtin, launch: () => ({ command: 'true', args: [] }) };
}

function run(id: string, round: number, firstToLastMs: number, extra: Partial<DrainRun> = {}): DrainRun {
  return {
    id,
    round,
    warmup: false,
    received: 1000,
    startToFirstMs: 100,
    startToLastMs: firstToLastMs + 100,
    firstToLastMs,
    peakRssBytes: 100 * MIB,
    peakHeapUsedBytes: 20 * MIB,
    peakArrayBuffersBytes: undefined,
    pulledBytes: undefined,
    rssSeries: Array.from({ length: 11 }, (_, i) => [i * 200, (90 + round) * MIB] as const),
    wallMs: firstToLastMs + 500,
    ...extra,
  };
}

const options = { messages: 1000, messageBytes: 1024, queues: 8, rounds: 3, warmupRounds: 1 };

describe('drainScenario', () => {
  const contenders = [
    contender('ours'),
    contender('java'),
    contender('raw-pull'),
    contender('ali-ons', false),
  ];
  const runs = [
    run('ours', 1, 1000, { warmup: true }),
    run('ours', 1, 100),
    run('ours', 2, 200),
    run('ours', 3, 400),
    run('java', 1, 500),
    run('java', 2, 500),
    run('java', 3, 500),
    run('raw-pull', 1, 100, { pulledBytes: 2 * MIB }),
    run('raw-pull', 2, 100, { pulledBytes: 2 * MIB }),
    run('raw-pull', 3, 100, { pulledBytes: 2 * MIB }),
  ];
  const scenario = drainScenario(
    contenders,
    runs,
    new Map([['ali-ons', 'prepare() failed: no npm']]),
    options,
  );

  it('reports median, min and max over the measured rounds, warm-ups left out', () => {
    const ours = scenario.consumers.find((c) => c.id === 'ours');
    expect(ours?.metrics[DRAIN_METRICS.firstToAll]).toEqual({
      median: 5000,
      min: 2500,
      max: 10_000,
      values: [10_000, 5000, 2500],
    });
    expect(ours?.metrics[DRAIN_METRICS.peakRss]?.median).toBe(100);
  });

  it("keeps the median run's RSS series in MiB and the raw PULL limit's wire rate", () => {
    const ours = scenario.consumers.find((c) => c.id === 'ours');
    expect(ours?.series?.rssMiBOverTimeMs?.[0]).toEqual([0, 92]);
    const raw = scenario.consumers.find((c) => c.id === 'raw-pull');
    expect(raw?.metrics[DRAIN_METRICS.wireMibFirstToAll]?.median).toBe(20);
  });

  it('puts a peer that could not run as an error without metrics', () => {
    expect(scenario.consumers.find((c) => c.id === 'ali-ons')).toEqual({
      id: 'ali-ons',
      label: 'ali-ons label',
      metrics: {},
      error: 'prepare() failed: no npm',
    });
  });

  it('gives ours / Java and ours / raw-pull, skipping pairs without figures', () => {
    const pairs = scenario.ratios.map((r) => `${r.numerator}/${r.denominator}:${r.metric}`);
    expect(pairs).toContain(`ours/java:${DRAIN_METRICS.firstToAll}`);
    expect(pairs).toContain(`ours/raw-pull:${DRAIN_METRICS.firstToAll}`);
    expect(pairs.some((pair) => pair.includes('ali-ons'))).toBe(false);
    const limit = scenario.ratios.find((r) => r.denominator === 'raw-pull' && r.numerator === 'ours');
    expect(limit?.value).toBe(0.5);
  });
});
