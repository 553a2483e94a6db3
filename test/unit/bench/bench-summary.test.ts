import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../../bench/bench-results.js';
import { stats } from '../../../bench/bench-results.js';
import { benchSummary } from '../../../bench/bench-summary.js';

function httpInvoke(batch: number, cpu: Record<string, number[]>): ScenarioResult {
  return {
    id: `http-invoke-batch-${batch}`,
    title: 't',
    workload: 'w',
    runs: 3,
    consumers: Object.entries(cpu).map(([id, values]) => ({
      id,
      label: id,
      metrics: { cpuMsPerInvoke: stats(values) },
    })),
    ratios: [],
  };
}

describe('benchSummary', () => {
  it('gives the HTTP invoke overhead and its floor as medians minus the in-process median', () => {
    const summary = benchSummary([
      httpInvoke(100, {
        'ours-lambda-http': [3, 2.5, 4],
        'floor-signed-http': [1.5, 1.4, 2],
        'ours-function': [1, 0.9, 1.2],
      }),
    ]);
    expect(summary).toEqual({ httpInvokeOverheadCpuMsPer100: 2, httpInvokeFloorCpuMsPer100: 0.5 });
  });

  it('leaves out what the run did not measure', () => {
    expect(benchSummary([httpInvoke(1000, { 'ours-lambda-http': [30], 'ours-function': [20] })])).toEqual({
      httpInvokeOverheadCpuMsPer1000: 10,
    });
    expect(benchSummary([])).toEqual({});
  });
});
