import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../../bench/bench-results.js';
import { stats } from '../../../bench/bench-results.js';
import { type BenchCheck, benchSummary, SUMMARY_FIELDS } from '../../../bench/bench-summary.js';

/** A scenario whose consumers carry the given metrics, each as its runs. */
function scenario(id: string, consumers: Record<string, Record<string, number[]>>): ScenarioResult {
  return {
    id,
    title: 't',
    workload: 'w',
    runs: 3,
    consumers: Object.entries(consumers).map(([consumerId, metrics]) => ({
      id: consumerId,
      label: consumerId,
      metrics: Object.fromEntries(Object.entries(metrics).map(([name, values]) => [name, stats(values)])),
    })),
    ratios: [],
  };
}

/** A flat RSS series' figures (median, peak / median, growth). */
const FLAT = {
  rssSecondHalfMedianMiB: [120],
  rssPeakOverSecondHalfMedian: [1.05],
  rssSecondHalfGrowthMiB: [1],
};

/** A whole run's scenarios: every input of every field and check. */
function fullRun(): ScenarioResult[] {
  return [
    scenario('drain', {
      ours: { msgsPerSecFirstToAll: [250_000], cpuUsPerMsgStartToLast: [3.5], peakRssMiB: [125], ...FLAT },
      'ours-function': {
        msgsPerSecFirstToAll: [150_000, 160_000, 140_000],
        cpuUsPerMsgStartToLast: [6],
        gcPausePercentStartToLast: [2, 2.5, 1.5],
        peakRssMiB: [136],
        ...FLAT,
      },
      java: {
        msgsPerSecFirstToAll: [100_000],
        cpuUsPerMsgStartToLast: [14, 15, 16],
        peakRssMiB: [300],
        ...FLAT,
      },
      'raw-pull': { msgsPerSecFirstToAll: [300_000] },
    }),
    scenario('decode-1-kib', { ours: { msgsPerSec: [2] }, java: { msgsPerSec: [1] } }),
    scenario('decode-64-b', { ours: { msgsPerSec: [0.9] }, java: { msgsPerSec: [1] } }),
    scenario('latency-1000-window-0', {
      'ours-function': { latencyP50Ms: [2], latencyP99Ms: [4] },
      java: { latencyP50Ms: [2], latencyP99Ms: [5] },
    }),
    scenario('latency-5000-window-0', {
      'ours-function': { latencyP50Ms: [2], latencyP99Ms: [4] },
      java: { latencyP50Ms: [3], latencyP99Ms: [6] },
    }),
    scenario('http-invoke-batch-100', {
      'ours-lambda-http': {
        cpuMsPerInvoke: [3, 2.5, 4],
        cpuUsPerMsgStartToLast: [12, 13, 11],
        gcPausePercentStartToLast: [4],
      },
      'floor-signed-http': { cpuMsPerInvoke: [1.5, 1.4, 2] },
      'ours-function': { cpuMsPerInvoke: [1, 0.9, 1.2] },
    }),
    scenario('http-invoke-batch-1000', {
      'ours-lambda-http': { cpuMsPerInvoke: [30] },
      'floor-signed-http': { cpuMsPerInvoke: [25] },
      'ours-function': { cpuMsPerInvoke: [20] },
    }),
    scenario('per-vcpu-batch-100', {
      'ours-lambda-http-1-vcpu': {
        msgsPerSecFirstToAll: [20_000, 22_000, 21_000],
        msgsPerCpuSec: [25_000, 24_000, 26_000],
        peakRssMiB: [140],
      },
    }),
    scenario('per-vcpu-batch-1000', {
      'ours-lambda-http-1-vcpu': {
        msgsPerSecFirstToAll: [30_000],
        msgsPerCpuSec: [40_000],
        peakRssMiB: [180],
      },
    }),
  ];
}

function check(checks: readonly BenchCheck[], id: string): BenchCheck {
  const found = checks.find((entry) => entry.id === id);
  if (found === undefined) throw new Error(`no check ${id} in ${checks.map((entry) => entry.id).join(', ')}`);
  return found;
}

describe('benchSummary', () => {
  it('computes every field from the medians of the run', () => {
    const { summary, missing } = benchSummary(fullRun());
    expect(summary).toEqual({
      httpInvokeOverheadCpuMsPer100: 2,
      httpInvokeFloorCpuMsPer100: 0.5,
      httpInvokeOverheadCpuMsPer1000: 10,
      httpInvokeFloorCpuMsPer1000: 5,
      productionPathCpuUsPerMsg: 12,
      javaCpuUsPerMsg: 15,
      productionPathVsJavaCpuPerMsg: 0.8,
      gcPausePctFunctionPath: 2,
      gcPausePctLambdaPath: 4,
      functionPathVsJavaFirstToAll: 1.5,
      perVcpuMsgsPerSecBatch100: 25_000,
      perVcpuMsgsPerSecBatch1000: 40_000,
      perVcpuWallMsgsPerSecBatch100: 21_000,
      perVcpuWallMsgsPerSecBatch1000: 30_000,
      perVcpuPeakRssMiBBatch100: 140,
      perVcpuPeakRssMiBBatch1000: 180,
    });
    expect(Object.keys(summary)).toEqual([...SUMMARY_FIELDS]);
    expect(missing).toEqual({});
  });

  it('judges the targets and guards on the same figures', () => {
    const { checks } = benchSummary(fullRun());
    expect(check(checks, 'http-invoke-overhead')).toMatchObject({ value: 2, limit: '<= 0.8', pass: false });
    expect(check(checks, 'production-path-cpu')).toMatchObject({ value: 0.8, pass: true });
    expect(check(checks, 'gc-function-path')).toMatchObject({ value: 2, pass: true });
    expect(check(checks, 'gc-lambda-path')).toMatchObject({ value: 4, pass: false });
    expect(check(checks, 'function-vs-java-msgs')).toMatchObject({ value: 1.5, limit: '>= 1.5', pass: true });
    expect(check(checks, 'function-vs-java-cpu')).toMatchObject({ value: 0.4, pass: true });
    expect(check(checks, 'decoder-vs-java-1-kib')).toMatchObject({ value: 2, pass: true });
    expect(check(checks, 'decoder-vs-java-64-b')).toMatchObject({ value: 0.9, pass: false });
    expect(check(checks, 'bare-vs-raw-pull')).toMatchObject({ value: 0.833, pass: true });
    expect(check(checks, 'latency-p50-1000')).toMatchObject({ value: 1, limit: '<= 1', pass: true });
    expect(check(checks, 'latency-p99-5000')).toMatchObject({ value: 0.667, pass: true });
    expect(check(checks, 'rss-vs-java-ours-function')).toMatchObject({ value: 0.453, pass: true });
    expect(check(checks, 'rss-flat-ours')).toMatchObject({ value: 'flat', pass: true });
    expect(check(checks, 'per-vcpu-batch-1000')).toMatchObject({ value: 40_000, pass: true });
    expect(checks.every((entry) => entry.pass !== null)).toBe(true);
  });

  it('says a growing RSS fails its guard', () => {
    const scenarios = fullRun().map((entry) =>
      entry.id !== 'drain'
        ? entry
        : {
            ...entry,
            consumers: entry.consumers.map((consumer) =>
              consumer.id !== 'ours'
                ? consumer
                : { ...consumer, metrics: { ...consumer.metrics, rssSecondHalfGrowthMiB: stats([30]) } },
            ),
          },
    );
    expect(check(benchSummary(scenarios).checks, 'rss-flat-ours')).toMatchObject({
      value: 'growing',
      pass: false,
    });
  });

  it('gives null with a reason, never a number, for what the run did not measure', () => {
    const { summary, missing, checks } = benchSummary([]);
    for (const field of SUMMARY_FIELDS) {
      expect(summary[field]).toBeNull();
      expect(missing[field]).toMatch(/^no [a-z0-9-]+ scenario in this run$/);
    }
    expect(missing.javaCpuUsPerMsg).toBe('no drain scenario in this run');
    expect(checks.length).toBeGreaterThan(0);
    for (const entry of checks) {
      expect(entry.pass).toBeNull();
      expect(entry.value).toBeNull();
      expect(entry.reason).toBeTruthy();
    }
  });

  it('names the failed consumer or the missing metric in the reason', () => {
    const run = fullRun().map((entry) =>
      entry.id !== 'http-invoke-batch-100'
        ? entry
        : {
            ...entry,
            consumers: entry.consumers.map((consumer) =>
              consumer.id === 'ours-lambda-http'
                ? { ...consumer, metrics: {}, error: 'timed out' }
                : consumer,
            ),
          },
    );
    const { summary, missing } = benchSummary([
      ...run.filter((entry) => entry.id !== 'per-vcpu-batch-1000'),
      { ...scenario('per-vcpu-batch-1000', {}), error: 'taskset is missing' },
    ]);
    expect(summary.productionPathCpuUsPerMsg).toBeNull();
    expect(missing.productionPathCpuUsPerMsg).toBe(
      'http-invoke-batch-100: ours-lambda-http has no cpuUsPerMsgStartToLast (it failed: timed out)',
    );
    expect(summary.productionPathVsJavaCpuPerMsg).toBeNull();
    expect(summary.perVcpuMsgsPerSecBatch1000).toBeNull();
    expect(missing.perVcpuMsgsPerSecBatch1000).toBe('per-vcpu-batch-1000 failed: taskset is missing');
    expect(summary.javaCpuUsPerMsg).toBe(15);
  });

  it('refuses a ratio over a zero median', () => {
    const run = fullRun().map((entry) =>
      entry.id !== 'drain'
        ? entry
        : {
            ...entry,
            consumers: entry.consumers.map((consumer) =>
              consumer.id === 'java'
                ? { ...consumer, metrics: { ...consumer.metrics, msgsPerSecFirstToAll: stats([0]) } }
                : consumer,
            ),
          },
    );
    const { summary, missing } = benchSummary(run);
    expect(summary.functionPathVsJavaFirstToAll).toBeNull();
    expect(missing.functionPathVsJavaFirstToAll).toBe('the denominator is 0');
  });
});
