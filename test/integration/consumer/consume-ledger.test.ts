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

  it('a poller joining mid-stream and one leaving gracefully redeliver nothing (hand-over)', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('handover');
    const group = uniqueGroup('handover');
    await createTopic(client, topic, 8);
    const producer = await newProducer(client);
    const ledger = new Ledger();
    // Slow batches, so that queues always have a batch in flight when they change hands.
    const slow = recordingListener(ledger, async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return { status: 'SUCCESS' };
    });
    const options = {
      topic,
      consumerGroup: group,
      startingPosition: 'TRIM_HORIZON' as const,
      batchSize: 10,
      persistIntervalMs: 5000, // the hand-over, not a fast persist, must prevent the duplicates
      maxConcurrency: 8,
    };
    const store = (clientId: string) => dynamoStore(group, clientId);
    const a = newRuntime(options, slow, store);
    await a.runtime.start();
    const sent: string[] = [];
    let producing = true;
    const stream = (async () => {
      while (producing) {
        sent.push(...(await produce(producer, topic, 40, { queues: 8, batch: 5 })));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await waitFor('a is consuming', 20_000, async () => (ledger.counts.size >= 200 ? true : undefined));
    const b = newRuntime(options, slow, store);
    await b.runtime.start(); // join: a hands 4 queues over to b
    const held = async (r: typeof a) =>
      (await r.runtime.status()).queues.filter((q) => q.queue.topic === topic).length;
    await waitFor('an even split', 30_000, async () =>
      (await held(a)) === 4 && (await held(b)) === 4 ? true : undefined,
    );
    const afterJoin = ledger.counts.size;
    await waitFor('both consuming', 20_000, async () =>
      ledger.counts.size >= afterJoin + 300 ? true : undefined,
    );
    await a.runtime.stop(); // graceful leave: b takes every queue from a's final offsets
    await waitFor('b holds every queue', 30_000, async () => ((await held(b)) === 8 ? true : undefined));
    const afterLeave = ledger.counts.size;
    await waitFor('b consuming alone', 20_000, async () =>
      ledger.counts.size >= afterLeave + 300 ? true : undefined,
    );
    producing = false;
    await stream;
    await waitFor('every message', 60_000, async () =>
      ledger.missing(sent).length === 0 ? true : undefined,
    );
    expect(ledger.missing(sent)).toEqual([]);
    console.info(
      `[consumer] join + graceful leave: ${sent.length} sent, 0 lost, ${ledger.duplicates()} duplicates`,
    );
    expect(ledger.duplicates()).toBe(0);
  });

  it('an offset beyond the end of a queue (the broker lost it) restarts from the queue start, losing nothing', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('beyond');
    const group = uniqueGroup('beyond');
    await createTopic(client, topic, 2);
    const producer = await newProducer(client);
    const sent = await produce(producer, topic, 60, { queues: 2, batch: 10 });
    // What a store holds after the broker lost its commit log: offsets far beyond the queues' ends.
    const seed = dynamoStore(group, 'seed');
    const { brokerName } = testBroker();
    for (const queueId of [0, 1]) seed.updateOffset({ topic, brokerName, queueId }, 1500, true);
    await seed.persistAll([0, 1].map((queueId) => ({ topic, brokerName, queueId })));
    const ledger = new Ledger();
    const { runtime } = newRuntime(
      { topic, consumerGroup: group, startingPosition: 'LATEST' },
      recordingListener(ledger),
      (clientId) => dynamoStore(group, clientId),
    );
    await runtime.start();
    await waitFor('all 60 messages', 30_000, async () => (ledger.counts.size >= 60 ? true : undefined));
    expect(ledger.missing(sent)).toEqual([]);
    await runtime.stop();
    const reader = dynamoStore(group, 'reader');
    for (const queueId of [0, 1]) {
      expect(await reader.readRecord({ topic, brokerName, queueId })).toMatchObject({
        offset: 30,
        generation: 1,
      });
    }
    expect(runtime.counters.offsetIllegal).toBeGreaterThanOrEqual(2);
  });
});
