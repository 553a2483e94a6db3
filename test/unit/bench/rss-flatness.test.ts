import { describe, expect, it } from 'vitest';
import { rssFlatness, rssVerdict } from '../../../bench/rss-flatness.js';

/** A series every 200 ms for `seconds`, RSS from `mib(t)`. */
function series(seconds: number, mib: (ms: number) => number): Array<[number, number]> {
  return Array.from({ length: (seconds * 1000) / 200 + 1 }, (_, i) => [i * 200, mib(i * 200)]);
}

describe('rssFlatness', () => {
  it('calls a ramp that levels off flat: the start-up is not in the second half', () => {
    const flatness = rssFlatness(series(20, (ms) => Math.min(120, 40 + ms / 20)));
    expect(flatness?.secondHalfMedianMiB).toBe(120);
    expect(flatness?.secondHalfGrowthMiB).toBe(0);
    expect(flatness && rssVerdict(flatness)).toBe('flat');
  });

  it('calls a second half that keeps climbing growing', () => {
    const flatness = rssFlatness(series(20, (ms) => 100 + ms / 100));
    expect(flatness?.secondHalfGrowthMiB).toBeGreaterThan(40);
    expect(flatness && rssVerdict(flatness)).toBe('growing');
  });

  it('calls a level run with one early spike spiky', () => {
    const flatness = rssFlatness(series(20, (ms) => (ms === 2000 ? 300 : 100)));
    expect(flatness?.peakOverSecondHalfMedian).toBe(3);
    expect(flatness && rssVerdict(flatness)).toBe('spiky');
  });

  it('says nothing about a run of a few samples', () => {
    expect(rssFlatness(series(1, () => 100))).toBeUndefined();
  });
});
