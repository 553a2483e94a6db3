/**
 * `npm run demo` as a newcomer first sees it (src/cli/demo.ts, run as its own entry point): no AWS SDK
 * Node.js version warning (the SDK's clients are made on the way, and on Node 20 the SDK warns), while
 * any other warning still shows; `--timings` reports every start-up phase up to the first invocation; and
 * the broker stays up after the demo, so a second run takes it and reaches its first invocation without a
 * broker boot (src/local-broker/kept-broker.ts), until `--stop-broker`. It runs as `npm run demo` does
 * (src/cli/demo-launch.mjs): the first run bundles the demo (src/dev/demo-bundle.mjs), the second reuses
 * the bundle.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/wait-for.js';
import { type DevProcess, REPO, STEP_TIMEOUT_MS, spawnScript } from './dev-process.js';

/** `npm run demo`'s script. */
const DEMO = 'src/cli/demo-launch.mjs';
const SDK_WARNING = 'The AWS SDK for JavaScript (v3)';
const OTHER_WARNING = 'a warning the demo must still show';
/** The demo's start, the local broker's included; a cold jar cache is fetched by the test setup first. */
const START_TIMEOUT_MS = 180_000;

describe('npm run demo', () => {
  let demo: DevProcess;
  let dir: string;

  beforeAll(async () => {
    // No broker kept by an earlier run of the demo on this clone: this run starts one; nor its bundle.
    stopKeptBroker();
    rmSync(path.join(REPO, '.rocketmq-lambda', 'demo', 'bundle'), { recursive: true, force: true });
    dir = mkdtempSync(path.join(tmpdir(), 'rocketmq-lambda-demo-test-'));
    // Preloaded into the demo: emits a warning of its own once asked (SIGUSR2), after the SDK's clients exist.
    const preload = path.join(dir, 'other-warning.mjs');
    writeFileSync(
      preload,
      `process.on('SIGUSR2', () => process.emitWarning(${JSON.stringify(OTHER_WARNING)}, 'TestWarning'));\n`,
    );
    demo = spawnScript(
      DEMO,
      ['--timings', '--console-port', '0', '--keep-broker', '1'],
      { LOG_LEVEL: 'warn' },
      ['--import', preload],
    );
    await waitFor('the first handler invocation', START_TIMEOUT_MS, () =>
      demo.watch.raw.some((line) => line.startsWith('First handler invocation')) ? true : undefined,
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}\nstdout:\n${demo.watch.raw.slice(-20).join('\n')}\nstderr:\n${demo.stderr()}`,
      );
    });
  }, START_TIMEOUT_MS + STEP_TIMEOUT_MS);

  afterAll(async () => {
    await stopDemo(demo);
    stopKeptBroker();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is what `npm run demo` runs', () => {
    const manifest = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.demo).toBe(`node ${DEMO}`);
  });

  it('would get the SDK warning on this Node.js (the control: a client made without our filter)', () => {
    const control = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'; new DynamoDBClient({ region: 'us-east-1' });",
      ],
      { cwd: REPO, encoding: 'utf8' },
    );
    expect(
      control.stderr,
      `on Node ${process.version} the AWS SDK does not warn (this test needs Node.js 20, as the project runs on)`,
    ).toContain(SDK_WARNING);
  });

  it('shows other warnings but not the AWS SDK Node.js version warning', async () => {
    demo.child.kill('SIGUSR2');
    await waitFor('the other warning on stderr', STEP_TIMEOUT_MS, () =>
      demo.stderr().includes(OTHER_WARNING) ? true : undefined,
    );
    expect(demo.stderr()).toContain(`TestWarning: ${OTHER_WARNING}`);
    expect(demo.stderr()).not.toContain(SDK_WARNING);
    expect(demo.watch.raw.join('\n')).not.toContain(SDK_WARNING);
  });

  it('reports each start-up phase, from the process start to the first invocation', () => {
    const output = demo.watch.raw.join('\n');
    const timeline = output.slice(output.indexOf('start-up timeline'));
    const phases = [
      'node and imports (demo bundle built)',
      'dev loop imported',
      'service loaded',
      'local broker: kept one started (ready)',
      'topics created',
      'orders: route',
      'orders: heartbeat',
      'orders: rebalanced',
      'poller started',
      'orders-lambda: first pull sent',
      'first invoke started',
      'first invocation',
    ];
    for (const phase of phases)
      expect(timeline).toMatch(new RegExp(`^ +\\d+ +\\+\\d+ +${phase.replace(/[()]/g, '\\$&')}$`, 'm'));
  });

  it(
    'keeps the broker after Ctrl-C; a second run takes it, reaching its first invocation without a broker boot, until --stop-broker',
    async () => {
      await stopDemo(demo);
      const first = demo.watch.raw.join('\n');
      expect(first).toMatch(/Stopping \(the producer, the poller, the embedded DynamoDB\)\.\.\./);
      expect(first).toContain('The local RocketMQ stays up 1 min for the next `npm run demo`');
      const nameServer = /Local RocketMQ at (\S+) \(/.exec(first)?.[1];
      expect(nameServer, first).toMatch(/^127\.0\.0\.1:\d+$/);

      const again = spawnScript(DEMO, ['--timings', '--no-console', '--keep-broker', '1'], {
        LOG_LEVEL: 'warn',
      });
      try {
        await waitFor("the second run's first handler invocation", START_TIMEOUT_MS, () =>
          again.watch.raw.some((line) => line.startsWith('First handler invocation')) ? true : undefined,
        ).catch((error: unknown) => {
          throw new Error(
            `${String(error)}\nstdout:\n${again.watch.raw.slice(-20).join('\n')}\nstderr:\n${again.stderr()}`,
          );
        });
        const second = again.watch.raw.join('\n');
        expect(second).toContain(`Local RocketMQ at ${nameServer}, kept from an earlier run`);
        const timeline = second.slice(second.indexOf('start-up timeline'));
        expect(timeline).toMatch(/ first invocation$/m);
        expect(timeline).toMatch(/ local broker: kept one taken$/m);
        expect(timeline).toMatch(/ node and imports \(demo bundle reused\)$/m);
        expect(timeline).not.toMatch(/local broker: kept one started/);
      } finally {
        await stopDemo(again);
      }
      const stop = stopKeptBroker();
      expect(stop.stdout).toContain(`Stopped the kept local broker (${nameServer}).`);
      expect(stopKeptBroker().stdout).toContain('No kept local broker was running.');
    },
    2 * START_TIMEOUT_MS,
  );
});

/** Ctrl-C to a demo; SIGKILL if it has not exited 30 s later. */
async function stopDemo(process: DevProcess | undefined): Promise<void> {
  if (process === undefined) return;
  process.child.kill('SIGINT');
  await Promise.race([process.exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  await process.kill();
}

/** `npm run demo -- --stop-broker`, as a user runs it. */
function stopKeptBroker(): { stdout: string; status: number | null } {
  const run = spawnSync(process.execPath, [DEMO, '--stop-broker'], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: STEP_TIMEOUT_MS,
  });
  if (run.status !== 0) throw new Error(`demo --stop-broker exited ${run.status}: ${run.stderr}`);
  return { stdout: run.stdout, status: run.status };
}
