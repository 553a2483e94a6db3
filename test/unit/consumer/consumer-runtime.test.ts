import { afterEach, describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import type { PullResult } from '../../../src/client/pull-result.js';
import type { ConsumerClient } from '../../../src/consumer/consumer-client.js';
import type { ConsumerOptions } from '../../../src/consumer/consumer-options.js';
import { ConsumerRuntime } from '../../../src/consumer/consumer-runtime.js';
import { measureConsumerLag } from '../../../src/metrics/queue-lag.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import type { StoredOffsetRecord } from '../../../src/offsets/offset-store.js';
import { localRecord } from '../../../src/offsets/offset-table.js';
import type { GetMaxOffsetRequestHeader } from '../../../src/protocol/headers.js';
import { type MessageQueue, messageQueueKey } from '../../../src/protocol/message-queue.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';
import {
  type BrokerData,
  PermName,
  type QueueData,
  type TopicRouteData,
} from '../../../src/protocol/route-data.js';
import { ControlledListener, fakeClient } from './fakes.js';

const MASTER_A = '10.0.0.1:10911';
const SLAVE_A = '10.0.0.2:10911';

const broker = (brokerName: string, addrs: [number, string][]): BrokerData => ({
  cluster: 'c',
  brokerName,
  brokerAddrs: new Map(addrs),
});

const queues = (brokerName: string, count: number): QueueData => ({
  brokerName,
  readQueueNums: count,
  writeQueueNums: count,
  perm: PermName.READ | PermName.WRITE,
  topicSysFlag: 0,
});

/** A memory store that also "remembers" offsets from before the start (a broker or file store would). */
class PresetOffsetStore extends MemoryOffsetStore {
  readonly preset = new Map<string, number>();

  override async readRecord(queue: MessageQueue): Promise<StoredOffsetRecord | undefined> {
    const preset = this.preset.get(messageQueueKey(queue));
    if (preset !== undefined) {
      this.updateOffset(queue, preset, false);
      return localRecord(preset, 0);
    }
    return super.readRecord(queue);
  }
}

type MaxOffsetCall = { address: string; topic: string; queueId: number };

/**
 * A runtime on a fake client: routes from `routes` (a topic without one is unknown to the name server),
 * this client the group's only consumer, pulls that never answer (the loops just wait), max offsets from
 * `maxOffsets` keyed `topic#queueId` (a missing key rejects).
 */
function setup(
  routes: Record<string, TopicRouteData>,
  maxOffsets: Map<string, number>,
  options: Partial<ConsumerOptions> = {},
) {
  const maxOffsetCalls: MaxOffsetCall[] = [];
  const base = fakeClient({
    heartbeat: async () => undefined,
    unregisterClient: async () => undefined,
    getConsumerListByGroup: async () => ['127.0.0.1@1#me'],
    pullMessage: () => new Promise<PullResult>(() => undefined),
    getMaxOffset: async (address: string, header: GetMaxOffsetRequestHeader) => {
      maxOffsetCalls.push({ address, topic: header.topic, queueId: header.queueId });
      const max = maxOffsets.get(`${header.topic}#${header.queueId}`);
      if (max === undefined) throw new Error(`GET_MAX_OFFSET ${header.topic}#${header.queueId} timed out`);
      return max;
    },
  });
  const client: ConsumerClient = {
    ...base,
    nameServer: {
      getRoute: async (topic: string) => {
        const route = routes[topic];
        if (route === undefined) {
          throw new BrokerError({
            code: ResponseCode.TOPIC_NOT_EXIST,
            remark: `No topic route info in name server for the topic: ${topic}`,
            requestCode: RequestCode.GET_ROUTEINFO_BY_TOPIC,
            address: '127.0.0.1:9876',
          });
        }
        return route;
      },
    },
  };
  const offsetStore = new PresetOffsetStore();
  const runtime = new ConsumerRuntime(
    { name: 'orders', topic: 'T', consumerGroup: 'G', ...options },
    { client, offsetStore, listener: new ControlledListener() },
  );
  started.push(runtime);
  return { runtime, offsetStore, maxOffsetCalls };
}

const started: ConsumerRuntime[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((runtime) => runtime.stop()));
});

describe('measureConsumerLag(ConsumerRuntime)', () => {
  it('asks GET_MAX_OFFSET at the master of each held queue (main and retry) and sums', async () => {
    const routeA = {
      brokerDatas: [
        broker('broker-a', [
          [1, SLAVE_A],
          [0, MASTER_A],
        ]),
      ],
      queueDatas: [],
    };
    const maxOffsets = new Map([
      ['T#0', 100],
      ['T#1', 100],
    ]);
    const t = setup(
      {
        T: { ...routeA, queueDatas: [queues('broker-a', 2)] },
        '%RETRY%G': { ...routeA, queueDatas: [queues('broker-a', 1)] },
      },
      maxOffsets,
    );
    await t.runtime.start(); // LATEST: T#0 and T#1 start at their max offset 100, the retry queue at 0
    t.maxOffsetCalls.splice(0);
    maxOffsets.set('T#0', 130).set('%RETRY%G#0', 2);

    const lag = await measureConsumerLag(t.runtime);

    expect(t.maxOffsetCalls.sort((a, b) => a.topic.localeCompare(b.topic) || a.queueId - b.queueId)).toEqual([
      { address: MASTER_A, topic: '%RETRY%G', queueId: 0 },
      { address: MASTER_A, topic: 'T', queueId: 0 },
      { address: MASTER_A, topic: 'T', queueId: 1 },
    ]);
    expect(lag).toMatchObject({
      name: 'orders',
      consumerGroup: 'G',
      topic: 'T',
      total: 32,
      unknownQueues: 0,
    });
    const byQueue = Object.fromEntries(lag.queues.map((q) => [`${q.queue.topic}#${q.queue.queueId}`, q]));
    expect(byQueue['T#0']).toMatchObject({ retry: false, maxOffset: 130, consumedOffset: 100, lag: 30 });
    expect(byQueue['T#1']).toMatchObject({ retry: false, maxOffset: 100, consumedOffset: 100, lag: 0 });
    expect(byQueue['%RETRY%G#0']).toMatchObject({ retry: true, maxOffset: 2, consumedOffset: 0, lag: 2 });
  });

  it('a queue whose broker has no known master is an unknown queue, not an error', async () => {
    const t = setup(
      {
        T: {
          // broker-b is in no brokerData; broker-c has only a slave
          brokerDatas: [broker('broker-a', [[0, MASTER_A]]), broker('broker-c', [[1, '10.0.0.3:10911']])],
          queueDatas: [queues('broker-a', 1), queues('broker-b', 1), queues('broker-c', 1)],
        },
      },
      new Map([['T#0', 50]]),
      { messageModel: 'BROADCASTING' },
    );
    // Stored offsets, so the queues of the master-less brokers can be taken without asking a broker.
    for (const brokerName of ['broker-a', 'broker-b', 'broker-c']) {
      t.offsetStore.preset.set(messageQueueKey({ topic: 'T', brokerName, queueId: 0 }), 40);
    }
    await t.runtime.start();
    expect((await t.runtime.status()).queues).toHaveLength(3);
    t.maxOffsetCalls.splice(0);

    const lag = await measureConsumerLag(t.runtime);

    expect(t.maxOffsetCalls).toEqual([{ address: MASTER_A, topic: 'T', queueId: 0 }]);
    expect(lag).toMatchObject({ total: 10, unknownQueues: 2 });
    const byBroker = Object.fromEntries(lag.queues.map((q) => [q.queue.brokerName, q]));
    expect(byBroker['broker-a']).toMatchObject({ lag: 10, error: undefined });
    for (const brokerName of ['broker-b', 'broker-c']) {
      expect(byBroker[brokerName]).toEqual({
        queue: { topic: 'T', brokerName, queueId: 0 },
        retry: false,
        maxOffset: undefined,
        consumedOffset: 40,
        lag: undefined,
        error: `no master address known for broker ${brokerName}`,
      });
    }
  });

  it('a failing GET_MAX_OFFSET makes that queue unknown with the broker error; the lag still resolves', async () => {
    const maxOffsets = new Map([
      ['T#0', 10],
      ['T#1', 10],
    ]);
    const t = setup(
      { T: { brokerDatas: [broker('broker-a', [[0, MASTER_A]])], queueDatas: [queues('broker-a', 2)] } },
      maxOffsets,
      { messageModel: 'BROADCASTING' },
    );
    await t.runtime.start();
    maxOffsets.delete('T#1');
    maxOffsets.set('T#0', 15);

    const lag = await measureConsumerLag(t.runtime);

    expect(lag).toMatchObject({ total: 5, unknownQueues: 1 });
    expect(lag.queues.find((q) => q.queue.queueId === 1)).toMatchObject({
      lag: undefined,
      consumedOffset: 10,
      error: 'GET_MAX_OFFSET T#1 timed out',
    });
  });

  it('holding no queue: lag 0, nothing unknown, no broker asked', async () => {
    const t = setup({}, new Map());
    const lag = await measureConsumerLag(t.runtime);
    expect(lag).toEqual({
      name: 'orders',
      consumerGroup: 'G',
      topic: 'T',
      queues: [],
      total: 0,
      sharedBy: 1,
      unknownQueues: 0,
    });
    expect(t.maxOffsetCalls).toEqual([]);
  });
});

describe('ConsumerRuntime.stop()', () => {
  it('finishes the stop but rejects when the offsets cannot be persisted at shutdown', async () => {
    const t = setup(
      { T: { brokerDatas: [broker('broker-a', [[0, MASTER_A]])], queueDatas: [queues('broker-a', 2)] } },
      new Map([
        ['T#0', 10],
        ['T#1', 10],
      ]),
      { messageModel: 'BROADCASTING' },
    );
    await t.runtime.start();
    const denied = new Error('EACCES: permission denied, open offsets.json');
    t.offsetStore.persistAll = async () => {
      throw denied;
    };
    const stopped = t.runtime.stop();
    await expect(stopped).rejects.toThrow(
      'persisting offsets at shutdown failed: EACCES: permission denied, open offsets.json',
    );
    await expect(stopped).rejects.toMatchObject({ cause: denied });
    expect(t.runtime.state).toBe('stopped');
    started.splice(started.indexOf(t.runtime), 1); // stopped here (afterEach would see the rejection again)
  });
});
