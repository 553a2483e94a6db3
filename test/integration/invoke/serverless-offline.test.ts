/**
 * The local loop with real handler files: `serverless offline` (osls + serverless-offline) serves the
 * Lambda Invoke API for the fixture service test/fixtures/serverless-offline, and the poller invokes its
 * handler through `lambda.endpoint` (serverless-offline resolves only the full `service-stage-function`
 * name). The handler appends each record to a ledger file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import { lambdaConfig, queueEnds, runPoller, topicOffsets, useLambdaSuite } from './lambda-harness.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = path.join(REPO, 'test/fixtures/serverless-offline');
const SERVERLESS_BIN = path.join(REPO, 'node_modules/serverless/bin/serverless.js');
/** `<service>-<stage>-<function>` of the fixture. */
const FUNCTION_NAME = 'rmq-offline-test-ledger';
const QUEUES = 2;

const suite = useLambdaSuite();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Copies the fixture service to a temp dir (node_modules linked) and starts `serverless offline` there. */
async function startOffline(ledgerFile: string): Promise<{ endpoint: string; output: () => string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-offline-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await cp(FIXTURE, dir, { recursive: true });
  await symlink(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
  const port = await freePort();
  // An Event invoke of a throwing handler would crash serverless-offline without the flag.
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--unhandled-rejections=warn',
      SERVERLESS_BIN,
      'offline',
      '--host',
      '127.0.0.1',
      '--lambdaPort',
      String(port),
      '--httpPort',
      String(await freePort()),
    ],
    {
      cwd: dir,
      env: {
        ...process.env,
        LEDGER_FILE: ledgerFile,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        SLS_TELEMETRY_DISABLED: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  onTestFinished(async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  });
  await waitFor('serverless offline to listen', 60_000, async () => {
    if (child.exitCode !== null) throw new Error(`serverless offline exited:\n${output}`);
    return output.includes('listening on') && output.includes(FUNCTION_NAME) ? true : undefined;
  }).catch((error: unknown) => {
    throw new Error(`serverless offline did not start:\n${output}`, { cause: error });
  });
  return { endpoint: `http://127.0.0.1:${port}`, output: () => output };
}

function readLedger(file: string): { messageId: string; reconsumeTimes: number }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [messageId = '', , , reconsumeTimes = ''] = line.split(' ');
      return { messageId, reconsumeTimes: Number(reconsumeTimes) };
    });
}

describe('serverless-offline', () => {
  it('the poller invokes a real handler file of a serverless.yml through serverless offline', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rl-offline-ledger-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const ledgerFile = path.join(dir, 'ledger.txt');
    const startedAt = Date.now();
    const offline = await startOffline(ledgerFile);
    const startMs = Date.now() - startedAt;

    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('offline');
    const group = uniqueGroup('offline');
    await createTopic(client, topic, QUEUES);
    const sent = await produce(await newProducer(client), topic, 60, { queues: QUEUES, batch: 30 });
    const poller = await runPoller(
      lambdaConfig(
        suite(),
        { topic, consumerGroup: group, function: FUNCTION_NAME, batchSize: 20 },
        { lambda: { endpoint: offline.endpoint } },
      ),
    );
    await waitFor('every message in the handler ledger', 60_000, async () =>
      new Set(readLedger(ledgerFile).map((entry) => entry.messageId)).size >= sent.length ? true : undefined,
    );
    const exit = await poller.stop();
    expect(exit.failures).toEqual([]);

    const entries = readLedger(ledgerFile);
    expect(new Set(entries.map((entry) => entry.messageId))).toEqual(new Set(sent));
    expect(entries).toHaveLength(sent.length);
    expect(entries.every((entry) => entry.reconsumeTimes === 0)).toBe(true);
    expect(offline.output()).toContain('(λ: ledger) RequestId');
    expect(await topicOffsets(suite(), group, topic)).toEqual(await queueEnds(client, topic, QUEUES));
    process.stdout.write(
      `[serverless-offline] ready in ${startMs} ms; ${sent.length} messages in ${poller.invokeStats().lambda.requests} invokes\n`,
    );
  });
});
