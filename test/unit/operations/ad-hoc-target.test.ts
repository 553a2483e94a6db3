/**
 * The ad hoc target (operations/target.ts: `--group`, `--topic`, `--name-server`, no config file) and
 * the brokers' copy of a group's offsets it reads without an offsets table (broker-offset-store.ts).
 */
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import { ConfigError } from '../../../src/config/config-error.js';
import {
  BrokerOffsetStore,
  type BrokerOffsetStoreClient,
} from '../../../src/operations/broker-offset-store.js';
import { openTarget, TargetError } from '../../../src/operations/target.js';
import type { MessageQueue } from '../../../src/protocol/message-queue.js';

const env = {};

describe('openTarget ad hoc', () => {
  it('is one mapping named after the group, reading the brokers copy of its offsets', async () => {
    const target = await openTarget(
      { group: 'orders-fn', topic: 'Orders', nameServer: '10.0.0.1:9876;10.0.0.2:9876', cwd: '/nowhere' },
      { env },
    );
    try {
      expect(target.mappings).toEqual([
        expect.objectContaining({
          name: 'orders-fn',
          topic: 'Orders',
          consumerGroup: 'orders-fn',
          messageModel: 'CLUSTERING',
          consumeMode: 'PUSH',
          offsetStoreKind: 'broker',
        }),
      ]);
      expect(target.config.nameServerAddresses).toEqual(['10.0.0.1:9876', '10.0.0.2:9876']);
      expect(target.source).toBe(
        "group orders-fn on 10.0.0.1:9876;10.0.0.2:9876 (the brokers' copy of its offsets)",
      );
      expect(target.offsetStore(target.mapping())).toBeInstanceOf(BrokerOffsetStore);
      expect(target.mapping('orders-fn').name).toBe('orders-fn');
    } finally {
      await target.close();
    }
  });

  it('reads a DynamoDB table when given one, and the name server of the environment', async () => {
    const target = await openTarget(
      {
        group: 'orders-fn',
        topic: 'Orders',
        offsetsTable: 'rocketmq-offsets',
        region: 'eu-west-1',
        offsetsEndpoint: 'http://127.0.0.1:8000',
      },
      { env: { NAMESRV_ADDR: '127.0.0.1:9876' } },
    );
    try {
      expect(target.mapping().offsetStoreKind).toBe('dynamodb');
      expect(target.config.offsets).toMatchObject({
        store: 'dynamodb',
        table: 'rocketmq-offsets',
        region: 'eu-west-1',
        endpoint: 'http://127.0.0.1:8000',
        createTable: false,
      });
      expect(target.config.nameServerAddresses).toEqual(['127.0.0.1:9876']);
      expect(target.source).toBe('group orders-fn on 127.0.0.1:9876 (offsets table rocketmq-offsets)');
    } finally {
      await target.close();
    }
  });

  it('needs no topic where the caller reads none (dlq): the retry topic stands in', async () => {
    const target = await openTarget(
      { group: 'orders-fn', nameServer: '127.0.0.1:9876', topicOptional: true },
      { env },
    );
    try {
      expect(target.mapping().topic).toBe('%RETRY%orders-fn');
    } finally {
      await target.close();
    }
  });

  it('refuses ad hoc options without --group, with a config, or without --topic', async () => {
    await expect(openTarget({ nameServer: '127.0.0.1:9876', topic: 'Orders' }, { env })).rejects.toThrow(
      new TargetError(
        '--name-server, --topic are for a target without a config file: add --group <consumerGroup> and --topic <topic>',
      ),
    );
    await expect(
      openTarget({ group: 'g', topic: 'T', nameServer: '127.0.0.1:9876', config: 'poller.yaml' }, { env }),
    ).rejects.toThrow(/--group names a target without a config file: drop --config/);
    await expect(openTarget({ group: 'g', nameServer: '127.0.0.1:9876' }, { env })).rejects.toThrow(
      new TargetError('--group g needs --topic <topic>: the topic the group consumes'),
    );
  });

  it('names bad values by their flags', async () => {
    const rejected = await openTarget({ group: 'g', topic: 'a topic', nameServer: 'nowhere' }, { env }).catch(
      (error: unknown) => error,
    );
    expect(rejected).toBeInstanceOf(ConfigError);
    expect((rejected as ConfigError).problems).toEqual([
      '--name-server: "nowhere" is not host:port',
      '--topic: must be a RocketMQ topic name (A-Z a-z 0-9 _ - % |)',
    ]);
    const none = await openTarget({ group: 'g', topic: 'T' }, { env }).catch((error: unknown) => error);
    expect((none as ConfigError).problems).toEqual([
      '--name-server: required (or set ROCKETMQ_NAME_SERVER or NAMESRV_ADDR)',
    ]);
  });
});

/** A fake broker keeping one group's offsets, as QUERY/UPDATE_CONSUMER_OFFSET see them. */
function fakeBroker(options: { version?: number; table?: Record<string, number> } = {}) {
  const offsets = new Map<string, number>(Object.entries(options.table ?? {}));
  const updates: string[] = [];
  const client: BrokerOffsetStoreClient = {
    nameServer: {
      getRoute: async (topic) => ({
        queueDatas: [
          { brokerName: 'broker-a', readQueueNums: 2, writeQueueNums: 2, perm: 6, topicSysFlag: 0 },
        ],
        brokerDatas: [
          { cluster: 'c', brokerName: 'broker-a', brokerAddrs: new Map([[0, `master-of-${topic}`]]) },
        ],
      }),
    },
    broker: {
      pullMessage: async () => {
        throw new Error('no pulls here');
      },
      queryConsumerOffsetAnswer: async (_address, header) => {
        const offset = offsets.get(`${header.topic}@${header.queueId}`);
        // A 4.x broker answers 0 for a queue the group never committed.
        if (options.version !== undefined) return { offset: offset ?? 0, brokerVersion: options.version };
        return { offset, brokerVersion: 0 };
      },
      getAllConsumerOffset: async () =>
        new Map(
          [...offsets].map(([key, offset]) => {
            const [topic, queueId] = key.split('@');
            return [`${topic}@g`, new Map([[Number(queueId), offset]])];
          }),
        ),
      updateConsumerOffset: async (address, header) => {
        if (header.commitOffset < 0)
          throw new BrokerError({ code: 1, remark: 'refused', requestCode: 15, address });
        updates.push(`${address} ${header.topic}@${header.queueId}=${header.commitOffset}`);
        offsets.set(`${header.topic}@${header.queueId}`, header.commitOffset);
      },
    },
  };
  return { client, updates };
}

const q0: MessageQueue = { topic: 'T', brokerName: 'broker-a', queueId: 0 };
const q1: MessageQueue = { topic: 'T', brokerName: 'broker-a', queueId: 1 };

describe('BrokerOffsetStore', () => {
  it("reads the group's committed offset from the queue's master; none is undefined", async () => {
    const { client } = fakeBroker({ table: { 'T@0': 42 } });
    const store = new BrokerOffsetStore(client, 'g');
    expect(await store.readRecord(q0)).toEqual({
      offset: 42,
      generation: 0,
      holder: undefined,
      released: true,
      updatedAtMs: undefined,
    });
    expect(await store.readRecord(q1)).toBeUndefined();
    expect(await store.readOffset(q1, 'STORE')).toBe(-1);
    expect(await store.readOffset(q0, 'MEMORY')).toBe(42);
  });

  it("settles a 4.x broker's 0 with its offset table", async () => {
    const { client } = fakeBroker({ version: 401, table: { 'T@1': 0 } });
    const store = new BrokerOffsetStore(client, 'g');
    expect(await store.readRecord(q0)).toBeUndefined();
    expect((await store.readRecord(q1))?.offset).toBe(0);
  });

  it('writes a correction to the master when persisted, and only what changed', async () => {
    const { client, updates } = fakeBroker({ table: { 'T@0': 42, 'T@1': 7 } });
    const store = new BrokerOffsetStore(client, 'g');
    await store.readRecord(q0);
    store.correctOffset(q1, 3);
    await store.persistAll([q0, q1]);
    expect(updates).toEqual(['master-of-T T@1=3']);
    expect((await store.readRecord(q1))?.offset).toBe(3);
    store.updateOffset(q0, 40, true);
    await store.persistAll([q0]);
    expect(updates).toHaveLength(1);
  });

  it('reports failing writes in its health until one succeeds', async () => {
    const { client } = fakeBroker();
    const store = new BrokerOffsetStore(client, 'g');
    store.correctOffset(q0, -5);
    await expect(store.persist(q0)).rejects.toThrow('refused');
    expect(store.health().failingSinceMs).toBeTypeOf('number');
    store.correctOffset(q0, 5);
    await store.persist(q0);
    expect(store.health()).toEqual({ failingSinceMs: undefined, lastError: undefined });
  });
});
