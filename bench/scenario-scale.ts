/**
 * `BENCH_SCENARIO_SCALE`: a fraction (0 < s <= 1) of the full size the latency, http-invoke and
 * offset-writes scenarios run at without `--quick` (message counts, the latency scenario's measured
 * window), for mid-size runs on a shared machine. Unset: 1.
 */

/**
 * The scale from `env`; throws naming the variable when it is not a number in (0, 1].
 *
 * @example
 * ```ts
 * const messages = Math.round(100_000 * scenarioScale(process.env)); // BENCH_SCENARIO_SCALE=0.2 -> 20,000
 * ```
 */
export function scenarioScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_SCENARIO_SCALE;
  if (raw === undefined || raw === '') return 1;
  const scale = Number(raw);
  if (!(scale > 0 && scale <= 1))
    throw new Error(`BENCH_SCENARIO_SCALE must be a number in (0, 1], got ${raw}`);
  return scale;
}
