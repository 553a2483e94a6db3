import { describe, expect, it } from 'vitest';
import { forEachConcurrently } from '../../../src/util/for-each-concurrently.js';

describe('forEachConcurrently', () => {
  it('runs every item, never more than the limit at once, starting them in order', async () => {
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    await forEachConcurrently([10, 11, 12, 13, 14], 2, async (item, index) => {
      started.push(item);
      expect(index).toBe(item - 10);
      running++;
      peak = Math.max(peak, running);
      await Promise.resolve();
      running--;
    });
    expect(started).toEqual([10, 11, 12, 13, 14]);
    expect(peak).toBe(2);
  });

  it('starts nothing more after a rejection, waits for the running ones, then throws the first error', async () => {
    const started: number[] = [];
    let slowEnded = false;
    const failure = new Error('item 1 failed');
    const run = forEachConcurrently([0, 1, 2, 3], 2, async (item) => {
      started.push(item);
      if (item === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        slowEnded = true;
      }
      if (item === 1) throw failure;
    });
    await expect(run).rejects.toBe(failure);
    expect(started).toEqual([0, 1]);
    expect(slowEnded).toBe(true);
  });

  it('does nothing for no items', async () => {
    let runs = 0;
    await forEachConcurrently([], 4, async () => {
      runs++;
    });
    expect(runs).toBe(0);
  });
});
