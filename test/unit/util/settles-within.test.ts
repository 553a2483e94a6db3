import { afterEach, describe, expect, it, vi } from 'vitest';
import { settlesWithin } from '../../../src/util/settles-within.js';

describe('settlesWithin', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is true for a promise that resolves or rejects in time, and clears its timer', async () => {
    vi.useFakeTimers();
    await expect(settlesWithin(Promise.resolve(1), 1_000)).resolves.toBe(true);
    await expect(settlesWithin(Promise.reject(new Error('x')), 1_000)).resolves.toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is false when the time runs out first', async () => {
    vi.useFakeTimers();
    const never = new Promise<void>((resolve) => setTimeout(resolve, 5_000));
    const waiting = settlesWithin(never, 1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(waiting).resolves.toBe(false);
  });
});
