import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import type { OffsetStoreConfig } from '../../../src/config/run-config.js';
import { normalizeConsumerOptions } from '../../../src/consumer/consumer-options.js';
import { LambdaInvoker } from '../../../src/invoke/lambda-invoker.js';
import { LocalInvoker } from '../../../src/invoke/local-invoker.js';
import { DynamoDbOffsetStore } from '../../../src/offsets/dynamodb-offset-store.js';
import { FileOffsetStore } from '../../../src/offsets/file-offset-store.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import { FunctionTargets } from '../../../src/poller/function-targets.js';
import {
  LOCAL_OFFSETS_INSTANCE,
  OffsetStores,
  offsetStoreKindOf,
} from '../../../src/poller/offset-stores.js';
import { consumerOptionsOf } from '../../../src/poller/poller.js';

const DYNAMODB: OffsetStoreConfig = {
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

describe('FunctionTargets', () => {
  const lambda = { region: 'eu-west-1', endpoint: 'http://127.0.0.1:3002' };
  const destinations = {
    sqsEndpoint: 'http://sqs.local:4566',
    snsEndpoint: undefined,
    s3Endpoint: undefined,
  };
  const mapping = (functionRef: string, extra: { functionTimeoutMs?: number; onFailure?: string } = {}) => ({
    functionRef,
    functionTimeoutMs: extra.functionTimeoutMs ?? 900_000,
    onFailure: extra.onFailure,
  });

  it('one LambdaInvoker per function timeout, one LocalInvoker, both shared by mappings', async () => {
    const targets = new FunctionTargets({ baseDir: '/app', lambda, destinations });
    const a = targets.forMapping(mapping('orders:live'));
    const b = targets.forMapping(mapping('arn:aws:lambda:us-west-2:123456789012:function:payments'));
    const c = targets.forMapping(mapping('audit', { functionTimeoutMs: 60_000 }));
    const local1 = targets.forMapping(mapping('local:./a.mjs'));
    const local2 = targets.forMapping(mapping('local:./b.mjs#other'));
    expect(a.invoker).toBeInstanceOf(LambdaInvoker);
    expect(b.invoker).toBe(a.invoker);
    expect(c.invoker).toBeInstanceOf(LambdaInvoker);
    expect(c.invoker).not.toBe(a.invoker);
    expect(local1.invoker).toBeInstanceOf(LocalInvoker);
    expect(local2.invoker).toBe(local1.invoker);
    expect([a.kind, local1.kind]).toEqual(['lambda', 'local']);
    expect(a.functionArn).toBe('arn:aws:lambda:eu-west-1:*:function:orders:live');
    expect(b.functionArn).toBe('arn:aws:lambda:us-west-2:123456789012:function:payments');
    expect(local1.functionArn).toBe('local:./a.mjs');
    expect(targets.lambdaStats()).toEqual({ requests: 0, throttles: 0 });
    await targets.close();
    await expect(
      a.invoker.invoke({ functionRef: 'orders', payload: Buffer.from('{}') }),
    ).rejects.toMatchObject({ fatal: true });
  });

  it('an onFailure destination per mapping, with the endpoint of its service', async () => {
    const targets = new FunctionTargets({ baseDir: '/app', lambda, destinations });
    const sqs = targets.forMapping(mapping('orders', { onFailure: 'arn:aws:sqs:eu-west-1:123456789012:q' }));
    const sns = targets.forMapping(mapping('orders', { onFailure: 'arn:aws:sns:eu-west-1:123456789012:t' }));
    expect(targets.forMapping(mapping('orders')).failureDestination).toBeUndefined();
    expect(sqs.failureDestination?.arn).toBe('arn:aws:sqs:eu-west-1:123456789012:q');
    expect(sns.failureDestination?.arn).toBe('arn:aws:sns:eu-west-1:123456789012:t');
    await targets.close();
  });

  it('an injected invoker runs every function', async () => {
    const invoker = {
      invoke: async () => ({ ok: true as const, payload: Buffer.from('null') }),
      close: async () => undefined,
    };
    const targets = new FunctionTargets({ baseDir: '/app', lambda, destinations, invoker });
    expect(targets.forMapping(mapping('orders')).invoker).toBe(invoker);
    expect(targets.forMapping(mapping('local:./a.mjs')).invoker).toBe(invoker);
    await targets.close();
  });

  it('refuses a function reference the config would have rejected', () => {
    const targets = new FunctionTargets({ baseDir: '/app', lambda, destinations });
    expect(() => targets.forMapping(mapping('http://x'))).toThrow(/must be "local:/);
  });
});
