import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MessageBatcher } from '../../../src/consumer/consume/concurrently/message-batcher.js';

const items = (n: number, bytes = 1) => Array.from({ length: n }, () => ({ bytes }));

describe('MessageBatcher', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is ready when batchSize items wait, and takes at most batchSize', () => {
    const batcher = new MessageBatcher({
      batchSize: 3,
      maxBatchBytes: 100,
      windowMs: 1000,
      onReady: () => undefined,
    });
    batcher.add(items(2));
    expect(batcher.takeReady()).toBeUndefined();
    batcher.add(items(5));
    expect(batcher.takeReady()).toHaveLength(3);
    expect(batcher.takeReady()).toHaveLength(3);
    expect(batcher.takeReady()).toBeUndefined();
    expect(batcher.size).toBe(1);
    batcher.disarm();
  });

  it('signals readiness when the window of the oldest item elapsed', () => {
    const onReady = vi.fn();
    const batcher = new MessageBatcher({ batchSize: 10, maxBatchBytes: 100, windowMs: 500, onReady });
    batcher.add(items(1));
    expect(batcher.takeReady()).toBeUndefined();
    vi.advanceTimersByTime(300);
    batcher.add(items(1));
    expect(batcher.takeReady()).toBeUndefined();
    vi.advanceTimersByTime(199);
    expect(onReady).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onReady).toHaveBeenCalledTimes(1);
    expect(batcher.takeReady()).toHaveLength(2);
  });

  it('dispatches at once with window 0', () => {
    const batcher = new MessageBatcher({
      batchSize: 10,
      maxBatchBytes: 100,
      windowMs: 0,
      onReady: () => undefined,
    });
    batcher.add(items(1));
    expect(batcher.takeReady()).toHaveLength(1);
  });

  it('caps batches by bytes; an oversize item goes alone', () => {
    const batcher = new MessageBatcher({
      batchSize: 100,
      maxBatchBytes: 10,
      windowMs: 1000,
      onReady: () => undefined,
    });
    batcher.add([{ bytes: 4 }, { bytes: 4 }, { bytes: 4 }, { bytes: 50 }, { bytes: 1 }]);
    expect(batcher.takeReady()?.map((i) => i.bytes)).toEqual([4, 4]);
    expect(batcher.takeReady()?.map((i) => i.bytes)).toEqual([4]);
    expect(batcher.takeReady()?.map((i) => i.bytes)).toEqual([50]);
    expect(batcher.takeReady()).toBeUndefined();
    batcher.disarm();
  });

  it('skips stale items', () => {
    const batcher = new MessageBatcher<{ bytes: number; stale: boolean }>({
      batchSize: 2,
      maxBatchBytes: 100,
      windowMs: 0,
      onReady: () => undefined,
      isStale: (item) => item.stale,
    });
    batcher.add([
      { bytes: 1, stale: true },
      { bytes: 2, stale: false },
      { bytes: 3, stale: true },
      { bytes: 4, stale: false },
    ]);
    expect(batcher.takeReady()?.map((i) => i.bytes)).toEqual([2, 4]);
    expect(batcher.size).toBe(0);
  });
});
