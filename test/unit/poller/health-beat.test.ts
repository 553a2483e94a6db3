import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HealthBeat, healthFilePath } from '../../../src/poller/health-beat.js';
import { rootLogger } from '../../../src/util/logger.js';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not reached within 1 s');
}

describe('HealthBeat', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'beat-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes the file while healthy, stops refreshing it when unhealthy, removes it on stop', async () => {
    const path = join(dir, 'nested', 'health');
    let healthy = true;
    const beat = new HealthBeat({ path, isHealthy: () => healthy, log: rootLogger, intervalMs: 20 });
    beat.start();
    await until(() => exists(path));
    expect(Number.isNaN(Date.parse((await readFile(path, 'utf8')).trim()))).toBe(false);
    healthy = false;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const frozen = (await stat(path)).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await stat(path)).mtimeMs).toBe(frozen);
    await beat.stop();
    expect(await exists(path)).toBe(false);
  });

  it('never writes for a poller that is not healthy at start', async () => {
    const path = join(dir, 'health');
    const beat = new HealthBeat({ path, isHealthy: () => false, log: rootLogger, intervalMs: 10 });
    beat.start();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await exists(path)).toBe(false);
    await beat.stop();
  });

  it('takes its path from ROCKETMQ_LAMBDA_HEALTH_FILE, else the temp dir', () => {
    expect(healthFilePath({ ROCKETMQ_LAMBDA_HEALTH_FILE: '/var/run/poller/health' })).toBe(
      '/var/run/poller/health',
    );
    expect(healthFilePath({})).toBe(join(tmpdir(), 'rocketmq-lambda', 'health'));
  });
});
