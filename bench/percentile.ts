/** Percentiles of latency samples, computed the same way for every consumer (the children send raw samples). */

/**
 * The `p`-th percentile (0 < p <= 100) of `samples` by the nearest-rank method: the smallest sample
 * with at least p % of the samples at or below it (so p100 is the max).
 *
 * @example
 * ```ts
 * percentile([5, 1, 3, 2, 4], 50); // => 3
 * ```
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('percentile of no samples');
  if (!(p > 0 && p <= 100)) throw new Error(`percentile must be in (0, 100], got ${p}`);
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[rank - 1] as number;
}
