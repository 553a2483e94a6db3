import { randomUUID } from 'node:crypto';
import {
  BatchWriteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { DynamoDbOffsetStoreOptions } from '../../../src/offsets/dynamodb-offset-store.js';
import { DynamoDbOffsetStore } from '../../../src/offsets/dynamodb-offset-store.js';
import { NO_OFFSET } from '../../../src/offsets/offset-store.js';
import { OffsetStoreError } from '../../../src/offsets/offset-store-error.js';
import type { DynaliteHandle } from '../../support/dynalite.js';
import { DYNALITE_CLIENT_CONFIG, startDynalite } from '../../support/dynalite.js';
import { startTcpGate } from './tcp-gate.js';

const queue = (queueId: number, topic = 'TopicA') => ({ topic, brokerName: 'broker-a', queueId });
const fastRetry = { maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 20 };

let db: DynaliteHandle;

beforeAll(async () => {
  db = await startDynalite();
});

afterAll(async () => {
  await db.close();
});

/** A client on `endpoint` that counts the commands it sends and how many run at once. */
function countingClient(endpoint: string) {
  const client = new DynamoDBClient({ ...DYNALITE_CLIENT_CONFIG, endpoint, maxAttempts: 1 });
  const counts = new Map<string, number>();
  const stats = { inFlight: 0, maxInFlight: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? 'unknown';
      counts.set(name, (counts.get(name) ?? 0) + 1);
      stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
      try {
        return await next(args);
      } finally {
        stats.inFlight--;
      }
    },
    { step: 'initialize', name: 'countCommands' },
  );
  onTestFinished(() => client.destroy());
  return { client, count: (command: string) => counts.get(command) ?? 0, stats };
}

function newStore(options: Partial<DynamoDbOffsetStoreOptions> & { table: string }): DynamoDbOffsetStore {
  const store = new DynamoDbOffsetStore({
    group: 'group-a',
    clientId: 'client-1',
    createTableIfMissing: true,
    retry: fastRetry,
    ...DYNALITE_CLIENT_CONFIG,
    endpoint: db.endpoint,
    ...options,
  } as DynamoDbOffsetStoreOptions);
  onTestFinished(() => store.close());
  return store;
}

const tableName = () => `offsets-${randomUUID()}`;

describe('DynamoDbOffsetStore against dynalite', () => {
  it('creates the table on request, also with a concurrent creator', async () => {
    const table = tableName();
    const { client } = countingClient(db.endpoint);
    await Promise.all([newStore({ table }).load(), newStore({ table, client }).load()]);
    const described = await client.send(new DescribeTableCommand({ TableName: table }));
    expect(described.Table?.TableStatus).toBe('ACTIVE');
    expect(described.Table?.KeySchema).toEqual([
      { AttributeName: 'group', KeyType: 'HASH' },
      { AttributeName: 'queue', KeyType: 'RANGE' },
    ]);
    expect(described.Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
  });

  it('fails with a clear error when the table is missing and creation was not asked for', async () => {
    const store = newStore({ table: tableName(), createTableIfMissing: false });
    store.updateOffset(queue(0), 1, true);
    const failure = await store.persist(queue(0)).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(OffsetStoreError);
    expect((failure as OffsetStoreError).retriable).toBe(false);
    expect((failure as Error).message).toContain('ResourceNotFoundException');
  });

  it('load() refuses a missing table for good, naming it, when creation was not asked for', async () => {
    const table = tableName();
    const failure = await newStore({ table, createTableIfMissing: false })
      .load()
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(OffsetStoreError);
    expect((failure as OffsetStoreError).permanent).toBe(true);
    expect((failure as Error).message).toContain(`the offsets table ${table} does not exist`);
    expect((failure as Error).message).toContain('offsets.createTable');
  });

  it('round-trips offsets with updatedAt and clientId', async () => {
    const table = tableName();
    const { client } = countingClient(db.endpoint);
    const writer = newStore({ table });
    expect(await writer.readOffset(queue(0), 'MEMORY_THEN_STORE')).toBe(NO_OFFSET);
    const before = Date.now();
    writer.updateOffset(queue(0), 1042, true);
    writer.updateOffset(queue(1), 7, true);
    await writer.persistAll([queue(0), queue(1)]);

    const reader = newStore({ table, clientId: 'client-2' });
    expect(await reader.readOffset(queue(0), 'STORE')).toBe(1042);
    expect(await reader.readOffset(queue(1), 'MEMORY_THEN_STORE')).toBe(7);
    expect(await reader.readOffset(queue(1), 'MEMORY')).toBe(7);
    const item = await client.send(
      new GetItemCommand({
        TableName: table,
        Key: { group: { S: 'group-a' }, queue: { S: 'TopicA@broker-a@0' } },
      }),
    );
    expect(item.Item?.offset).toEqual({ N: '1042' });
    expect(item.Item?.clientId).toEqual({ S: 'client-1' });
    expect(Number(item.Item?.updatedAt?.N)).toBeGreaterThanOrEqual(before);
  });

  it('never lets a lower offset from another poller overwrite a higher one, without an error', async () => {
    const table = tableName();
    const ahead = newStore({ table });
    ahead.updateOffset(queue(0), 100, true);
    await ahead.persist(queue(0));

    const { client, count } = countingClient(db.endpoint);
    const behind = newStore({ table, client, clientId: 'client-2' });
    behind.updateOffset(queue(0), 50, true);
    await behind.persist(queue(0)); // conditional check fails: not an error
    expect(count('UpdateItemCommand')).toBe(1);
    expect((await ahead.listOffsets()).get('TopicA@broker-a@0')).toBe(100);

    await behind.persistAll([queue(0)]); // already known not to need a write
    expect(count('UpdateItemCommand')).toBe(1);
    behind.updateOffset(queue(0), 101, true);
    await behind.persist(queue(0));
    expect((await ahead.listOffsets()).get('TopicA@broker-a@0')).toBe(101);
  });

  it('moves an offset below the stored one as a new generation, and stale writers learn of it', async () => {
    const table = tableName();
    const { client } = countingClient(db.endpoint);
    const owner = newStore({ table });
    owner.updateOffset(queue(0), 1500, true);
    await owner.persist(queue(0));
    // A second poller that still holds the queue's old generation in memory (it read 1500 earlier).
    const stale = newStore({ table, clientId: 'client-2' });
    expect(await stale.readOffset(queue(0), 'STORE')).toBe(1500);

    // The broker lost its store: the owner follows it down to 0.
    owner.correctOffset(queue(0), 0);
    await owner.persist(queue(0));
    expect(await owner.readRecord(queue(0))).toMatchObject({ offset: 0, generation: 1, holder: 'client-1' });
    owner.updateOffset(queue(0), 100, true); // consumption from the new start
    await owner.persist(queue(0));

    // The stale poller writes a higher offset of generation 0: refused, and it adopts generation 1.
    const resets: Array<{ queue: string; offset: number; generation: number }> = [];
    stale.onOffsetReset((mq, record) =>
      resets.push({
        queue: `${mq.topic}#${mq.queueId}`,
        offset: record.offset,
        generation: record.generation,
      }),
    );
    stale.updateOffset(queue(0), 1600, true);
    await stale.persist(queue(0));
    expect(resets).toEqual([{ queue: 'TopicA#0', offset: 100, generation: 1 }]);
    expect(await stale.readOffset(queue(0), 'MEMORY')).toBe(100);
    const item = await client.send(
      new GetItemCommand({
        TableName: table,
        Key: { group: { S: 'group-a' }, queue: { S: 'TopicA@broker-a@0' } },
        ConsistentRead: true,
      }),
    );
    expect(item.Item?.offset).toEqual({ N: '100' });
    expect(item.Item?.generation).toEqual({ N: '1' });
    // Within generation 1 the stale poller's writes count again.
    stale.updateOffset(queue(0), 140, true);
    await stale.persist(queue(0));
    expect(await newStore({ table }).readOffset(queue(0), 'STORE')).toBe(140);
  });

  it('reads items written before generations existed as generation 0 and raises them', async () => {
    const table = tableName();
    const { client } = countingClient(db.endpoint);
    const store = newStore({ table, client });
    await store.load();
    await client.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [table]: [
            {
              PutRequest: {
                Item: {
                  group: { S: 'group-a' },
                  queue: { S: 'TopicA@broker-a@0' },
                  offset: { N: '42' },
                  clientId: { S: 'old-poller' },
                },
              },
            },
          ],
        },
      }),
    );
    expect(await store.readRecord(queue(0))).toEqual({
      offset: 42,
      generation: 0,
      holder: 'old-poller',
      released: false,
      updatedAtMs: undefined,
    });
    store.updateOffset(queue(0), 50, true);
    await store.persist(queue(0));
    expect(await newStore({ table }).readRecord(queue(0))).toMatchObject({ offset: 50, generation: 0 });
  });

  it('release() marks queues handed over, the next write of an owner takes them again', async () => {
    const table = tableName();
    const leaving = newStore({ table, clientId: 'leaving' });
    leaving.updateOffset(queue(0), 10, true);
    await leaving.persist(queue(0));
    expect(await newStore({ table }).readRecord(queue(0))).toMatchObject({
      holder: 'leaving',
      released: false,
    });
    leaving.updateOffset(queue(0), 12, true);
    await leaving.release([queue(0), queue(9)]); // queue 9 is unknown to it: nothing to release
    expect(await newStore({ table }).readRecord(queue(0))).toMatchObject({
      offset: 12,
      holder: 'leaving',
      released: true,
    });
    const next = newStore({ table, clientId: 'next' });
    expect(await next.readOffset(queue(0), 'STORE')).toBe(12);
    next.updateOffset(queue(0), 20, true);
    await next.persist(queue(0));
    expect(await newStore({ table }).readRecord(queue(0))).toMatchObject({
      offset: 20,
      holder: 'next',
      released: false,
    });
    // A late release of the old owner does not mark the new owner's offset released.
    await leaving.release([queue(0)]);
    expect(await newStore({ table }).readRecord(queue(0))).toMatchObject({ holder: 'next', released: false });
  });

  it('writes only changed offsets, at most once per changed queue, never an equal one', async () => {
    const table = tableName();
    const { client, count, stats } = countingClient(db.endpoint);
    const store = newStore({ table, client, maxConcurrentWrites: 3 });
    await store.load();
    const queues = Array.from({ length: 12 }, (_, queueId) => queue(queueId));
    for (const q of queues) store.updateOffset(q, 10, true);
    await store.persistAll(queues);
    expect(count('UpdateItemCommand')).toBe(12);
    expect(stats.maxInFlight).toBeGreaterThan(1);
    expect(stats.maxInFlight).toBeLessThanOrEqual(3);

    await store.persistAll(queues);
    for (const q of queues) store.updateOffset(q, 10, true);
    await store.persistAll(queues);
    expect(count('UpdateItemCommand')).toBe(12);

    store.updateOffset(queue(3), 11, true);
    await Promise.all([store.persistAll(queues), store.persist(queue(3)), store.persistAll(queues)]);
    expect(count('UpdateItemCommand')).toBe(13);

    const reader = newStore({ table, client });
    expect(await reader.readOffset(queue(5), 'STORE')).toBe(10);
    reader.updateOffset(queue(5), 10, true); // equal to the stored offset
    await reader.persist(queue(5));
    expect(count('UpdateItemCommand')).toBe(13);
  });

  it('rejects with a retriable OffsetStoreError while DynamoDB is unreachable, then catches up', async () => {
    const table = tableName();
    const gate = await startTcpGate(db.endpoint);
    onTestFinished(() => gate.close());
    const { client, count } = countingClient(gate.endpoint);
    const store = newStore({ table, client });
    await store.load();
    store.updateOffset(queue(0), 5, true);
    store.updateOffset(queue(1), 6, true);

    await gate.shut();
    const failure = await store.persistAll([queue(0), queue(1)]).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(OffsetStoreError);
    expect((failure as OffsetStoreError).retriable).toBe(true);
    expect(count('UpdateItemCommand')).toBe(2 * fastRetry.maxAttempts);
    const readFailure = await store.readOffset(queue(2), 'STORE').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(readFailure).toBeInstanceOf(OffsetStoreError);
    expect((readFailure as OffsetStoreError).retriable).toBe(true);

    await gate.open();
    await store.persistAll([queue(0), queue(1)]);
    expect(await store.listOffsets()).toEqual(
      new Map([
        ['TopicA@broker-a@0', 5],
        ['TopicA@broker-a@1', 6],
      ]),
    );
  });

  it('resetOffset stores a new generation below the stored offset, listOffsets returns the group only', async () => {
    const table = tableName();
    const store = newStore({ table });
    const otherGroup = newStore({ table, group: 'group-b' });
    store.updateOffset(queue(0), 500, true);
    store.updateOffset(queue(1, 'TopicB'), 3, true);
    otherGroup.updateOffset(queue(0), 9, true);
    await Promise.all([store.persistAll([queue(0), queue(1, 'TopicB')]), otherGroup.persist(queue(0))]);

    await store.resetOffset(queue(0), 20);
    expect(await store.readOffset(queue(0), 'MEMORY')).toBe(20);
    expect(await newStore({ table }).readRecord(queue(0))).toMatchObject({ offset: 20, generation: 1 });
    expect(await store.listOffsets()).toEqual(
      new Map([
        ['TopicA@broker-a@0', 20],
        ['TopicB@broker-a@1', 3],
      ]),
    );
    expect(await otherGroup.listOffsets()).toEqual(new Map([['TopicA@broker-a@0', 9]]));
    await expect(store.resetOffset(queue(0), -5)).rejects.toThrow(OffsetStoreError);
  });

  it('pages through listOffsets', async () => {
    const table = tableName();
    const { client, count } = countingClient(db.endpoint);
    const store = newStore({ table, client });
    await store.load();
    const topic = `T${'x'.repeat(1000)}`; // about 1 KB per item: 1,200 items make the Query page at 1 MB
    const items = Array.from({ length: 1200 }, (_, queueId) => ({
      PutRequest: {
        Item: {
          group: { S: 'group-a' },
          queue: { S: `${topic}@broker-a@${queueId}` },
          offset: { N: String(queueId) },
        },
      },
    }));
    for (let start = 0; start < items.length; start += 25) {
      await client.send(
        new BatchWriteItemCommand({ RequestItems: { [table]: items.slice(start, start + 25) } }),
      );
    }
    const listed = await store.listOffsets();
    expect(count('QueryCommand')).toBeGreaterThan(1);
    expect(listed.size).toBe(1200);
    expect(listed.get(`${topic}@broker-a@1199`)).toBe(1199);
  });
});
