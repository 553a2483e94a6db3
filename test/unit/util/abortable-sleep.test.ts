import { afterEach, describe, expect, it, vi } from 'vitest';
import { abortableSleep } from '../../../src/util/abortable-sleep.js';

describe('abortableSleep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after the time', async () => {
    vi.useFakeTimers();
    let done = false;
    void abortableSleep(500).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });

  it('resolves at once when the signal aborts, leaving no timer behind', async () => {
    vi.useFakeTimers();
    const stop = new AbortController();
    const sleeping = abortableSleep(60_000, stop.signal);
    stop.abort();
    await expect(sleeping).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
    await expect(abortableSleep(60_000, stop.signal)).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
