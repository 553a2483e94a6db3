import { describe, expect, it } from 'vitest';
import { percentile } from '../../../bench/percentile.js';

describe('percentile', () => {
  it('takes the nearest rank: the smallest sample with at least p % at or below it', () => {
    const samples = [7, 1, 3, 9, 5, 2, 8, 4, 6, 10];
    expect(percentile(samples, 50)).toBe(5);
    expect(percentile(samples, 90)).toBe(9);
    expect(percentile(samples, 99)).toBe(10);
    expect(percentile(samples, 100)).toBe(10);
    expect(percentile(samples, 1)).toBe(1);
  });

  it('sorts numerically, not as text', () => {
    expect(percentile([100, 20, 3], 50)).toBe(20);
  });

  it('refuses no samples and a p outside (0, 100]', () => {
    expect(() => percentile([], 50)).toThrow('no samples');
    expect(() => percentile([1], 0)).toThrow('(0, 100]');
    expect(() => percentile([1], 101)).toThrow('(0, 100]');
  });
});
