/**
 * The top-level `summary` of bench/results/*.json: the headline figures of issue 34 as plain numbers a
 * script can read, each derived from the scenarios of the same run. A field is present only when the
 * run measured what it needs (a `--only` run of one scenario fills that scenario's fields); fields of
 * other scenarios slot in here as they are measured.
 */
import type { ScenarioResult } from './bench-results.js';
import { HTTP_INVOKE_CONSUMER_IDS } from './http-invoke-scenario.js';

/**
 * The headline figures; every one optional (see the file comment).
 *
 * @example
 * ```ts
 * const { httpInvokeOverheadCpuMsPer100 }: BenchSummary = benchSummary(results.scenarios);
 * ```
 */
export interface BenchSummary {
  /** CPU ms per 100-record invoke of the Lambda path over HTTP minus the in-process path's (medians, same run). */
  readonly httpInvokeOverheadCpuMsPer100?: number;
  /** The same for the floor: one SigV4-signed request over node:http keep-alive per invoke. */
  readonly httpInvokeFloorCpuMsPer100?: number;
  /** The same two at batch 1,000, per 1,000-record invoke. */
  readonly httpInvokeOverheadCpuMsPer1000?: number;
  readonly httpInvokeFloorCpuMsPer1000?: number;
}

/**
 * The summary of a run's scenarios.
 *
 * @example
 * ```ts
 * benchSummary([]); // => {}
 * ```
 */
export function benchSummary(scenarios: readonly ScenarioResult[]): BenchSummary {
  const overhead = (batch: number, path: 'lambda' | 'floor'): number | undefined => {
    const scenario = scenarios.find((entry) => entry.id === `http-invoke-batch-${batch}`);
    const median = (id: string): number | undefined =>
      scenario?.consumers.find((consumer) => consumer.id === id)?.metrics.cpuMsPerInvoke?.median;
    const sent = median(HTTP_INVOKE_CONSUMER_IDS[path]);
    const local = median(HTTP_INVOKE_CONSUMER_IDS.local);
    return sent === undefined || local === undefined ? undefined : round(sent - local);
  };
  const fields: Record<keyof BenchSummary, number | undefined> = {
    httpInvokeOverheadCpuMsPer100: overhead(100, 'lambda'),
    httpInvokeFloorCpuMsPer100: overhead(100, 'floor'),
    httpInvokeOverheadCpuMsPer1000: overhead(1000, 'lambda'),
    httpInvokeFloorCpuMsPer1000: overhead(1000, 'floor'),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
