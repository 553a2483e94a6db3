import { describe, expect, it } from 'vitest';
import { parseBenchOptions } from '../../../bench/bench-options.js';
import { type BenchResults, stats } from '../../../bench/bench-results.js';
import type { DrainRun } from '../../../bench/drain-race.js';
import { DRAIN_METRICS } from '../../../bench/drain-summary.js';
import { fmtStats, renderReport } from '../../../bench/report.js';

const results: BenchResults = {
  schemaVersion: 1,
  date: '2026-12-01T00:00:00.000Z',
  command: 'npm run bench',
  quick: false,
  machine: { cpus: 2, cpuModel: 'test CPU', memoryMiB: 24_000, loadAverage: { start: 1.5, end: 3.25 } },
  versions: { node: 'v20.20.2', 'ali-ons': '3.12.0' },
  scenarios: [
    {
      id: 'drain',
      title: 'Drain a backlog',
      workload: '1,000,000 messages',
      runs: 3,
      consumers: [
        {
          id: 'ours',
          label: 'ours label',
          metrics: {
            [DRAIN_METRICS.firstToAll]: stats([90_000, 80_000, 85_000]),
            [DRAIN_METRICS.rssSecondHalfMedian]: stats([100, 100, 100]),
            [DRAIN_METRICS.rssPeakOverSecondHalfMedian]: stats([1.05, 1.02, 1.1]),
            [DRAIN_METRICS.rssSecondHalfGrowth]: stats([0.5, 1, 0]),
            [DRAIN_METRICS.cpuPerMessage]: stats([21.5, 20, 23]),
            [DRAIN_METRICS.brokerCpuPerMessage]: stats([12, 11, 13]),
            [DRAIN_METRICS.brokerIdleCpu]: stats([20, 20, 20]),
            [DRAIN_METRICS.brokerCpuPerMessageAboveIdle]: stats([2, 1, 3]),
            [DRAIN_METRICS.cpuProcessToLast]: stats([9000, 8000, 10_000]),
            [DRAIN_METRICS.steal]: stats([30, 25, 35]),
            [DRAIN_METRICS.gcPauseShare]: stats([4.5, 4, 5]),
            [DRAIN_METRICS.gcPausePerMessage]: stats([0.9, 0.8, 1]),
            [DRAIN_METRICS.gcScavengeShare]: stats([3.5, 3, 4]),
            [DRAIN_METRICS.gcMinorCount]: stats([40, 38, 42]),
            [DRAIN_METRICS.gcMajorCount]: stats([12, 12, 12]),
            [DRAIN_METRICS.bufferedMedian]: stats([64, 32, 96]),
            [DRAIN_METRICS.bufferedMax]: stats([224, 224, 224]),
            [DRAIN_METRICS.peakSampleRss]: stats([150, 140, 160]),
            [DRAIN_METRICS.peakSampleV8Heap]: stats([45, 40, 50]),
            [DRAIN_METRICS.peakSampleArrayBuffers]: stats([50, 40, 60]),
            [DRAIN_METRICS.peakSampleRest]: stats([55, 55, 55]),
          },
        },
        {
          id: 'raw-pull',
          label: 'raw label',
          metrics: {
            [DRAIN_METRICS.firstToAll]: stats([100_000, 100_000, 100_000]),
            [DRAIN_METRICS.mibFirstToAll]: stats([97.7, 97.7, 97.7]),
          },
        },
        { id: 'ali-ons', label: 'ali-ons label', metrics: {}, error: 'prepare() failed: no registry' },
      ],
      ratios: [
        {
          metric: DRAIN_METRICS.firstToAll,
          numerator: 'ours',
          denominator: 'raw-pull',
          value: 0.85,
          higherIsBetter: true,
        },
        {
          metric: DRAIN_METRICS.cpuPerMessage,
          numerator: 'ours',
          denominator: 'java',
          value: 0.4,
          higherIsBetter: false,
        },
      ],
    },
    {
      id: 'offset-writes',
      title: 'Offset writes',
      workload: 'w',
      runs: 1,
      consumers: [],
      ratios: [],
      error: 'dynalite did not start',
    },
  ],
};

const drainRun: DrainRun = {
  id: 'ours',
  round: 1,
  warmup: false,
  received: 2000,
  startToFirstMs: 50,
  startToLastMs: 1050,
  firstToLastMs: 1000,
  cpuMsStartToLast: 43,
  cpuMsProcessToLast: 400,
  brokerCpuMs: 25,
  stealPercent: 31.4,
  cpuWindowMs: 1050,
  brokerIdleCpuPercentOfCore: 22.4,
  peakRssBytes: 100 * 1024 * 1024,
  peakHeapUsedBytes: 20 * 1024 * 1024,
  peakArrayBuffersBytes: undefined,
  peakSample: undefined,
  pulledBytes: undefined,
  gcPauseMs: undefined,
  gcScavengePauseMs: undefined,
  gcMinorCount: undefined,
  gcMajorCount: undefined,
  bufferedMedian: undefined,
  bufferedMax: undefined,
  rssSeries: [],
  wallMs: 2000,
};

describe('renderReport', () => {
  const markdown = renderReport({
    results,
    options: parseBenchOptions([], {}),
    brokerDescription: 'local',
    drainRuns: [drainRun],
    produceMs: 40_000,
    timings: [
      ['produce', 40],
      ['drain race', 612.34],
    ],
    charts: ['latest-throughput.png'],
  });

  it('states the load at both ends, the versions and how long producing took', () => {
    expect(markdown).toContain('load average 1.5 at the start, 3.25 at the end');
    expect(markdown).toContain('ali-ons 3.12.0');
    expect(markdown).toContain('1,000,000 messages produced in 40.0 s');
    expect(markdown).toContain('- Time: produce 40.0 s; drain race 612.3 s');
  });

  it('shows the raw PULL limit and ours against the 0.8 target', () => {
    expect(markdown).toContain('100,000 msgs/s, 97.7 MiB/s');
    expect(markdown).toContain('ours / raw-pull: **0.85×** (target ≥ 0.8: meets)');
  });

  it('gives medians with min–max, RSS verdicts, failed peers and failed scenarios', () => {
    expect(markdown).toContain('| 85,000 (80,000–90,000) |');
    expect(markdown).toMatch(/\| ours \| 100\.0 \| 1\.05 \(1\.02–1\.10\) \| 0\.5 \(0\.0–1\.0\) \| flat \|/);
    expect(markdown).toContain('**ali-ons did not run:** prepare() failed: no registry');
    expect(markdown).toContain('**Failed:** dynalite did not start');
    expect(markdown).toContain('![latest-throughput.png](latest-throughput.png)');
  });
});

describe('renderReport: CPU per message', () => {
  const render = (input: BenchResults, drainRuns: readonly DrainRun[]): string =>
    renderReport({
      results: input,
      options: parseBenchOptions([], {}),
      brokerDescription: 'local',
      drainRuns,
      produceMs: undefined,
      timings: [],
      charts: [],
    });
  const markdown = render(results, [drainRun]);

  it("says why it is there and gives each consumer's and the broker's CPU per message", () => {
    expect(markdown).toContain('### CPU per message');
    expect(markdown).toContain('CPU per message stays steady');
    expect(markdown).toContain(
      '| ours | 21.5 (20.0–23.0) | 12.0 (11.0–13.0) | 20.0 | 2.0 (1.0–3.0) | 9,000 (8,000–10,000) | 30.0 (25.0–35.0) |',
    );
  });

  it('lists the CPU ratio, lower better, and every run with its CPU, broker CPU and steal', () => {
    expect(markdown).toContain(`| ours / java | ${DRAIN_METRICS.cpuPerMessage} | 0.40× | < 1 |`);
    // 43 ms / 2000 messages = 21.5 µs; 25 ms / 2000 = 12.5 µs.
    expect(markdown).toMatch(/\| 1 \| ours \| 2,000 \| .* \| 2,000 \| 21\.5 \| 12\.5 \| 22 % \| 31 % \|/);
  });

  it('says when the broker was not measured (an external broker)', () => {
    const drain = results.scenarios[0];
    if (drain === undefined) throw new Error('no drain scenario in the fixture');
    const external: BenchResults = {
      ...results,
      scenarios: [
        {
          ...drain,
          consumers: drain.consumers.map((consumer) => {
            const {
              [DRAIN_METRICS.brokerCpuPerMessage]: _broker,
              [DRAIN_METRICS.brokerIdleCpu]: _idle,
              [DRAIN_METRICS.brokerCpuPerMessageAboveIdle]: _above,
              ...metrics
            } = consumer.metrics;
            return { ...consumer, metrics };
          }),
        },
      ],
    };
    const text = render(external, [
      { ...drainRun, brokerCpuMs: undefined, brokerIdleCpuPercentOfCore: undefined },
    ]);
    expect(text).toContain('Broker CPU: not measured (an external broker');
    expect(text).toMatch(/\| 21\.5 \| — \| — \| 31 % \|/);
  });
});

describe('renderReport: GC pauses, buffered messages and the peak RSS by part', () => {
  const markdown = renderReport({
    results,
    options: parseBenchOptions([], {}),
    brokerDescription: 'local',
    drainRuns: [drainRun],
    produceMs: undefined,
    timings: [],
    charts: [],
  });

  it('gives the GC pauses and the buffered messages of each consumer that reports them', () => {
    expect(markdown).toContain('### GC pauses and buffered messages');
    expect(markdown).toContain(
      '| ours | 4.5 (4.0–5.0) | 3.5 (3.0–4.0) | 0.9 (0.8–1.0) | 40 (38–42) | 12 | 64 (32–96) | 224 |',
    );
    // raw-pull's result has no GC figures: no row rather than a row of dashes.
    expect(markdown).not.toMatch(/\| raw-pull \| — \| — \| — \| — \| — \|/);
  });

  it('splits the peak sample of each node consumer into V8 heap, Buffers outside it and the rest', () => {
    expect(markdown).toContain('### What the peak RSS is made of');
    expect(markdown).toContain('| ours | 150.0 (140.0–160.0) | 45.0 (40.0–50.0) | 50.0 (40.0–60.0) | 55.0 |');
    // raw-pull sent no sample here: no row of dashes.
    expect(markdown).not.toMatch(/\| raw-pull \| — \| — \| — \| — \|/);
  });
});

describe('fmtStats', () => {
  it('formats by the unit in the name and leaves out a min–max of one value', () => {
    expect(fmtStats(stats([1500, 2500, 2000]), 'latencyP99Ms')).toBe('2,000 ms (1,500 ms–2,500 ms)');
    // Latencies in µs near 1 ms keep two decimals; whole ms (an older run's) keep one.
    expect(fmtStats(stats([1.324, 1.243, 1.34]), 'latencyP50Ms')).toBe('1.32 ms (1.24 ms–1.34 ms)');
    expect(fmtStats(stats([2]), 'latencyP50Ms')).toBe('2.0 ms');
    expect(fmtStats(stats([12]), 'updateItemsTotal')).toBe('12');
    expect(fmtStats(undefined, 'x')).toBe('—');
    expect(fmtStats(stats([1290, 12.25]), DRAIN_METRICS.cpuPerMessage)).toBe('651.1 (12.3–1,290.0)');
  });
});
