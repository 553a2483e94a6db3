/**
 * What the consumer does for the 5.x proxy in cluster mode (docs/protocol.md, "Broker versions"): a
 * retry queue assumed after a send-back while the proxy's route cache still denies `%RETRY%<group>`, and
 * a membership check standing in for the NOTIFY_CONSUMER_IDS_CHANGED the proxy never sends.
 */
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../../src/client/broker-error.js';
import { MembershipWatch } from '../../../../src/consumer/membership/membership-watch.js';
import { TopicRouteTable } from '../../../../src/consumer/membership/topic-route-table.js';
import { RequestCode } from '../../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../../src/protocol/response-code.js';
import type { TopicRouteData } from '../../../../src/protocol/route-data.js';
import { rootLogger } from '../../../../src/util/logger.js';

const PROXY = '127.0.0.1:8080';
const RETRY = '%RETRY%orders-fn';

function route(brokerAddress: string, queues = 4): TopicRouteData {
  return {
    brokerDatas: [{ cluster: 'c', brokerName: 'broker-a', brokerAddrs: new Map([[0, brokerAddress]]) }],
    queueDatas: [
      { brokerName: 'broker-a', readQueueNums: queues, writeQueueNums: queues, perm: 6, topicSysFlag: 0 },
    ],
  };
}

/** A name server that knows `Orders` (named at `brokerAddress`) and, once `retryKnown`, the retry topic. */
function table(brokerAddress: string) {
  const state = { retryKnown: false };
  const routes = new TopicRouteTable({
    nameServer: {
      getRoute: async (topic) => {
        if (topic === 'Orders') return route(brokerAddress);
        if (topic === RETRY && state.retryKnown) return route(brokerAddress, 1);
        throw new BrokerError({
          code: ResponseCode.TOPIC_NOT_EXIST,
          requestCode: RequestCode.GET_ROUTEINFO_BY_TOPIC,
          address: PROXY,
        });
      },
    },
    log: rootLogger,
    nameServerAddresses: [PROXY],
  });
  return { routes, state };
}

describe('TopicRouteTable.assumeRetryQueue', () => {
  it('assumes queue 0 of the retry topic on the broker that took a message back, until a route is fetched', async () => {
    const { routes, state } = table(PROXY);
    await routes.refresh('Orders');
    expect(await routes.refresh(RETRY, { optional: true })).toBeUndefined();
    expect(routes.readableQueues(RETRY)).toBeUndefined();

    expect(routes.assumeRetryQueue(RETRY, 'broker-a')).toBe(true);
    expect(routes.assumeRetryQueue(RETRY, 'broker-a')).toBe(false);
    expect(routes.readableQueues(RETRY)).toEqual([{ topic: RETRY, brokerName: 'broker-a', queueId: 0 }]);
    expect(routes.anyBrokerAddress(RETRY)).toBe(PROXY);
    // A failed refresh keeps the assumed queue.
    await routes.refresh(RETRY, { optional: true });
    expect(routes.readableQueues(RETRY)).toHaveLength(1);

    state.retryKnown = true;
    await routes.refresh(RETRY, { optional: true });
    expect(routes.readableQueues(RETRY)).toEqual([{ topic: RETRY, brokerName: 'broker-a', queueId: 0 }]);
    expect(routes.assumeRetryQueue(RETRY, 'broker-a')).toBe(false);
  });

  it('assumes nothing for a broker group no route names, nor when the name server knows the retry topic', async () => {
    const { routes, state } = table(PROXY);
    await routes.refresh('Orders');
    expect(routes.assumeRetryQueue(RETRY, 'broker-x')).toBe(false);
    state.retryKnown = true;
    await routes.refresh(RETRY);
    expect(routes.assumeRetryQueue(RETRY, 'broker-a')).toBe(false);
  });
});

describe('TopicRouteTable.servedByProxy', () => {
  it('is true when a route names the name server as a broker, as the proxy does', async () => {
    const proxy = table(PROXY);
    await proxy.routes.refresh('Orders');
    expect(proxy.routes.servedByProxy()).toBe(true);
    const plain = table('127.0.0.1:10911');
    await plain.routes.refresh('Orders');
    expect(plain.routes.servedByProxy()).toBe(false);
  });
});

describe('MembershipWatch', () => {
  async function watch(brokerAddress: string, listed: string[], members: string[]) {
    const { routes } = table(brokerAddress);
    await routes.refresh('Orders');
    const calls: string[] = [];
    let changes = 0;
    const membership = new MembershipWatch({
      broker: {
        getConsumerListByGroup: async (address, group) => {
          calls.push(`${address} ${group}`);
          return listed;
        },
      },
      routes,
      consumerGroup: 'orders-fn',
      topic: 'Orders',
      members: () => new Set(members),
      onChange: () => {
        changes++;
      },
    });
    await membership.check();
    return { calls, changes };
  }

  it('asks for a rebalance behind a proxy when a member left or joined', async () => {
    expect((await watch(PROXY, ['a'], ['a', 'b'])).changes).toBe(1);
    expect((await watch(PROXY, ['a', 'b', 'c'], ['a', 'b'])).changes).toBe(1);
    expect((await watch(PROXY, ['b', 'a'], ['a', 'b'])).changes).toBe(0);
  });

  it('asks nothing of a plain broker, which notifies the group itself', async () => {
    expect(await watch('127.0.0.1:10911', ['a'], ['a', 'b'])).toEqual({ calls: [], changes: 0 });
  });

  it('waits for a first rebalance, and ignores an empty list', async () => {
    expect((await watch(PROXY, ['a'], [])).calls).toEqual([]);
    expect((await watch(PROXY, [], ['a'])).changes).toBe(0);
  });
});
