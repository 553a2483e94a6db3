/**
 * Whether a consumer's resident memory stays flat while it drains a backlog, from its RSS series
 * (`[ms since start, MiB]` every ~200 ms): the start-up ramp is left out by looking at the second half
 * of the run only. Two signs of trouble: a peak far above the second half's median (a spike the
 * process had to hold once), and a second half that still grows (its last quarter above its third).
 */
import { stats } from './bench-results.js';

/** Fewer samples than this in a run say nothing about a trend. */
const MIN_SAMPLES = 8;
/** A peak up to this factor above the second half's median still counts as flat. */
const FLAT_PEAK_RATIO = 1.15;
/** Growth from the third to the last quarter up to this share of the second half's median is noise. */
const FLAT_GROWTH_SHARE = 0.05;
/** ... or up to this many MiB, whichever is more (small processes move a few MiB either way). */
const FLAT_GROWTH_MIB = 4;

/**
 * The figures of one run's series.
 *
 * @example
 * ```ts
 * const f: RssFlatness = { secondHalfMedianMiB: 120, peakMiB: 130, peakOverSecondHalfMedian: 1.08, secondHalfGrowthMiB: 1 };
 * ```
 */
export interface RssFlatness {
  /** Median RSS over the second half of the run's time. */
  readonly secondHalfMedianMiB: number;
  /** The largest sample of the whole series. */
  readonly peakMiB: number;
  readonly peakOverSecondHalfMedian: number;
  /** Median of the last quarter minus median of the third quarter (by time); > 0 is still growing. */
  readonly secondHalfGrowthMiB: number;
}

/**
 * The verdict on (median) figures: `flat`, `spiky` (peak well above the second half), `growing`
 * (the second half still climbs).
 *
 * @example
 * ```ts
 * rssVerdict({ secondHalfMedianMiB: 120, peakMiB: 200, peakOverSecondHalfMedian: 1.67, secondHalfGrowthMiB: 0 }); // => 'spiky'
 * ```
 */
export type RssVerdict = 'flat' | 'spiky' | 'growing';

/**
 * The figures of `series`, or undefined when it has too few samples (a short run).
 *
 * @example
 * ```ts
 * rssFlatness([[0, 50], [200, 90], [400, 100], ...]);
 * ```
 */
export function rssFlatness(series: ReadonlyArray<readonly [number, number]>): RssFlatness | undefined {
  if (series.length < MIN_SAMPLES) return undefined;
  const endMs = series[series.length - 1]?.[0] ?? 0;
  const between = (fromShare: number, toShare: number): number[] =>
    series
      .filter(([ms]) => ms >= endMs * fromShare && (toShare >= 1 || ms < endMs * toShare))
      .map(([, mib]) => mib);
  const secondHalf = between(0.5, 1);
  const third = between(0.5, 0.75);
  const last = between(0.75, 1);
  if (secondHalf.length === 0 || third.length === 0 || last.length === 0) return undefined;
  const secondHalfMedianMiB = medianOf(secondHalf);
  const peakMiB = Math.max(...series.map(([, mib]) => mib));
  return {
    secondHalfMedianMiB,
    peakMiB,
    peakOverSecondHalfMedian: peakMiB / secondHalfMedianMiB,
    secondHalfGrowthMiB: medianOf(last) - medianOf(third),
  };
}

/**
 * Judges figures (of one run, or medians over runs).
 *
 * @example
 * ```ts
 * rssVerdict(rssFlatness(series) ?? fallback);
 * ```
 */
export function rssVerdict(flatness: RssFlatness): RssVerdict {
  const allowedGrowth = Math.max(FLAT_GROWTH_MIB, flatness.secondHalfMedianMiB * FLAT_GROWTH_SHARE);
  if (flatness.secondHalfGrowthMiB > allowedGrowth) return 'growing';
  if (flatness.peakOverSecondHalfMedian > FLAT_PEAK_RATIO) return 'spiky';
  return 'flat';
}

function medianOf(values: readonly number[]): number {
  return stats(values).median;
}
