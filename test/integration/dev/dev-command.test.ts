/**
 * End to end: `rocketmq-lambda dev --local-broker` on the repository's serverless.yml, as a child process.
 * A message produced to the example topic `Orders` reaches the orders handler (its JSON log line on the
 * child's stdout), and after Ctrl-C (exit 0) its offset is in the embedded DynamoDB persisted under the
 * state directory. While it runs, its dev.json names its real name server and an embedded DynamoDB that
 * this (other) process can query, `rocketmq-lambda send` finds the name server there, and the name server
 * line is printed; the file is gone after the stop, and the AWS SDK's Node.js version warning never shows.
 */
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DescribeTableCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';

import { sendCommand } from '../../../src/cli/send-command.js';
import { startEmbeddedDynamoDb } from '../../../src/dev/embedded-dynamodb.js';
import { devStatePath, readDevState } from '../../../src/serverless-service/dev-state-file.js';
import { DEV_OFFSETS_TABLE } from '../../../src/serverless-service/serverless-dev-config.js';
import { runCaptured } from '../../support/fake-cli-io.js';
import { spawnDev } from './dev-process.js';

describe('rocketmq-lambda dev --local-broker', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('delivers a message produced to Orders to the orders handler and persists its offset', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'rocketmq-lambda-dev-'));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    const startedAt = Date.now();
    const dev = spawnDev(['--local-broker', '--state-dir', stateDir]);
    cleanups.push(() => dev.kill());
    const { child, watch, exited } = dev;

    const brokerLine = await watch.waitFor('the local broker', (l) => l.msg === 'local broker started');
    const nameServer = String(brokerLine.nameServer);
    await watch.waitFor('dev to start', (l) => l.msg === 'dev started: watching handlers, Ctrl-C stops');
    await watch.waitFor(
      'orders to hold its queues',
      (l) => l.msg === 'mapping status' && l.name === 'orders' && Number(l.queues) >= 4,
    );

    const state = await readDevState(stateDir);
    expect(state).toMatchObject({
      version: 1,
      pid: child.pid,
      nameServer,
      region: 'us-east-1',
    });
    expect(state?.topics).toContain('Orders');
    expect(state?.mappings).toContainEqual({
      name: 'orders',
      functionName: 'orders',
      topic: 'Orders',
      consumerGroup: 'orders-lambda',
      offsetsTable: DEV_OFFSETS_TABLE,
    });
    expect(state?.dynamoDbEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The embedded DynamoDB answers another process while dev runs (status/offsets read it).
    const live = new DynamoDBClient({
      endpoint: state?.dynamoDbEndpoint,
      region: state?.region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    cleanups.push(async () => live.destroy());
    const table = await live.send(new DescribeTableCommand({ TableName: DEV_OFFSETS_TABLE }));
    expect(table.Table?.TableStatus).toBe('ACTIVE');
    expect(watch.raw).toContain(
      `name server ${nameServer} (rocketmq-lambda send --topic Orders --body hi sends a test message)`,
    );

    // `send` with neither --name-server nor --config: the dev session's name server.
    const body = JSON.stringify({ orderId: 'dev-e2e-1', total: 12.5 });
    const { code, out, err } = await runCaptured((io) =>
      sendCommand(
        ['--topic', 'Orders', '--tags', 'order', '--body', body, '--json', '--state-dir', stateDir],
        io,
        Object.assign(Readable.from([]), { isTTY: true }),
      ),
    );
    expect(code, err).toBe(0);
    const sent = JSON.parse(out) as {
      msgId: string;
      brokerName: string;
      queueId: number;
      queueOffset: number;
    };

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
    expect(await exited, dev.stderr()).toBe(0);
    await expect(access(devStatePath(stateDir))).rejects.toThrow(/ENOENT/);
    expect(dev.stderr()).not.toMatch(/NodeVersion\w*Warning|AWS SDK for JavaScript \(v3\)/);

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
