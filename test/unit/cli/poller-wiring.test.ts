import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import type { OffsetsConfig } from '../../../src/config/run-config.js';
import { normalizeConsumerOptions } from '../../../src/consumer/consumer-options.js';
import { DynamoDbOffsetStore } from '../../../src/offsets/dynamodb-offset-store.js';
import { FileOffsetStore } from '../../../src/offsets/file-offset-store.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import {
  LOCAL_OFFSETS_INSTANCE,
  OffsetStores,
  offsetStoreKindOf,
} from '../../../src/poller/offset-stores.js';
import { consumerOptionsOf } from '../../../src/poller/poller.js';

const DYNAMODB: OffsetsConfig = {
  store: 'dynamodb',
  table: 'offsets',
  region: 'us-east-1',
  endpoint: 'http://127.0.0.1:1',
  createTable: false,
  path: '/state',
};

describe('offset store per mapping', () => {
  it('CLUSTERING uses the configured store; BROADCASTING keeps offsets locally', () => {
    const clustering = { messageModel: 'CLUSTERING' } as const;
    const broadcasting = { messageModel: 'BROADCASTING' } as const;
    expect(offsetStoreKindOf(DYNAMODB, clustering)).toBe('dynamodb');
    expect(offsetStoreKindOf(DYNAMODB, broadcasting)).toBe('file');
    expect(offsetStoreKindOf({ store: 'file', path: '/s' }, broadcasting)).toBe('file');
    expect(offsetStoreKindOf({ store: 'memory', path: '/s' }, clustering)).toBe('memory');
    expect(offsetStoreKindOf({ store: 'memory', path: '/s' }, broadcasting)).toBe('memory');
  });

  it('builds the stores, files under offsets.path/default/<group>', async () => {
    const stores = new OffsetStores(DYNAMODB, '127.0.0.1@1#x');
    const cluster = stores.forMapping({ messageModel: 'CLUSTERING', consumerGroup: 'g1' });
    const broadcast = stores.forMapping({ messageModel: 'BROADCASTING', consumerGroup: 'g2' });
    expect(cluster).toBeInstanceOf(DynamoDbOffsetStore);
    expect(broadcast).toBeInstanceOf(FileOffsetStore);
    expect((broadcast as FileOffsetStore).path).toBe(
      path.join('/state', LOCAL_OFFSETS_INSTANCE, 'g2', 'offsets.json'),
    );
    expect(
      new OffsetStores({ store: 'memory', path: '/s' }, 'c').forMapping({
        messageModel: 'CLUSTERING',
        consumerGroup: 'g',
      }),
    ).toBeInstanceOf(MemoryOffsetStore);
    await stores.close();
  });
});

describe('consumerOptionsOf', () => {
  it('hands every mapping key to the consumer runtime, which accepts them unchanged', () => {
    const config = parseConfig(
      {
        nameServer: '127.0.0.1:9876',
        shutdownTimeoutMs: 12_000,
        offsets: { store: 'memory' },
        mappings: [
          {
            name: 'orders',
            topic: 'Orders',
            consumerGroup: 'orders-fn',
            filter: { sql: 'a > 1' },
            function: 'local:./h.mjs',
            batchSize: 7,
            maximumBatchingWindowMs: 0,
            maxConcurrency: 3,
            orderly: true,
            orderlyFailure: 'block',
            maxReconsumeTimes: 2,
            messageModel: 'BROADCASTING',
            startingPosition: 'AT_TIMESTAMP',
            startingPositionTimestamp: 1_700_000_000,
            pullThresholdForQueue: 10,
            pullThresholdSizeForQueue: 1024,
            consumeConcurrentlyMaxSpan: 50,
            consumeTimeoutMs: 5000,
          },
        ],
      },
      { env: {} },
    );
    const mapping = config.mappings[0];
    if (mapping === undefined) throw new Error('no mapping');
    const normalized = normalizeConsumerOptions(consumerOptionsOf(mapping, config.shutdownTimeoutMs));
    expect(normalized).toMatchObject({
      name: 'orders',
      topic: 'Orders',
      consumerGroup: 'orders-fn',
      filter: { type: 'SQL92', expression: 'a > 1' },
      batchSize: 7,
      maximumBatchingWindowMs: 0,
      maxConcurrency: 3,
      orderly: true,
      orderlyFailure: 'block',
      maxReconsumeTimes: 2,
      messageModel: 'BROADCASTING',
      startingPosition: 'AT_TIMESTAMP',
      startingPositionTimestamp: 1_700_000_000_000,
      pullThresholdForQueue: 10,
      pullThresholdSizeForQueue: 1024,
      consumeConcurrentlyMaxSpan: 50,
      consumeTimeoutMs: 5000,
      shutdownTimeoutMs: 12_000,
    });
  });
});
