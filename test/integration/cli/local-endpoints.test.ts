/**
 * `rocketmq-lambda run` with its offsets in a local DynamoDB (the real dynalite) and NO AWS credentials
 * anywhere (test/support/credential-free-cli.ts): the endpoint is on loopback, so the poller signs with
 * placeholders (src/util/local-endpoint-credentials.ts), starts, consumes and commits, where it used to
 * stop at start with "Could not load credentials from any providers".
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { spawnCliWithoutCredentials } from '../../support/credential-free-cli.js';
import { DYNALITE_CLIENT_CONFIG, type DynaliteHandle, startDynalite } from '../../support/dynalite.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';
import { LEDGER_HANDLER, readLedger } from './poller-process.js';

const TABLE = 'local_endpoint_offsets';
const QUEUES = 2;
const MESSAGES = 20;

let db: DynaliteHandle;
let dynamo: DynamoDBClient;

beforeAll(async () => {
  db = await startDynalite();
  dynamo = new DynamoDBClient({ ...DYNALITE_CLIENT_CONFIG, endpoint: db.endpoint });
});
afterAll(async () => {
  dynamo?.destroy();
  await db?.close();
});

/** The committed offsets of `group`, summed over its queues (retry queues left out). */
async function committed(group: string): Promise<number> {
  const result = await dynamo.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: '#g = :g',
      ExpressionAttributeNames: { '#g': 'group' },
      ExpressionAttributeValues: { ':g': { S: group } },
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? [])
    .filter((item) => !(item.queue?.S ?? '').startsWith('%RETRY%'))
    .reduce((sum, item) => sum + Number(item.offset?.N ?? 0), 0);
}

describe('a poller with a local DynamoDB and no AWS credentials', () => {
  it('starts, consumes and commits its offsets, then stops cleanly', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rl-local-endpoints-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const topic = uniqueTopic('LocalEndpoint');
    const group = uniqueGroup('LocalEndpoint');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);
    const config = path.join(dir, 'poller.json');
    await writeFile(
      config,
      JSON.stringify({
        nameServer: testBroker().namesrvAddr,
        shutdownTimeoutMs: 10_000,
        // No region and no credentials: the endpoint is on loopback.
        offsets: { store: 'dynamodb', table: TABLE, endpoint: db.endpoint, createTable: true },
        mappings: [
          {
            name: 'ledger',
            topic,
            consumerGroup: group,
            function: `local:${path.relative(dir, LEDGER_HANDLER)}#handler`,
            startingPosition: 'TRIM_HORIZON',
          },
        ],
      }),
    );
    const ledger = path.join(dir, 'ledger.txt');
    const poller = spawnCliWithoutCredentials(['run', '--config', config], { LEDGER_FILE: ledger });
    const sent = await produce(await newProducer(client), topic, MESSAGES, { queues: QUEUES });

    const consumed = waitFor(
      'every message handled and its offset committed to dynalite',
      30_000,
      async () => {
        const handled = new Set(readLedger(ledger).map((entry) => entry.messageId));
        if (!sent.every((id) => handled.has(id))) return undefined;
        return (await committed(group)) === MESSAGES ? true : undefined;
      },
    );
    // A poller that stops at start (as it did without credentials) fails the test at once, with its words.
    const stoppedEarly = poller.exited.then((code) => {
      throw new Error(
        `the poller exited (${code}) before committing; stderr:\n${poller.stderr()}\n${poller.stdout()}`,
      );
    });
    await Promise.race([consumed, stoppedEarly]);
    poller.child.kill('SIGTERM');
    expect(await poller.exited, poller.stderr()).toBe(0);
    expect(poller.stdout() + poller.stderr()).not.toContain('Could not load credentials');
  });
});
