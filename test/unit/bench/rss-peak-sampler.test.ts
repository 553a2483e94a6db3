import { scryptSync } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { RssPeakSampler } from '../../../bench/rss-peak-sampler.js';

const MIB = 1024 * 1024;

describe('RssPeakSampler', () => {
  it('sees memory a synchronous call takes and gives back before it returns', async () => {
    const sampler = await RssPeakSampler.start();
    onTestFinished(() => sampler.close());
    const before = process.memoryUsage.rss();
    sampler.begin();
    // scrypt's work area (128 * N * r bytes = 64 MiB) is allocated, written and freed inside the call.
    scryptSync('password', 'salt', 32, { N: 2 ** 16, r: 8, p: 1, maxmem: 128 * MIB });
    const after = process.memoryUsage.rss();
    const peak = sampler.end();
    expect(after - before, 'the work area is gone once the call returned').toBeLessThan(32 * MIB);
    expect(peak - before).toBeGreaterThan(48 * MIB);
  });

  it('answers an end that comes at once after its begin, round after round', async () => {
    const sampler = await RssPeakSampler.start();
    onTestFinished(() => sampler.close());
    for (let round = 0; round < 200; round++) {
      sampler.begin();
      expect(sampler.end()).toBeGreaterThan(0);
    }
  });
});
