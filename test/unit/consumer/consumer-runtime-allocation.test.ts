/**
 * The runtime allocates its group's queues with the strategy its options name (`allocateStrategy`,
 * `zoneNearby`): which queues a runtime holds after its first rebalance, on a fake client whose group
 * has two members.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import type { PullResult } from '../../../src/client/pull-result.js';
import type { ConsumerClient } from '../../../src/consumer/consumer-client.js';
import type { ConsumerOptions } from '../../../src/consumer/consumer-options.js';
import { ConsumerRuntime } from '../../../src/consumer/consumer-runtime.js';
import { createAllocationStrategy } from '../../../src/consumer/rebalance/create-allocation-strategy.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';
import { PermName, type TopicRouteData } from '../../../src/protocol/route-data.js';
import { ControlledListener, fakeClient } from './fakes.js';

/** Sorts after OTHER, so that plain AVG gives this runtime the second half of the queues. */
const ME = '127.0.0.1@9#me@az-a';
const OTHER = '127.0.0.1@2#other@az-b';

/** Topic T: brokers `a` and `b`, two queues each. */
const ROUTE: TopicRouteData = {
  queueDatas: ['a', 'b'].map((brokerName) => ({
    brokerName,
    readQueueNums: 2,
    writeQueueNums: 2,
    perm: PermName.READ | PermName.WRITE,
    topicSysFlag: 0,
  })),
  brokerDatas: [
    { cluster: 'c', brokerName: 'a', brokerAddrs: new Map([[0, '10.0.0.1:10911']]) },
    { cluster: 'c', brokerName: 'b', brokerAddrs: new Map([[0, '10.0.0.2:10911']]) },
  ],
};

const started: ConsumerRuntime[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((runtime) => runtime.stop()));
});

/** The `broker:queueId` of each queue of T the runtime holds once started. */
async function heldQueues(options: Partial<ConsumerOptions>): Promise<string[]> {
  const base = fakeClient({
    heartbeat: async () => undefined,
    unregisterClient: async () => undefined,
    getConsumerListByGroup: async () => [OTHER, ME],
    pullMessage: () => new Promise<PullResult>(() => undefined),
    // LATEST: a queue without an offset starts at its max offset.
    getMaxOffset: async () => 0,
  });
  const client: ConsumerClient = {
    ...base,
    clientId: ME,
    nameServer: {
      getRoute: async (topic: string) => {
        if (topic === 'T') return ROUTE;
        throw new BrokerError({
          code: ResponseCode.TOPIC_NOT_EXIST,
          remark: `No topic route info in name server for the topic: ${topic}`,
          requestCode: RequestCode.GET_ROUTEINFO_BY_TOPIC,
          address: '127.0.0.1:9876',
        });
      },
    },
  };
  const runtime = new ConsumerRuntime(
    { name: 'orders', topic: 'T', consumerGroup: 'G', ...options },
    { client, offsetStore: new MemoryOffsetStore(), listener: new ControlledListener() },
  );
  started.push(runtime);
  await runtime.start();
  const status = await runtime.status();
  return status.queues
    .filter((q) => q.queue.topic === 'T')
    .map((q) => `${q.queue.brokerName}:${q.queue.queueId}`)
    .sort();
}

describe('ConsumerRuntime allocation', () => {
  it('AVG (the default) gives the second member the second half', async () => {
    expect(await heldQueues({})).toEqual(['b:0', 'b:1']);
  });

  it('AVG_BY_CIRCLE deals the queues round-robin', async () => {
    expect(await heldQueues({ allocateStrategy: 'AVG_BY_CIRCLE' })).toEqual(['a:1', 'b:1']);
  });

  it('zoneNearby keeps the queues of brokers in its own zone', async () => {
    expect(await heldQueues({ zoneNearby: { brokerZones: { a: 'az-a', b: 'az-b' } } })).toEqual([
      'a:0',
      'a:1',
    ]);
  });

  it('CONSISTENT_HASH with allocateVirtualNodes holds what that ring gives it', async () => {
    const queues = ['a', 'b'].flatMap((brokerName) =>
      [0, 1].map((queueId) => ({ topic: 'T', brokerName, queueId })),
    );
    const ring = createAllocationStrategy({ strategy: 'CONSISTENT_HASH', virtualNodes: 3 });
    const expected = ring
      .allocate('G', ME, queues, [OTHER, ME])
      .map((q) => `${q.brokerName}:${q.queueId}`)
      .sort();
    expect(await heldQueues({ allocateStrategy: 'CONSISTENT_HASH', allocateVirtualNodes: 3 })).toEqual(
      expected,
    );
  });
});
