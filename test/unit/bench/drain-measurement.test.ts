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
});
