/**
 * The decode micro-benchmark's results (decode-bench.ts) as scenarios of latest.json: one per case
 * (`decode-1-kib`, `decode-64-b-20-user-properties`, ...), ours and Java as its consumers.
 */
import { type ConsumerResult, ratio, type ScenarioResult, stats } from './bench-results.js';
import { DECODE_WORK, type DecodeCaseResult, type DecodeRate } from './decode-bench.js';

/**
 * Metric names of the decode scenarios.
 *
 * @example
 * ```ts
 * scenario.consumers[0]?.metrics[DECODE_METRICS.perCpuSecond];
 * ```
 */
export const DECODE_METRICS = {
  perSecond: 'msgsPerSec',
  mibPerSecond: 'mibPerSec',
  perCpuSecond: 'msgsPerCpuSec',
} as const;

/**
 * One scenario per decode case.
 *
 * @example
 * ```ts
 * const scenarios = decodeScenarios(await runDecodeBench(bodies, java, decodeChild, options), { concurrent: false });
 * ```
 */
export function decodeScenarios(
  results: readonly DecodeCaseResult[],
  /** As runDecodeBench measured: `concurrent`, the sides at once (`--quick`). */
  how: { concurrent: boolean },
): ScenarioResult[] {
  return results.map((result) => {
    const consumers: ConsumerResult[] = [];
    const side = (id: string, label: string, rates: readonly DecodeRate[]): void => {
      if (rates.length === 0) return;
      consumers.push({
        id,
        label,
        metrics: {
          [DECODE_METRICS.perSecond]: stats(rates.map((rate) => rate.messagesPerSecond)),
          [DECODE_METRICS.mibPerSecond]: stats(rates.map((rate) => rate.megabytesPerSecond)),
          [DECODE_METRICS.perCpuSecond]: stats(rates.map((rate) => rate.messagesPerCpuSecond)),
        },
      });
    };
    side('ours', `ours: ${DECODE_WORK.ours}`, result.ours);
    side('ours-all-fields', `ours, every field read: ${DECODE_WORK.oursAllFields}`, result.oursAllFields);
    side('java', `Java: ${DECODE_WORK.java}`, result.java);
    const scenario = {
      id: `decode-${result.decodeCase.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
      title: `Decode PULL bodies: ${result.decodeCase.name}`,
      workload: `a real PULL_MESSAGE body of 32 stored messages (${result.bodyBytes.toLocaleString('en-US')} B), decoded in a loop on one thread after a warm-up, ${how.concurrent ? 'the three sides at once (quick: they share the cores)' : 'sides alternating'}`,
      runs: result.ours.length,
      consumers,
    };
    return {
      ...scenario,
      ratios: [
        ratio(scenario, DECODE_METRICS.perSecond, 'ours', 'java', true),
        ratio(scenario, DECODE_METRICS.perCpuSecond, 'ours', 'java', true),
        ratio(scenario, DECODE_METRICS.perSecond, 'ours-all-fields', 'java', true),
        ratio(scenario, DECODE_METRICS.perCpuSecond, 'ours-all-fields', 'java', true),
      ].filter((entry) => entry !== undefined),
    };
  });
}
