/**
 * `rocketmq-lambda run` end to end: the CLI as a child process against the real broker and dynalite,
 * with a `local:` handler that writes a ledger of what it received.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { DYNALITE_CLIENT_CONFIG, type DynaliteHandle, startDynalite } from '../../support/dynalite.js';
import { encryptedKeyPem, tlsTestCerts } from '../../support/tls-certs.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import { LEDGER_HANDLER, readLedger, spawnCli } from './poller-process.js';

const TABLE = 'cli_offsets';
const QUEUES = 4;

let db: DynaliteHandle;
let dynamo: DynamoDBClient;

beforeAll(async () => {
  db = await startDynalite();
  dynamo = new DynamoDBClient({ ...DYNALITE_CLIENT_CONFIG, endpoint: db.endpoint });
});
afterAll(async () => {
  dynamo.destroy();
  await db.close();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-cli-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A config file in `dir` consuming `topic` from its beginning with offsets in dynalite. */
async function writeConfig(
  dir: string,
  topic: string,
  group: string,
  mapping: Record<string, unknown> = {},
  offsets: Record<string, unknown> = {},
) {
  const file = path.join(dir, 'poller.json');
  const config = {
    nameServer: testBroker().namesrvAddr,
    shutdownTimeoutMs: 10_000,
    offsets: { store: 'dynamodb', table: TABLE, endpoint: db.endpoint, createTable: true, ...offsets },
    mappings: [
      {
        name: 'ledger',
        topic,
        consumerGroup: group,
        function: `local:${path.relative(dir, LEDGER_HANDLER)}#handler`,
        startingPosition: 'TRIM_HORIZON',
        maximumBatchingWindowMs: 20,
        ...mapping,
      },
    ],
  };
  await writeFile(file, JSON.stringify(config, null, 2));
  return file;
}

/** Stored offsets of `group` by queue id, read from the table. */
async function storedOffsets(group: string): Promise<Map<number, number>> {
  const result = await dynamo.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: '#g = :g',
      ExpressionAttributeNames: { '#g': 'group' },
      ExpressionAttributeValues: { ':g': { S: group } },
      ConsistentRead: true,
    }),
  );
  const offsets = new Map<number, number>();
  for (const item of result.Items ?? []) {
    const queue = item.queue?.S ?? '';
    const queueId = Number(queue.slice(queue.lastIndexOf('@') + 1));
    if (!queue.startsWith('%RETRY%')) offsets.set(queueId, Number(item.offset?.N));
  }
  return offsets;
}

/** stderr without Node's process warnings (the AWS SDK warns about Node 20 on its first use). */
function withoutNodeWarnings(stderr: string): string {
  return stderr.replace(/^\(node:\d+\) \w*Warning:[\s\S]*?to show where the warning was created\)\n/gm, '');
}

async function queueEnds(topic: string): Promise<Map<number, number>> {
  const client = newClient();
  onTestFinished(() => client.close());
  const ends = new Map<number, number>();
  for (let queueId = 0; queueId < QUEUES; queueId++) {
    ends.set(queueId, await client.broker.getMaxOffset(testBroker().brokerAddr, { topic, queueId }));
  }
  return ends;
}

describe('rocketmq-lambda run', () => {
  it('consumes every message once, stops on SIGTERM with exit 0 and leaves the offsets at the queue ends', async () => {
    const dir = await tempDir();
    const ledger = path.join(dir, 'ledger.txt');
    const topic = uniqueTopic('cli');
    const group = uniqueGroup('cli');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);
    const config = await writeConfig(dir, topic, group);

    const healthEnv = { ROCKETMQ_LAMBDA_HEALTH_FILE: path.join(dir, 'health') };
    const poller = spawnCli(['run', '--config', config], { LEDGER_FILE: ledger, ...healthEnv });
    await poller.waitForLog('the poller to start', (line) => line.msg === 'poller started');
    // `health` (a CLI start of its own, a few seconds) runs while the messages are sent and consumed.
    const healthy = spawnCli(['health'], healthEnv);
    const producer = await newProducer(client);
    const sent = await produce(producer, topic, 400, { queues: QUEUES, batch: 50 });

    await waitFor('every message in the ledger', 30_000, async () => {
      const seen = new Set(readLedger(ledger).map((entry) => entry.messageId));
      return sent.every((id) => seen.has(id)) ? true : undefined;
    });
    expect(await healthy.exited, healthy.stderr()).toEqual({ code: 0, signal: null });
    poller.child.kill('SIGTERM');
    const exit = await poller.exited;
    expect(exit, poller.stderr()).toEqual({ code: 0, signal: null });
    expect(withoutNodeWarnings(poller.stderr())).toBe('');

    const entries = readLedger(ledger);
    expect(entries).toHaveLength(sent.length);
    expect(await storedOffsets(group)).toEqual(await queueEnds(topic));
    const messages = poller.logs().map((line) => line.msg);
    expect(messages).toContain('stop signal: stopping gracefully');
    expect(messages.at(-1)).toBe('stopped');
    const afterStop = spawnCli(['health'], healthEnv);
    expect((await afterStop.exited).code).toBe(1);
    expect(afterStop.stderr()).toContain('no heartbeat file');
  });

  it('an orderly mapping delivers each queue in offset order and stops cleanly', async () => {
    const dir = await tempDir();
    const ledger = path.join(dir, 'ledger.txt');
    const topic = uniqueTopic('cli_orderly');
    const group = uniqueGroup('cli_orderly');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);
    const config = await writeConfig(dir, topic, group, { orderly: true, batchSize: 7 });
    const poller = spawnCli(['run', '--config', config], { LEDGER_FILE: ledger });
    await poller.waitForLog('the poller to start', (line) => line.msg === 'poller started');
    const sent = await produce(await newProducer(client), topic, 200, { queues: QUEUES, batch: 25 });
    await waitFor('every message in the ledger', 30_000, async () =>
      readLedger(ledger).length >= sent.length ? true : undefined,
    );
    poller.child.kill('SIGTERM');
    expect(await poller.exited, poller.stderr()).toEqual({ code: 0, signal: null });

    const entries = readLedger(ledger);
    expect(new Set(entries.map((entry) => entry.messageId))).toEqual(new Set(sent));
    for (let queueId = 0; queueId < QUEUES; queueId++) {
      const offsets = entries.filter((entry) => entry.queueId === queueId).map((entry) => entry.queueOffset);
      expect(offsets).toEqual(offsets.map((_, index) => index));
    }
    expect(await storedOffsets(group)).toEqual(await queueEnds(topic));
  });

  it('a bad config file: exit 2, one stderr line per problem, nothing started', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'bad.yaml');
    await writeFile(
      file,
      [
        `nameServer: ${testBroker().namesrvAddr}`,
        'offsets: { store: dynamodb }',
        'mappings:',
        '  - topic: T',
        '    consumerGroup: G',
        '    function: local:./missing.js',
        '    batchSize: 20000',
        '    startingPosition: NOW',
        '',
      ].join('\n'),
    );
    const cli = spawnCli(['run', '--config', file]);
    expect(await cli.exited).toEqual({ code: 2, signal: null });
    expect(cli.stderr().trimEnd().split('\n')).toEqual([
      `${file}: offsets.table: required when offsets.store is dynamodb`,
      `${file}: mappings[0].function: module ./missing.js not found (looked for ${path.join(dir, 'missing.js')})`,
      `${file}: mappings[0].batchSize: must be ≤ 10000, got 20000`,
      `${file}: mappings[0].startingPosition: must be one of LATEST, TRIM_HORIZON, AT_TIMESTAMP, got "NOW"`,
    ]);
    expect(cli.stdout()).toBe('');
  });

  it('killed with SIGKILL mid-stream and restarted: resumes from the DynamoDB offsets, nothing lost', async () => {
    const dir = await tempDir();
    const ledger = path.join(dir, 'ledger.txt');
    const topic = uniqueTopic('cli_kill');
    const group = uniqueGroup('cli_kill');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);
    const producer = await newProducer(client);
    const total = 1200;
    const sent = await produce(producer, topic, total, { queues: QUEUES, batch: 100 });
    // Slow enough that the first poller persists offsets before it is killed mid-stream, with more handled
    // since than one batch. Persisting every 1 s instead of the default 5 s: the kill comes ~1.5 s in
    // instead of ~5.5 s (a persisted offset is all the wait needs), with more messages still unhandled.
    const config = await writeConfig(
      dir,
      topic,
      group,
      { batchSize: 10, maxConcurrency: 1 },
      { persistIntervalMs: 1000 },
    );
    const env = { LEDGER_FILE: ledger, HANDLER_DELAY_MS: '80' };

    const first = spawnCli(['run', '--config', config], env);
    await waitFor('a persisted offset and more work after it', 60_000, async () => {
      const persisted = [...(await storedOffsets(group)).values()].reduce((a, b) => a + b, 0);
      return persisted > 0 && readLedger(ledger).length > persisted + 50 ? true : undefined;
    });
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // A write the poller had sent before the kill may still be in dynalite's hands: wait until every
    // write dynalite received is answered (its store has it) and the dead poller's connections are gone.
    await waitFor("the killed poller's writes to land", 10_000, () =>
      db.writesSettled() ? true : undefined,
    );
    const handledBeforeKill = readLedger(ledger).length;
    const persistedAtKill = [...(await storedOffsets(group)).values()].reduce((a, b) => a + b, 0);
    expect(handledBeforeKill).toBeLessThan(total);

    const second = spawnCli(['run', '--config', config], { ...env, HANDLER_DELAY_MS: '0' });
    await waitFor('every message in the ledger', 60_000, async () => {
      const seen = new Set(readLedger(ledger).map((entry) => entry.messageId));
      return sent.every((id) => seen.has(id)) ? true : undefined;
    });
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });

    const entries = readLedger(ledger);
    const seen = new Set(entries.map((entry) => entry.messageId));
    const lost = sent.filter((id) => !seen.has(id)).length;
    const duplicates = entries.length - seen.size;
    // Redelivered: at most what the broker's copy of the committed offset had not heard of yet. It
    // follows every batch (broker-offset-sync.ts), so that is the batch in flight at the kill, and at
    // most one finished batch whose update was still on its way: far less than what DynamoDB had not
    // stored yet (the ledger line is written when a batch arrives).
    process.stdout.write(
      `[cli kill -9] sent ${total}, handled before kill ${handledBeforeKill}, persisted at kill ${persistedAtKill}, lost ${lost}, duplicates ${duplicates}\n`,
    );
    expect(lost).toBe(0);
    expect(duplicates).toBeLessThanOrEqual(2 * 10); // two batches of batchSize 10 (maxConcurrency 1)
    expect(duplicates).toBeLessThanOrEqual(handledBeforeKill - persistedAtKill);
    expect(await storedOffsets(group)).toEqual(await queueEnds(topic));
  });

  it('a second stop signal exits at once, without waiting for the in-flight batch', async () => {
    const dir = await tempDir();
    const ledger = path.join(dir, 'ledger.txt');
    const topic = uniqueTopic('cli_twice');
    const group = uniqueGroup('cli_twice');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);
    const config = await writeConfig(dir, topic, group);
    const poller = spawnCli(['run', '--config', config], { LEDGER_FILE: ledger, HANDLER_DELAY_MS: '60000' });
    await poller.waitForLog('the poller to start', (line) => line.msg === 'poller started');
    await produce(await newProducer(client), topic, 1);
    await waitFor('the batch to reach the handler', 20_000, async () =>
      readLedger(ledger).length > 0 ? true : undefined,
    );

    poller.child.kill('SIGTERM');
    await poller.waitForLog('the graceful stop', (line) => line.msg === 'stop signal: stopping gracefully');
    const secondAt = Date.now();
    poller.child.kill('SIGINT');
    expect(await poller.exited).toEqual({ code: 130, signal: null });
    expect(Date.now() - secondAt).toBeLessThan(5000);
    expect(poller.logs().some((line) => line.msg === 'second stop signal: exiting at once')).toBe(true);
  });

  it('a handler without its export stops run at start: exit 1, one line naming mapping, module and exports; nothing consumed', async () => {
    const dir = await tempDir();
    const ledger = path.join(dir, 'ledger.txt');
    const topic = uniqueTopic('cli_fatal');
    const group = uniqueGroup('cli_fatal');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);
    await produce(await newProducer(client), topic, 1);
    const config = await writeConfig(dir, topic, group, {
      function: `local:${path.relative(dir, LEDGER_HANDLER)}#noSuchExport`,
    });

    const poller = spawnCli(['run', '--config', config], { LEDGER_FILE: ledger });

    expect(await poller.exited).toEqual({ code: 1, signal: null });
    expect(withoutNodeWarnings(poller.stderr())).toBe(
      `rocketmq-lambda run: mapping ledger could not start: handler module ${LEDGER_HANDLER} has no function export "noSuchExport" (its exports: handler)\n`,
    );
    const messages = poller.logs().map((line) => line.msg);
    expect(messages).toContain('the handler cannot be loaded');
    expect(messages).not.toContain('poller started');
    expect(readLedger(ledger)).toEqual([]);
  });

  it('a module that is none (a passwd file) stops run at start with exit 1, and validate reports it with exit 2', async () => {
    const dir = await tempDir();
    const secretLine = 'root:x:0:0:root:/root:/bin/bash';
    await writeFile(path.join(dir, 'passwd'), `${secretLine}\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n`);
    const config = await writeConfig(dir, uniqueTopic('cli_passwd'), uniqueGroup('cli_passwd'), {
      function: 'local:./passwd#x',
    });

    const poller = spawnCli(['run', '--config', config]);
    const validate = spawnCli(['validate', '--config', config]);

    expect(await poller.exited).toEqual({ code: 1, signal: null });
    // Node reads an extensionless file as CommonJS: a syntax error at its first line.
    expect(withoutNodeWarnings(poller.stderr())).toBe(
      `rocketmq-lambda run: mapping ledger could not start: cannot load handler module ${dir}/passwd (export x): SyntaxError: Unexpected token ':' (at ${dir}/passwd:1)\n`,
    );
    expect(await validate.exited).toEqual({ code: 2, signal: null });
    expect(withoutNodeWarnings(validate.stderr())).toBe(
      `${config}: mappings[0].function: mapping ledger: cannot load handler module ${dir}/passwd (export x): SyntaxError: Unexpected token ':' (at ${dir}/passwd:1)\n`,
    );
    expect(poller.logs().map((line) => line.msg)).not.toContain('poller started');
    expect(withoutNodeWarnings(poller.stderr()) + validate.stderr()).not.toContain(secretLine);
  });

  it('a TLS key its passphrase does not decrypt stops run at start with exit 1 naming the settings; the passphrase is printed nowhere', async () => {
    const dir = await tempDir();
    const certs = await tlsTestCerts();
    const passphrase = 'Wrong-Passphrase-5eed';
    await writeFile(path.join(dir, 'client.key'), encryptedKeyPem(certs.client, 'Right-Passphrase-f00d'));
    const config = path.join(dir, 'poller.json');
    await writeFile(
      config,
      JSON.stringify({
        nameServer: testBroker().namesrvAddr,
        tls: { caFile: certs.ca.certPath, certFile: certs.client.certPath, keyFile: 'client.key' },
        offsets: { store: 'memory' },
        mappings: [
          {
            name: 'ledger',
            topic: uniqueTopic('cli_tls_key'),
            consumerGroup: uniqueGroup('cli_tls_key'),
            function: `local:${LEDGER_HANDLER}`,
          },
        ],
      }),
    );

    // The passphrase from the environment, as a deployed poller gets it.
    const poller = spawnCli(['run', '--config', config], { ROCKETMQ_TLS_KEY_PASSPHRASE: passphrase });

    expect(await poller.exited).toEqual({ code: 1, signal: null });
    expect(withoutNodeWarnings(poller.stderr())).toBe(
      'rocketmq-lambda run: tls.keyPassphrase (or ROCKETMQ_TLS_KEY_PASSPHRASE): does not decrypt tls.keyFile (wrong passphrase)\n',
    );
    expect(poller.stdout() + poller.stderr()).not.toContain(passphrase);
    expect(poller.logs().map((line) => line.msg)).not.toContain('poller started');
  });
});
