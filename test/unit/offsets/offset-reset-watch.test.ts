import {
  type AttributeValue,
  DescribeTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbOffsetStore } from '../../../src/offsets/dynamodb-offset-store.js';
import {
  DEFAULT_RESET_WATCH_INTERVAL_MS,
  OffsetResetWatch,
} from '../../../src/offsets/offset-reset-watch.js';
import type { StoredOffsetRecord } from '../../../src/offsets/offset-store.js';
import { type MessageQueue, messageQueueKey } from '../../../src/protocol/message-queue.js';
import { componentLogger } from '../../../src/util/logger.js';

const GROUP = 'orders-lambda';
const Q0: MessageQueue = { topic: 'Orders', brokerName: 'broker-a', queueId: 0 };
const Q1: MessageQueue = { topic: 'Orders', brokerName: 'broker-a', queueId: 1 };

/** The offsets table of one group, as items; counts the calls by command. */
class FakeTable {
  readonly items = new Map<string, Record<string, AttributeValue>>();
  readonly calls: string[] = [];
  /** Every UpdateItem fails its condition (another writer moved the item). */
  refuseUpdates = false;
  /** Resolves a pending UpdateItem when set (to hold a write in flight). */
  holdUpdates: Promise<void> | undefined;

  put(queue: MessageQueue, offset: number, generation: number, holder = 'other@1#x'): void {
    const key = messageQueueKey(queue);
    this.items.set(key, {
      group: { S: GROUP },
      queue: { S: key },
      offset: { N: String(offset) },
      generation: { N: String(generation) },
      clientId: { S: holder },
      released: { BOOL: false },
      updatedAt: { N: '1000' },
    });
  }

  client(): DynamoDBClient {
    const send = async (command: unknown): Promise<unknown> => {
      if (command instanceof DescribeTableCommand) {
        this.calls.push('DescribeTable');
        return { Table: { TableStatus: 'ACTIVE' } };
      }
      if (command instanceof QueryCommand) {
        this.calls.push(`Query(consistent=${String(command.input.ConsistentRead)})`);
        return { Items: [...this.items.values()] };
      }
      if (command instanceof GetItemCommand) {
        this.calls.push('GetItem');
        const key = command.input.Key?.queue?.S ?? '';
        return { Item: this.items.get(key) };
      }
      if (command instanceof UpdateItemCommand) {
        this.calls.push('UpdateItem');
        await this.holdUpdates;
        if (this.refuseUpdates) {
          const error = new Error('The conditional request failed');
          error.name = 'ConditionalCheckFailedException';
          throw error;
        }
        const key = command.input.Key?.queue?.S ?? '';
        const values = command.input.ExpressionAttributeValues ?? {};
        this.items.set(key, {
          group: { S: GROUP },
          queue: { S: key },
          offset: values[':offset'] ?? { N: '0' },
          generation: values[':generation'] ?? { N: '0' },
          clientId: values[':clientId'] ?? { S: '' },
          released: values[':released'] ?? { BOOL: false },
          updatedAt: values[':updatedAt'] ?? { N: '0' },
        });
        return {};
      }
      throw new Error(`unexpected command ${String(command)}`);
    };
    return { send } as unknown as DynamoDBClient;
  }
}

function storeOver(table: FakeTable, resetWatchIntervalMs: number | false = 5000): DynamoDbOffsetStore {
  return new DynamoDbOffsetStore({
    client: table.client(),
    table: 'offsets',
    group: GROUP,
    clientId: 'me@1#y',
    resetWatchIntervalMs,
    retry: { maxAttempts: 1 },
  });
}

// Every test here runs on fake timers: the watch's intervals pass at once.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the reset watch of the DynamoDB store', () => {
  it('adopts a newer generation of a held idle queue within one interval and tells the listeners once', async () => {
    const table = new FakeTable();
    table.put(Q0, 500, 0, 'me@1#y');
    table.put(Q1, 300, 0, 'me@1#y');
    const store = storeOver(table);
    const resets: Array<[string, StoredOffsetRecord]> = [];
    store.onOffsetReset((queue, record) => resets.push([messageQueueKey(queue), record]));
    await store.load();
    await store.readRecord(Q0); // holds Q0 at 500, generation 0 (Q1 is not held)
    table.put(Q0, 0, 1, 'operator@2#z'); // an operator resets Q0 to 0
    table.put(Q1, 0, 1, 'operator@2#z'); // and Q1, which this poller does not hold

    await vi.advanceTimersByTimeAsync(4999);
    expect(resets).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(resets.map(([key, record]) => [key, record.offset, record.generation])).toEqual([
      ['Orders@broker-a@0', 0, 1],
    ]);
    expect(await store.readOffset(Q0, 'MEMORY')).toBe(0);
    expect(await store.readOffset(Q1, 'MEMORY')).toBe(-1);

    await vi.advanceTimersByTimeAsync(3 * 5000); // later scans see the same generation: no second notice
    expect(resets).toHaveLength(1);
    await store.close();
  });

  it('reads with one eventually consistent Query per interval, and none while it holds no queue', async () => {
    const table = new FakeTable();
    const store = storeOver(table);
    await store.load();
    await vi.advanceTimersByTimeAsync(3 * 5000);
    expect(table.calls.filter((call) => call.startsWith('Query'))).toEqual([]);
    store.updateOffset(Q0, 10, true);
    await vi.advanceTimersByTimeAsync(3 * 5000);
    expect(table.calls.filter((call) => call.startsWith('Query'))).toEqual([
      'Query(consistent=false)',
      'Query(consistent=false)',
      'Query(consistent=false)',
    ]);
    await store.close();
  });

  it('stops with close(): no scan after it', async () => {
    const table = new FakeTable();
    const store = storeOver(table);
    await store.load();
    store.updateOffset(Q0, 10, true);
    await store.close();
    await vi.advanceTimersByTimeAsync(10 * 5000);
    expect(table.calls.filter((call) => call.startsWith('Query'))).toEqual([]);
  });

  it('does not watch without resetWatchIntervalMs (an operator store)', async () => {
    const table = new FakeTable();
    const store = storeOver(table, false);
    await store.load();
    store.updateOffset(Q0, 10, true);
    await vi.advanceTimersByTimeAsync(10 * 5000);
    expect(table.calls.filter((call) => call.startsWith('Query'))).toEqual([]);
    await store.close();
  });

  it('leaves a queue with a write in flight to that write, which tells the listeners once', async () => {
    const table = new FakeTable();
    table.put(Q0, 500, 0, 'me@1#y');
    const store = storeOver(table);
    const resets: number[] = [];
    store.onOffsetReset((_queue, record) => resets.push(record.offset));
    await store.load();
    await store.readRecord(Q0);
    store.updateOffset(Q0, 520, true);
    table.put(Q0, 7, 1, 'operator@2#z');
    let release: () => void = () => undefined;
    table.holdUpdates = new Promise((resolve) => {
      release = resolve;
    });
    table.refuseUpdates = true; // our write of generation 0 meets generation 1
    const persisting = store.persist(Q0);
    await vi.advanceTimersByTimeAsync(5000); // the scan runs while the write is in flight
    expect(resets).toEqual([]);
    release();
    await persisting;
    expect(resets).toEqual([7]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(resets).toEqual([7]);
    await store.close();
  });

  it('a refused write of a generation the store has learnt meanwhile tells nobody', async () => {
    const table = new FakeTable();
    table.put(Q0, 500, 0, 'me@1#y');
    const store = storeOver(table, false);
    const resets: number[] = [];
    store.onOffsetReset((_queue, record) => resets.push(record.offset));
    await store.load();
    await store.readRecord(Q0);
    store.updateOffset(Q0, 520, true);
    table.put(Q0, 7, 1, 'operator@2#z');
    let release: () => void = () => undefined;
    table.holdUpdates = new Promise((resolve) => {
      release = resolve;
    });
    table.refuseUpdates = true;
    const persisting = store.persist(Q0); // generation 0, in flight
    await vi.advanceTimersByTimeAsync(0);
    await store.readRecord(Q0); // the queue is taken again meanwhile: its start reads generation 1
    release();
    await persisting;
    expect(resets).toEqual([]);
    expect(await store.readOffset(Q0, 'MEMORY')).toBe(7);
    await store.close();
  });
});

describe('OffsetResetWatch', () => {
  it('runs one scan at a time, an interval after the previous one ended, and keeps going after failures', async () => {
    const starts: number[] = [];
    let fail = true;
    const watch = new OffsetResetWatch({
      intervalMs: 1000,
      log: componentLogger('test'),
      scan: async () => {
        starts.push(Date.now());
        await new Promise((resolve) => setTimeout(resolve, 300));
        if (fail) {
          fail = false;
          throw new Error('throttled');
        }
      },
    });
    const t0 = Date.now();
    watch.start();
    watch.start(); // idempotent
    await vi.advanceTimersByTimeAsync(3000);
    expect(starts.map((at) => at - t0)).toEqual([1000, 2300]);
    await vi.advanceTimersByTimeAsync(700); // the third scan runs from 3600 to 3900
    const stopped = watch.stop();
    let done = false;
    void stopped.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(done).toBe(false); // stop() waits for the running scan
    await vi.advanceTimersByTimeAsync(300);
    expect(done).toBe(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(starts).toHaveLength(3);
  });

  it('defaults to 5 s', () => {
    expect(DEFAULT_RESET_WATCH_INTERVAL_MS).toBe(5000);
  });
});
