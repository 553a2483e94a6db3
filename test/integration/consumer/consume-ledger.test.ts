import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DynamoDbOffsetStore } from '../../../src/offsets/dynamodb-offset-store.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { DYNALITE_CLIENT_CONFIG, type DynaliteHandle, startDynalite } from '../../support/dynalite.js';
import {
  createTopic,
  Ledger,
  newClient,
  newProducer,
  newRuntime,
  produce,
  recordingListener,
  waitFor,
} from './helpers.js';

let db: DynaliteHandle;
let dynamo: DynamoDBClient;
const table = 'consumer_offsets';

beforeAll(async () => {
  db = await startDynalite();
  dynamo = new DynamoDBClient({ ...DYNALITE_CLIENT_CONFIG, endpoint: db.endpoint });
});
afterAll(async () => {
  dynamo.destroy();
  await db.close();
});

function dynamoStore(group: string, clientId: string): DynamoDbOffsetStore {
  return new DynamoDbOffsetStore({ client: dynamo, table, group, clientId, createTableIfMissing: true });
}

/** The stored offsets (fresh read) and the queue ends of `topic`'s queues. */
async function storedVersusEnds(group: string, topic: string, queues: number) {
  const client = newClient();
  onTestFinished(() => client.close());
  const reader = dynamoStore(group, 'reader');
  const { brokerAddr, brokerName } = testBroker();
  const rows = [];
  for (let queueId = 0; queueId < queues; queueId++) {
    const mq = { topic, brokerName, queueId };
    rows.push({
      stored: await reader.readOffset(mq, 'STORE'),
      end: await client.broker.getMaxOffset(brokerAddr, { topic, queueId }),
    });
  }
  return rows;
}

describe('ConsumerRuntime against the real broker', () => {
  it('consumes 10,000 messages over 8 queues, each once, and stores the queue ends in DynamoDB', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('ledger');
    const group = uniqueGroup('ledger');
    await createTopic(client, topic, 8);
    const producer = await newProducer(client);
    const sent = await produce(producer, topic, 10_000, { queues: 8, batch: 125 });
    const ledger = new Ledger();
    const started = Date.now();
    const consumerClientId = `ledger-${group}`;
    const { runtime } = newRuntime(
      { topic, consumerGroup: group, startingPosition: 'TRIM_HORIZON', batchSize: 100 },
      recordingListener(ledger),
      dynamoStore(group, consumerClientId),
    );
    await runtime.start();
    await waitFor('all 10,000 messages', 45_000, async () =>
      ledger.counts.size >= sent.length ? true : undefined,
    );
    const elapsedMs = Date.now() - started;
    expect(ledger.missing(sent)).toEqual([]);
    expect(ledger.duplicates()).toBe(0);
    const status = await runtime.status();
    expect(status.queues.filter((q) => q.queue.topic === topic)).toHaveLength(8);
    await runtime.stop();
    const rows = await storedVersusEnds(group, topic, 8);
    for (const row of rows) expect(row.stored).toBe(row.end);
    console.info(`[consumer] 10,000 messages over 8 queues consumed in ${elapsedMs} ms`);
  });

  it('two runtimes split the queues; stopping one hands its queues over with no message lost', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('handoff');
    const group = uniqueGroup('handoff');
    await createTopic(client, topic, 8);
    const producer = await newProducer(client);
    const ledger = new Ledger();
    const options = { topic, consumerGroup: group, startingPosition: 'TRIM_HORIZON' as const, batchSize: 20 };
    const a = newRuntime(options, recordingListener(ledger), dynamoStore(group, 'a'));
    const b = newRuntime(options, recordingListener(ledger), dynamoStore(group, 'b'));
    await a.runtime.start();
    await b.runtime.start();
    const held = async () =>
      Promise.all(
        [a.runtime, b.runtime].map(
          async (r) => (await r.status()).queues.filter((q) => q.queue.topic === topic).length,
        ),
      );
    await waitFor('an even split', 20_000, async () => ((await held()).join() === '4,4' ? true : undefined));
    const sent = await produce(producer, topic, 1000, { queues: 8, batch: 25 });
    await waitFor('first half consumed', 20_000, async () => (ledger.counts.size >= 1000 ? true : undefined));
    const more = produce(producer, topic, 1000, { queues: 8, batch: 5 });
    await a.runtime.stop();
    sent.push(...(await more));
    await waitFor('b holds every queue', 20_000, async () =>
      (await b.runtime.status()).queues.filter((q) => q.queue.topic === topic).length === 8
        ? true
        : undefined,
    );
    sent.push(...(await produce(producer, topic, 400, { queues: 8, batch: 10 })));
    await waitFor('every message', 30_000, async () =>
      ledger.missing(sent).length === 0 ? true : undefined,
    );
    expect(ledger.missing(sent)).toEqual([]);
    console.info(`[consumer] hand-off: ${sent.length} sent, 0 lost, ${ledger.duplicates()} duplicates`);
  });
});
