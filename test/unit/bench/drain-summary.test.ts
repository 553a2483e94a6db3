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
    cpuMsStartToLast: 100,
    cpuMsProcessToLast: 400,
    brokerCpuMs: 50,
    stealPercent: 30,
    cpuWindowMs: firstToLastMs + 100,
    brokerIdleCpuPercentOfCore: 10,
    peakRssBytes: 100 * MIB,
    peakHeapUsedBytes: 20 * MIB,
    peakArrayBuffersBytes: undefined,
    peakSample: undefined,
    pulledBytes: undefined,
    gcPauseMs: undefined,
    gcScavengePauseMs: undefined,
    gcMinorCount: undefined,
    gcMajorCount: undefined,
    bufferedMedian: undefined,
    bufferedMax: undefined,
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

  it("splits each node run's peak RSS sample into V8 heap, Buffers and the rest; none for Java", () => {
    const sampled = drainScenario(
      [contender('ours'), contender('java')],
      [1, 2, 3].flatMap((round) => [
        run('ours', round, 100, {
          peakSample: {
            rssBytes: (140 + round) * MIB,
            heapTotalBytes: 40 * MIB,
            arrayBuffersBytes: round * 10 * MIB,
          },
        }),
        run('java', round, 100),
      ]),
      new Map(),
      options,
    );
    const metricsOf = (id: string) => sampled.consumers.find((c) => c.id === id)?.metrics ?? {};
    expect(metricsOf('ours')[DRAIN_METRICS.peakSampleRss]?.values).toEqual([141, 142, 143]);
    expect(metricsOf('ours')[DRAIN_METRICS.peakSampleV8Heap]?.median).toBe(40);
    expect(metricsOf('ours')[DRAIN_METRICS.peakSampleArrayBuffers]?.values).toEqual([10, 20, 30]);
    // rest = RSS - heap - Buffers: 141-40-10, 142-40-20, 143-40-30
    expect(metricsOf('ours')[DRAIN_METRICS.peakSampleRest]?.values).toEqual([91, 82, 73]);
    expect(metricsOf('java')[DRAIN_METRICS.peakSampleRss]).toBeUndefined();
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

describe('drainScenario: CPU per message', () => {
  const contenders = [contender('ours'), contender('ours-function'), contender('java')];
  // 1000 messages a run: 1 ms of CPU is 1 µs per message.
  const runs = [
    run('ours', 1, 100, { warmup: true, cpuMsStartToLast: 9000, brokerCpuMs: 9000 }),
    run('ours', 1, 100, { cpuMsStartToLast: 50, brokerCpuMs: 30, stealPercent: 10 }),
    run('ours', 2, 100, { cpuMsStartToLast: 100, brokerCpuMs: 20, stealPercent: 40 }),
    run('ours', 3, 100, { cpuMsStartToLast: 200, brokerCpuMs: 40, stealPercent: 25 }),
    run('ours-function', 1, 100, { cpuMsStartToLast: 150, brokerCpuMs: 30 }),
    run('java', 1, 100, { cpuMsStartToLast: 400, cpuMsProcessToLast: 2000, brokerCpuMs: 60 }),
  ];
  const scenario = drainScenario(contenders, runs, new Map(), options);
  const metrics = (id: string) => scenario.consumers.find((c) => c.id === id)?.metrics ?? {};
  const ratioOf = (numerator: string, denominator: string, metric: string) =>
    scenario.ratios.find(
      (r) => r.numerator === numerator && r.denominator === denominator && r.metric === metric,
    );

  it("divides each run's CPU from start() to the last message by its messages, in µs", () => {
    expect(metrics('ours')[DRAIN_METRICS.cpuPerMessage]).toEqual({
      median: 100,
      min: 50,
      max: 200,
      values: [50, 100, 200],
    });
    expect(metrics('java')[DRAIN_METRICS.cpuProcessToLast]?.median).toBe(2000);
  });

  it("gives the broker's CPU per message and every run's steal", () => {
    expect(metrics('ours')[DRAIN_METRICS.brokerCpuPerMessage]?.values).toEqual([30, 20, 40]);
    expect(metrics('java')[DRAIN_METRICS.brokerCpuPerMessage]?.median).toBe(60);
    expect(metrics('ours')[DRAIN_METRICS.steal]?.values).toEqual([10, 40, 25]);
  });

  it("subtracts the broker's idle rate over the run's window", () => {
    const above = drainScenario(
      [contender('ours')],
      [run('ours', 1, 100, { brokerCpuMs: 80, brokerIdleCpuPercentOfCore: 25, cpuWindowMs: 200 })],
      new Map(),
      { ...options, rounds: 1 },
    ).consumers[0]?.metrics;
    // 80 ms - 25 % × 200 ms = 30 ms for 1000 messages.
    expect(above?.[DRAIN_METRICS.brokerCpuPerMessageAboveIdle]?.median).toBe(30);
    expect(above?.[DRAIN_METRICS.brokerIdleCpu]?.median).toBe(25);
  });

  it('compares ours and ours-function with Java and each other on CPU per message, lower better', () => {
    expect(ratioOf('ours', 'java', DRAIN_METRICS.cpuPerMessage)).toEqual({
      metric: DRAIN_METRICS.cpuPerMessage,
      numerator: 'ours',
      denominator: 'java',
      value: 0.25,
      higherIsBetter: false,
    });
    expect(ratioOf('ours-function', 'java', DRAIN_METRICS.cpuPerMessage)?.value).toBe(0.375);
    expect(ratioOf('ours-function', 'ours', DRAIN_METRICS.cpuPerMessage)?.value).toBe(1.5);
    expect(ratioOf('ours', 'java', DRAIN_METRICS.brokerCpuPerMessage)?.value).toBe(0.5);
  });

  it('has no broker figures or ratio with an external broker', () => {
    const external = drainScenario(
      contenders,
      runs.map((entry) => ({ ...entry, brokerCpuMs: undefined, brokerIdleCpuPercentOfCore: undefined })),
      new Map(),
      options,
    );
    for (const consumer of external.consumers) {
      expect(consumer.metrics[DRAIN_METRICS.brokerCpuPerMessage]).toBeUndefined();
      expect(consumer.metrics[DRAIN_METRICS.brokerCpuPerMessageAboveIdle]).toBeUndefined();
      expect(consumer.metrics[DRAIN_METRICS.cpuPerMessage]).toBeDefined();
    }
    expect(external.ratios.some((r) => r.metric === DRAIN_METRICS.brokerCpuPerMessage)).toBe(false);
  });
});

describe('drainScenario: GC pauses', () => {
  const contenders = [contender('ours'), contender('java')];
  // startToLastMs is firstToLastMs + 100: 1,000 ms here.
  const runs = [
    run('ours', 1, 900, { gcPauseMs: 60, gcScavengePauseMs: 45, gcMinorCount: 30, gcMajorCount: 2 }),
    run('java', 1, 900, { gcPauseMs: 10, gcMinorCount: 4, gcMajorCount: 0 }),
  ];
  const scenario = drainScenario(contenders, runs, new Map(), options);
  const metrics = (id: string) => scenario.consumers.find((c) => c.id === id)?.metrics ?? {};

  it('gives the pauses and their scavenges in % of start() to the last message', () => {
    expect(metrics('ours')[DRAIN_METRICS.gcPauseShare]?.median).toBeCloseTo(6, 9);
    expect(metrics('ours')[DRAIN_METRICS.gcScavengeShare]?.median).toBeCloseTo(4.5, 9);
    expect(metrics('ours')[DRAIN_METRICS.gcMinorCount]?.median).toBe(30);
  });

  it('has no scavenge share for a child that does not split its pauses (the JVM)', () => {
    expect(metrics('java')[DRAIN_METRICS.gcPauseShare]?.median).toBeCloseTo(1, 9);
    expect(metrics('java')[DRAIN_METRICS.gcScavengeShare]).toBeUndefined();
  });
});
