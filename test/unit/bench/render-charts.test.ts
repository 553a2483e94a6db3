import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BenchResults, stats } from '../../../bench/bench-results.js';
import { chartSpecs } from '../../../bench/chart-specs.js';
import { renderCharts } from '../../../bench/render-charts.js';

const results: BenchResults = {
  schemaVersion: 1,
  date: '2026-12-01T00:00:00.000Z',
  command: 'npm run bench',
  quick: false,
  machine: { cpus: 2, cpuModel: 'test', memoryMiB: 1024, loadAverage: { start: 1, end: 2 } },
  versions: { node: 'v20' },
  scenarios: [
    {
      id: 'drain',
      title: 'Drain',
      workload: 'w',
      runs: 2,
      consumers: [
        {
          id: 'ours',
          label: 'ours',
          metrics: { msgsPerSecFirstToAll: stats([50_000, 60_000]) },
          series: {
            rssMiBOverTimeMs: [
              [0, 80],
              [200, 100],
              [400, 101],
            ],
          },
        },
        { id: 'java', label: 'java', metrics: { msgsPerSecFirstToAll: stats([30_000, 31_000]) } },
      ],
      ratios: [],
    },
    {
      id: 'latency-1000',
      title: 'Latency',
      workload: 'w',
      runs: 1,
      consumers: [
        { id: 'ours', label: 'ours', metrics: { latencyP50Ms: stats([3]), latencyP99Ms: stats([9]) } },
      ],
      ratios: [],
    },
  ],
};

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('chartSpecs', () => {
  it('takes throughput with min-max, p50/p99 of latency* metrics and the RSS series from the results', () => {
    const [throughput, latency, rss] = chartSpecs(results);
    expect(JSON.stringify(throughput?.spec)).toContain('"min":50000');
    expect(JSON.stringify(latency?.spec)).toMatch(/"percentile":"p99","ms":9/);
    expect(JSON.stringify(rss?.spec)).toContain('"seconds":0.4');
  });

  it('says so in the chart when the results have no latency scenario', () => {
    const [, latency] = chartSpecs({ ...results, scenarios: [] });
    expect(JSON.stringify(latency?.spec)).toContain('no latency scenario');
  });
});

describe('renderCharts', () => {
  it('writes three PNG files named after the prefix', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-charts-'));
    dirs.push(dir);
    const files = await renderCharts(results, join(dir, 'latest'));
    expect(files.map((file) => file.slice(dir.length + 1))).toEqual([
      'latest-throughput.png',
      'latest-latency.png',
      'latest-rss.png',
    ]);
    for (const file of files) {
      expect((await readFile(file)).subarray(1, 4).toString('latin1')).toBe('PNG');
    }
  }, 60_000);
});
