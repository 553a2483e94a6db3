/**
 * End to end: `rocketmq-lambda dev --local-broker` on the repository's serverless.yml, as a child process.
 * A message produced to the example topic `Orders` reaches the orders handler (its JSON log line on the
 * child's stdout), and after Ctrl-C (exit 0) its offset is in the embedded DynamoDB persisted under the
 * state directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { startEmbeddedDynamoDb } from '../../../src/dev/embedded-dynamodb.js';
import { DEV_OFFSETS_TABLE } from '../../../src/dev/serverless-dev-config.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const STEP_TIMEOUT_MS = 60_000;

type Line = Record<string, unknown>;

/** Collects the child's stdout JSON lines and lets the test wait for one. */
class LineWatch {
  readonly lines: Line[] = [];
  readonly raw: string[] = [];
  #waiters: { match: (line: Line) => boolean; resolve: (line: Line) => void }[] = [];

  constructor(child: ChildProcess) {
    if (child.stdout === null) throw new Error('no stdout');
    createInterface({ input: child.stdout }).on('line', (text) => {
      this.raw.push(text);
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        return; // not a JSON line (plain text is fine)
      }
      this.lines.push(line);
      this.#waiters = this.#waiters.filter((waiter) => {
        if (!waiter.match(line)) return true;
        waiter.resolve(line);
        return false;
      });
    });
  }

  waitFor(what: string, match: (line: Line) => boolean, timeoutMs = STEP_TIMEOUT_MS): Promise<Line> {
    const found = this.lines.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<Line>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`timed out waiting for ${what}; last lines:\n${this.raw.slice(-15).join('\n')}`));
      }, timeoutMs);
      this.#waiters.push({
        match,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  }
}

describe('rocketmq-lambda dev --local-broker', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('delivers a message produced to Orders to the orders handler and persists its offset', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'rocketmq-lambda-dev-'));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    const startedAt = Date.now();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'dev', '--local-broker', '--state-dir', stateDir],
      { cwd: REPO, env: { ...process.env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const watch = new LineWatch(child);

    const brokerLine = await watch.waitFor('the local broker', (l) => l.msg === 'local broker started');
    const nameServer = String(brokerLine.nameServer);
    await watch.waitFor('dev to start', (l) => l.msg === 'dev started: watching handlers, Ctrl-C stops');
    await watch.waitFor(
      'orders to hold its queues',
      (l) => l.msg === 'mapping status' && l.name === 'orders' && Number(l.queues) >= 4,
    );

    const client = new RocketMQClient({ nameServerAddresses: nameServer });
    const producer = new Producer({ client });
    await producer.start();
    const sent = await producer.send({
      topic: 'Orders',
      tags: 'order',
      body: JSON.stringify({ orderId: 'dev-e2e-1', total: 12.5 }),
    });
    await producer.shutdown();
    await client.close();

    const handled = await watch.waitFor(
      'the orders handler',
      (l) => l.handler === 'orders' && l.messageId === sent.msgId,
    );
    expect(handled.orderId).toBe('dev-e2e-1');
    const first = await watch.waitFor('the first invocation', (l) => l.msg === 'first invocation');
    console.info(
      `dev: first invocation ${String(first.msSinceStart)} ms after start; handled ${Date.now() - startedAt} ms after spawn`,
    );

    child.kill('SIGINT');
    expect(await exited, stderr).toBe(0);

    const db = await startEmbeddedDynamoDb(path.join(stateDir, 'dynamodb'));
    cleanups.push(() => db.close());
    const dynamo = new DynamoDBClient({
      endpoint: db.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    cleanups.push(async () => dynamo.destroy());
    const scan = await dynamo.send(new ScanCommand({ TableName: DEV_OFFSETS_TABLE }));
    const offsets = new Map(
      (scan.Items ?? [])
        .filter((item) => item.group?.S === 'orders-lambda')
        .map((item) => [item.queue?.S, Number(item.offset?.N)]),
    );
    const queueKey = `Orders@${sent.brokerName}@${sent.queueId}`;
    expect(offsets.get(queueKey), JSON.stringify([...offsets])).toBe(sent.queueOffset + 1);
  }, 90_000);
});
