import { afterEach, describe, expect, it, vi } from 'vitest';
import { DrainMeasurement, STARTED_LINE } from '../../../bench/peers/drain-measurement.js';

describe('DrainMeasurement', () => {
  afterEach(() => vi.restoreAllMocks());

  it("announces its start and reports the process's CPU from started() and from its start to the last message", async () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const measurement = new DrainMeasurement(2);
    try {
      measurement.started();
      expect(written).toEqual([`${STARTED_LINE}\n`]);
      // Some work between the start and the last message, until the process has used CPU for it.
      const before = process.cpuUsage();
      let sink = 0;
      while (process.cpuUsage(before).user < 20_000) sink += Math.sqrt(sink + 1);
      expect(sink).toBeGreaterThan(0);
      measurement.count(1);
      measurement.count(1);
      await measurement.done;
      const result = measurement.finish();
      expect(result.received).toBe(2);
      expect(result.cpuMsStartToLast).toBeGreaterThanOrEqual(20);
      expect(result.cpuMsProcessToLast).toBeGreaterThanOrEqual(result.cpuMsStartToLast);
    } finally {
      measurement.stop();
    }
  });

  it('counts the GC pauses between started() and the last message', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const measurement = new DrainMeasurement(1);
    try {
      measurement.started();
      // Young garbage until V8 has scavenged a few times (a scavenge comes every few MiB of it).
      let kept: number[][] = [];
      for (let i = 0; i < 400_000; i++) {
        kept.push([i, i + 1, i + 2]);
        if (kept.length > 1000) kept = [];
      }
      expect(kept.length).toBeGreaterThan(0);
      measurement.count(1);
      await measurement.done;
      const result = measurement.finish();
      expect(result.gcMinorCount).toBeGreaterThan(0);
      expect(result.gcPauseMs).toBeGreaterThan(0);
      expect(result.gcPauseMs).toBeLessThanOrEqual(result.startToLastMs);
      // The pause split by kind: scavenges took some of it, and the kinds add up to the whole.
      const { minor, major, incremental, weakcb } = result.gcPauseMsByKind;
      expect(minor).toBeGreaterThan(0);
      expect(minor + major + incremental + weakcb).toBeCloseTo(result.gcPauseMs, 1);
      expect(result.bufferedMedian).toBeUndefined();
    } finally {
      measurement.stop();
    }
  });

  it('keeps the parts of the sample with the most RSS: the V8 heap and the Buffers held then', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const measurement = new DrainMeasurement(1);
    try {
      measurement.started();
      // 64 MiB of Buffers held over a few samples: the peak sample holds them.
      const held = Array.from({ length: 64 }, () => Buffer.alloc(1024 * 1024, 1));
      await new Promise((resolve) => setTimeout(resolve, 200));
      measurement.count(1);
      await measurement.done;
      const result = measurement.finish();
      expect(held.length).toBe(64);
      const { rssBytes, heapTotalBytes, arrayBuffersBytes } = result.peakSample;
      expect(arrayBuffersBytes).toBeGreaterThanOrEqual(64 * 1024 * 1024);
      expect(heapTotalBytes).toBeGreaterThan(0);
      expect(rssBytes).toBeGreaterThanOrEqual(heapTotalBytes);
      expect(rssBytes).toBeLessThanOrEqual(result.peakRssBytes);
    } finally {
      measurement.stop();
    }
  });

  it("reports the median and the largest of the client's buffered messages", async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const measurement = new DrainMeasurement(1);
    const values = [3, 40, 5, 7, 6];
    let probes = 0;
    measurement.trackBuffered(async () => values[probes++ % values.length] as number);
    try {
      measurement.started();
      await new Promise((resolve) => setTimeout(resolve, 50 * values.length + 120));
      measurement.count(1);
      await measurement.done;
      const result = measurement.finish();
      expect(probes).toBeGreaterThanOrEqual(values.length);
      expect(result.bufferedMax).toBe(40);
      expect([5, 6, 7]).toContain(result.bufferedMedian);
    } finally {
      measurement.stop();
    }
  });

  it('fails the result when the buffered-messages probe fails', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const measurement = new DrainMeasurement(1);
    measurement.trackBuffered(async () => {
      throw new Error('status unavailable');
    });
    try {
      measurement.started();
      await new Promise((resolve) => setTimeout(resolve, 120));
      measurement.count(1);
      await measurement.done;
      expect(() => measurement.finish()).toThrow('the buffered-messages probe failed');
    } finally {
      measurement.stop();
    }
  });
});
