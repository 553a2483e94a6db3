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

  const mappingsReport = (healthy: boolean, mappings: unknown[], problems: string[] = []) =>
    `${JSON.stringify({ healthy, at: new Date().toISOString(), problems, mappings })}\n`;
  const standby = {
    mapping: 'orders',
    healthy: true,
    state: 'waiting',
    reason:
      'standby: group orders-fn has 3 members for the 2 queue(s) of topic Orders; this one holds none until a holder leaves',
    since: '2026-12-06T03:00:00.000Z',
    problems: [],
  };
  const missing = {
    mapping: 'audit',
    healthy: false,
    state: 'topic_missing',
    reason: 'topic Audit does not exist (the name servers know no route of it)',
    since: '2026-12-06T03:00:00.000Z',
    problems: [
      'cannot consume (topic_missing) for 31 s: topic Audit does not exist (the name servers know no route of it)',
    ],
  };

  it('says a healthy standby is waiting, and why', async () => {
    await writeFile(file, mappingsReport(true, [standby]));
    const cli = fakeCliIo({ ROCKETMQ_LAMBDA_HEALTH_FILE: file });
    expect(await healthCommand([], cli)).toBe(0);
    expect(cli.out().split('\n')[1]).toBe(`orders: waiting (${standby.reason})`);
  });

  it('--json prints one document with the verdict, the age and every mapping, healthy or not', async () => {
    await writeFile(file, mappingsReport(false, [standby, missing], [`audit: ${missing.problems[0]}`]));
    const cli = fakeCliIo({ ROCKETMQ_LAMBDA_HEALTH_FILE: file });
    expect(await healthCommand(['--json'], cli, Date.now() + 1000)).toBe(1);
    const document = JSON.parse(cli.out());
    expect(document).toEqual({
      healthy: false,
      ageMs: expect.any(Number),
      path: file,
      problems: [`audit: ${missing.problems[0]}`],
      mappings: [standby, missing],
    });
    expect(document.ageMs).toBeGreaterThanOrEqual(1000);
    expect(cli.err()).toBe('');

    await writeFile(file, mappingsReport(true, [standby]));
    const healthy = fakeCliIo({ ROCKETMQ_LAMBDA_HEALTH_FILE: file });
    expect(await healthCommand(['--json'], healthy)).toBe(0);
    expect(JSON.parse(healthy.out())).toMatchObject({ healthy: true, problems: [], mappings: [standby] });
  });

  it('--json reports a missing heartbeat as unhealthy with no age', async () => {
    const cli = fakeCliIo({ ROCKETMQ_LAMBDA_HEALTH_FILE: file });
    expect(await healthCommand(['--json'], cli)).toBe(1);
    expect(JSON.parse(cli.out())).toEqual({
      healthy: false,
      ageMs: null,
      path: file,
      problems: [`no heartbeat file at ${file} (is the poller running?)`],
      mappings: [],
    });
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
