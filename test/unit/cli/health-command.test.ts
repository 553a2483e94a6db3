import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { healthCommand } from '../../../src/cli/health-command.js';
import { main } from '../../../src/cli/main.js';
import { fakeCliIo } from '../../support/fake-cli-io.js';

describe('rocketmq-lambda health', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'health-'));
    file = join(dir, 'health');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const report = (healthy: boolean, problems: string[] = []) =>
    `${JSON.stringify({ healthy, at: new Date().toISOString(), problems })}\n`;

  it('is healthy while the heartbeat is fresh and says healthy', async () => {
    await writeFile(file, report(true));
    const cli = fakeCliIo({ ROCKETMQ_LAMBDA_HEALTH_FILE: file });
    expect(await main(['health'], cli)).toBe(0);
    expect(cli.out()).toMatch(/^healthy: heartbeat \d+ ms old/);
  });

  it('is unhealthy when the heartbeat is stale, naming its age and the limit', async () => {
    await writeFile(file, report(true));
    const old = new Date(Date.now() - 120_000);
    await utimes(file, old, old);
    const cli = fakeCliIo({ ROCKETMQ_LAMBDA_HEALTH_FILE: file });
    expect(await healthCommand([], cli)).toBe(1);
    expect(cli.err()).toMatch(/is \d+ ms old \(limit 60000 ms\)/);
    expect(await healthCommand(['--max-age-ms', '300000'], cli)).toBe(0);
  });

  it('is unhealthy when a fresh heartbeat says so, printing each problem', async () => {
    await writeFile(
      file,
      report(false, [
        'orders: queue T@broker-a@0: no pull completed for 130 s (NO_PERMISSION)',
        'orders: offsets not written for 125 s (ResourceNotFoundException)',
      ]),
    );
    const cli = fakeCliIo({ ROCKETMQ_LAMBDA_HEALTH_FILE: file });
    expect(await healthCommand([], cli)).toBe(1);
    expect(cli.err().trim().split('\n')).toEqual([
      'unhealthy: orders: queue T@broker-a@0: no pull completed for 130 s (NO_PERMISSION)',
      'unhealthy: orders: offsets not written for 125 s (ResourceNotFoundException)',
    ]);
    expect(cli.out()).toBe('');
  });

  it('is unhealthy when the file is not a health report', async () => {
    await writeFile(file, 'not json\n');
    const cli = fakeCliIo({ ROCKETMQ_LAMBDA_HEALTH_FILE: file });
    expect(await healthCommand([], cli)).toBe(1);
    expect(cli.err()).toContain('is not a health report');
  });

  it('is unhealthy when there is no heartbeat file', async () => {
    const cli = fakeCliIo({ ROCKETMQ_LAMBDA_HEALTH_FILE: file });
    expect(await healthCommand([], cli)).toBe(1);
    expect(cli.err()).toContain(`no heartbeat file at ${file}`);
  });

  it('rejects a bad flag, naming it, with exit code 2', async () => {
    const bad = fakeCliIo({ ROCKETMQ_LAMBDA_HEALTH_FILE: file });
    expect(await healthCommand(['--max-age-ms', 'soon'], bad)).toBe(2);
    expect(bad.err()).toBe(
      "rocketmq-lambda health: option '--max-age-ms <ms>' argument 'soon' is invalid. --max-age-ms must be a positive integer.\n" +
        '(rocketmq-lambda health --help shows the options)\n',
    );
    const unknown = fakeCliIo({ ROCKETMQ_LAMBDA_HEALTH_FILE: file });
    expect(await healthCommand(['--nope'], unknown)).toBe(2);
    expect(unknown.err()).toContain("rocketmq-lambda health: unknown option '--nope'");
  });
});
