import { describe, expect, it } from 'vitest';
import { parseBenchOptions } from '../../../bench/bench-options.js';
import { type BenchResults, stats } from '../../../bench/bench-results.js';
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

describe('renderReport', () => {
  const markdown = renderReport({
    results,
    options: parseBenchOptions([], {}),
    brokerDescription: 'local',
    drainRuns: [],
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

describe('fmtStats', () => {
  it('formats by the unit in the name and leaves out a min–max of one value', () => {
    expect(fmtStats(stats([1500, 2500, 2000]), 'latencyP99Ms')).toBe('2,000 ms (1,500 ms–2,500 ms)');
    expect(fmtStats(stats([12]), 'updateItemsTotal')).toBe('12');
    expect(fmtStats(undefined, 'x')).toBe('—');
  });
});
