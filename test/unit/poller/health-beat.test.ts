import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HealthBeat, type HealthReport, healthFilePath } from '../../../src/poller/health-beat.js';
import { rootLogger } from '../../../src/util/logger.js';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** vi.waitFor's options here: the beat writes every 20 ms, so a check every 10 ms sees each write. */
const WAIT = { timeout: 2_000, interval: 10 } as const;

describe('HealthBeat', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'beat-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const read = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as HealthReport;

  it('writes the verdict every interval, with the problems when unhealthy, and removes the file on stop', async () => {
    const path = join(dir, 'nested', 'health');
    let verdict: { healthy: boolean; problems: string[] } = { healthy: true, problems: [] };
    const beat = new HealthBeat({ path, assess: () => verdict, log: rootLogger, intervalMs: 20 });
    beat.start();
    await vi.waitFor(async () => expect(await exists(path)).toBe(true), WAIT);
    const first = await read(path);
    expect(first.healthy).toBe(true);
    expect(Number.isNaN(Date.parse(first.at))).toBe(false);
    verdict = { healthy: false, problems: ['orders: offsets not written for 130 s (AccessDeniedException)'] };
    await vi.waitFor(async () => expect((await read(path)).healthy).toBe(false), WAIT);
    expect((await read(path)).problems).toEqual(verdict.problems);
    await beat.stop();
    expect(await exists(path)).toBe(false);
  });

  it('reports a health check that throws as unhealthy', async () => {
    const path = join(dir, 'health');
    const beat = new HealthBeat({
      path,
      assess: () => {
        throw new Error('boom');
      },
      log: rootLogger,
      intervalMs: 10,
    });
    beat.start();
    await vi.waitFor(async () => expect(await exists(path)).toBe(true), WAIT);
    expect(await read(path)).toMatchObject({ healthy: false, problems: [expect.stringContaining('boom')] });
    await beat.stop();
  });

  it('takes its path from ROCKETMQ_LAMBDA_HEALTH_FILE, else the temp dir', () => {
    expect(healthFilePath({ ROCKETMQ_LAMBDA_HEALTH_FILE: '/var/run/poller/health' })).toBe(
      '/var/run/poller/health',
    );
    expect(healthFilePath({})).toBe(join(tmpdir(), 'rocketmq-lambda', 'health'));
  });
});
