/**
 * `rocketmq-lambda dev --invoke-endpoint`: the handlers run in `serverless offline` (osls +
 * serverless-offline, fixture test/fixtures/serverless-offline) and dev invokes them through its Lambda
 * Invoke API as `<service>-<stage>-<function>`. The fixture handler appends each record to a ledger file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = path.join(REPO, 'test/fixtures/serverless-offline');
const SERVERLESS_BIN = path.join(REPO, 'node_modules/serverless/bin/serverless.js');
const QUEUES = 2;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Spawns a child with its output collected, killed (and awaited) when the test ends. */
function spawnCollected(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const child: ChildProcess = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  onTestFinished(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  });
  return { child, exited, output: () => output };
}

function ledgerIds(file: string): Set<string> {
  if (!existsSync(file)) return new Set();
  return new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split(' ')[0] ?? ''),
  );
}

describe('rocketmq-lambda dev --invoke-endpoint', () => {
  it('invokes the handler served by serverless offline as <service>-<stage>-<function>', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rl-dev-offline-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await cp(FIXTURE, dir, { recursive: true });
    await symlink(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
    const ledgerFile = path.join(dir, 'ledger.txt');
    const topic = uniqueTopic('devoffline');
    const group = uniqueGroup('devoffline');
    // What dev reads: the fixture service with a rocketmq event on its function.
    await writeFile(
      path.join(dir, 'dev.yml'),
      [
        'service: rmq-offline',
        'provider:',
        '  name: aws',
        '  stage: test',
        'functions:',
        '  ledger:',
        '    handler: handler.handler',
        '    events:',
        '      - rocketmq:',
        `          topic: ${topic}`,
        `          consumerGroup: ${group}`,
        '          startingPosition: TRIM_HORIZON',
        '',
      ].join('\n'),
    );

    const lambdaPort = await freePort();
    const offline = spawnCollected(
      [
        '--unhandled-rejections=warn',
        SERVERLESS_BIN,
        'offline',
        '--host',
        '127.0.0.1',
        '--lambdaPort',
        String(lambdaPort),
        '--httpPort',
        String(await freePort()),
      ],
      dir,
      {
        ...process.env,
        LEDGER_FILE: ledgerFile,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        SLS_TELEMETRY_DISABLED: '1',
      },
    );
    await waitFor('serverless offline to listen', 60_000, async () => {
      if (offline.child.exitCode !== null) throw new Error(`serverless offline exited:\n${offline.output()}`);
      return offline.output().includes('listening on') ? true : undefined;
    });

    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);
    const sent = await produce(await newProducer(client), topic, 20, { queues: QUEUES, batch: 10 });

    const dev = spawnCollected(
      [
        '--import',
        'tsx',
        path.join(REPO, 'src/cli/main.ts'),
        'dev',
        '--config',
        path.join(dir, 'dev.yml'),
        '--name-server',
        testBroker().namesrvAddr,
        '--invoke-endpoint',
        `http://127.0.0.1:${lambdaPort}`,
        '--state-dir',
        path.join(dir, 'state'),
        // Tests run side by side: any free port, never the default one.
        '--console-port',
        '0',
      ],
      REPO,
      { ...process.env, LOG_LEVEL: 'info', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' },
    );
    await waitFor('every message in the handler ledger', 60_000, async () => {
      if (dev.child.exitCode !== null) throw new Error(`dev exited:\n${dev.output()}`);
      return ledgerIds(ledgerFile).size >= sent.length ? true : undefined;
    });
    expect(ledgerIds(ledgerFile)).toEqual(new Set(sent));
    expect(offline.output()).toContain('(λ: ledger) RequestId');
    expect(dev.output()).toContain('rmq-offline-test-ledger');

    dev.child.kill('SIGINT');
    expect(await dev.exited, dev.output().slice(-2000)).toBe(0);
  }, 150_000);
});
