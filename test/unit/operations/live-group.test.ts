/**
 * The live group (operations/live-group.ts) with fake brokers: clients merged over the brokers asked,
 * CONSUMER_NOT_ONLINE read as "no client", a client that does not answer its running info (bounded, never
 * waited for), the retry topic's brokers asked when the topic does not exist, the cap on clients asked;
 * and the per-queue state derived from it (live holders, what the last write of a stored offset was).
 */

import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import {
  isComplete,
  type LiveGroup,
  type LiveGroupClient,
  lastWriteOf,
  liveHoldersOf,
  readLiveGroup,
} from '../../../src/operations/live-group.js';
import { operatorWriterId } from '../../../src/operations/operator-writer.js';
import type { ConsumerConnection } from '../../../src/protocol/consumer-connection.js';
import type { MessageQueue } from '../../../src/protocol/message-queue.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';
import type { TopicRouteData } from '../../../src/protocol/route-data.js';

const A = '10.0.0.1:10911';
const B = '10.0.0.2:10911';
const mapping = { topic: 'Orders', consumerGroup: 'orders-lambda' };
const q = (queueId: number, topic = 'Orders'): MessageQueue => ({ topic, brokerName: 'broker-a', queueId });

function routeOf(...addresses: string[]): TopicRouteData {
  return {
    brokerDatas: addresses.map((address, i) => ({
      cluster: 'c',
      brokerName: `broker-${i}`,
      brokerAddrs: new Map([[0, address]]),
    })),
    queueDatas: [],
  };
}

function connection(...clients: [string, number][]): ConsumerConnection {
  return {
    connections: clients.map(([clientId, version]) => ({
      clientId,
      clientAddr: `${clientId}:1`,
      language: 'JAVA',
      version,
    })),
    consumeType: 'CONSUME_PASSIVELY',
    messageModel: 'CLUSTERING',
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    subscriptions: [{ topic: 'Orders', subString: '*', expressionType: 'TAG' }],
  };
}

interface Fake {
  readonly routes: Record<string, TopicRouteData>;
  /** address -> its connection list, or a response code it refuses with, or an Error thrown. */
  readonly lists: Record<string, ConsumerConnection | number | Error>;
  /** clientId -> the queues it holds ('hang': never answers; an Error: its broker answers with it). */
  readonly held: Record<string, MessageQueue[] | 'hang' | Error>;
}

function fakeClient(fake: Fake): LiveGroupClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    nameServer: {
      getRoute: async (topic) => {
        const route = fake.routes[topic];
        if (route === undefined)
          throw new BrokerError({
            code: ResponseCode.TOPIC_NOT_EXIST,
            requestCode: RequestCode.GET_ROUTEINFO_BY_TOPIC,
            address: 'ns:9876',
          });
        return route;
      },
    },
    broker: {
      getConsumerConnectionList: async (address) => {
        const list = fake.lists[address];
        if (list instanceof Error) throw list;
        if (typeof list === 'number' || list === undefined)
          throw new BrokerError({
            code: list ?? ResponseCode.CONSUMER_NOT_ONLINE,
            requestCode: RequestCode.GET_CONSUMER_CONNECTION_LIST,
            address,
          });
        return list;
      },
    },
    admin: {
      getConsumerRunningInfo: async (address, header, options) => {
        asked.push(`${address} ${header.clientId} ${options?.timeoutMs}`);
        const held = fake.held[header.clientId];
        if (held === 'hang') {
          // What the transport does at the request's timeout.
          await new Promise((resolve) => setTimeout(resolve, options?.timeoutMs));
          throw new Error(`request code 307 timed out after ${options?.timeoutMs} ms`);
        }
        if (held instanceof Error) throw held;
        return {
          properties: { PROP_CONSUMER_START_TIMESTAMP: '1700000000000' },
          subscriptionSet: [],
          mqTable: [
            ...(held ?? []).map((queue) => ({ queue, info: { droped: false } })),
            // A queue being dropped is no longer held.
            { queue: q(99), info: { droped: true } },
          ],
          userConsumerInfo: { clientRuntime: 'rocketmq-lambda on Node.js v20', filteredOut: '7' },
        };
      },
    },
  };
}

describe('readLiveGroup', () => {
  it('merges the clients of every broker of the topic and asks each one what it holds', async () => {
    const client = fakeClient({
      routes: { Orders: routeOf(A, B) },
      lists: { [A]: connection(['c2', 401], ['c1', 401]), [B]: connection(['c1', 401], ['c3', 413]) },
      held: { c1: [q(1), q(0)], c2: [], c3: [q(2), q(0, '%RETRY%orders-lambda')] },
    });
    const live = await readLiveGroup(client, mapping, { runningInfoTimeoutMs: 50 });
    expect(live).toMatchObject({
      consumerGroup: 'orders-lambda',
      consumeType: 'CONSUME_PASSIVELY',
      messageModel: 'CLUSTERING',
      subscriptions: [{ topic: 'Orders', expression: '*' }],
      brokersAsked: 2,
      brokersAnswered: 2,
      problem: undefined,
    });
    expect(live.clients.map((c) => [c.clientId, c.versionName, c.brokers])).toEqual([
      ['c1', 'V4_9_4', [A, B]],
      ['c2', 'V4_9_4', [A]],
      ['c3', 'V5_0_0', [B]],
    ]);
    expect(live.clients[0]?.runningInfo).toEqual({
      state: 'answered',
      queues: [q(0), q(1)],
      runtime: 'rocketmq-lambda on Node.js v20',
      startedAtMs: 1_700_000_000_000,
      filteredOut: 7,
    });
    // Each client is asked once, through a broker it is connected to, with the bound.
    expect(client.asked.sort()).toEqual([`${A} c1 50`, `${A} c2 50`, `${B} c3 50`]);
    expect(isComplete(live)).toBe(true);
    expect(liveHoldersOf(live, q(0))).toEqual(['c1']);
    expect(liveHoldersOf(live, q(0, '%RETRY%orders-lambda'))).toEqual(['c3']);
    expect(liveHoldersOf(live, q(5))).toEqual([]);
  });

  it('reads CONSUMER_NOT_ONLINE as a broker without clients, and names a broker that cannot be asked', async () => {
    const none = await readLiveGroup(
      fakeClient({ routes: { Orders: routeOf(A) }, lists: {}, held: {} }),
      mapping,
    );
    expect(none).toMatchObject({ clients: [], brokersAsked: 1, brokersAnswered: 1, problem: undefined });
    expect(liveHoldersOf(none, q(0))).toEqual([]);

    const down = await readLiveGroup(
      fakeClient({
        routes: { Orders: routeOf(A, B) },
        lists: { [A]: connection(['c1', 401]), [B]: new Error('connect ECONNREFUSED 10.0.0.2:10911') },
        held: { c1: [q(0)] },
      }),
      mapping,
    );
    expect(down.brokersAnswered).toBe(1);
    expect(down.problem).toEqual({
      kind: 'unreachable',
      message: `the clients of group orders-lambda at ${B}: connect ECONNREFUSED 10.0.0.2:10911`,
    });
    // Not every broker listed its clients: who holds a queue is not known.
    expect(isComplete(down)).toBe(false);
    expect(liveHoldersOf(down, q(0))).toBeUndefined();
  });

  it('a client that does not answer its running info is reported, never waited for beyond the bound', async () => {
    const client = fakeClient({
      routes: { Orders: routeOf(A) },
      lists: { [A]: connection(['c1', 401], ['c2', 401], ['c3', 401]) },
      held: {
        c1: [q(0)],
        c2: 'hang',
        c3: new BrokerError({
          code: ResponseCode.SYSTEM_ERROR,
          requestCode: RequestCode.GET_CONSUMER_RUNNING_INFO,
          address: A,
          remark: 'The Consumer Group <orders-lambda> not exist in this consumer',
        }),
      },
    });
    const live = await readLiveGroup(client, mapping, { runningInfoTimeoutMs: 20 });
    expect(live.clients.map((c) => c.runningInfo.state)).toEqual(['answered', 'no-answer', 'no-answer']);
    expect(live.clients[1]?.runningInfo).toEqual({
      state: 'no-answer',
      reason: 'request code 307 timed out after 20 ms',
    });
    expect(live.clients[2]?.runningInfo).toMatchObject({ reason: expect.stringMatching(/SYSTEM_ERROR/) });
    // c2 or c3 may hold queue 1: unknown; queue 0 is c1's.
    expect(liveHoldersOf(live, q(1))).toBeUndefined();
    expect(liveHoldersOf(live, q(0))).toEqual(['c1']);
  });

  it('asks at most maxRunningInfoClients clients; the others are listed as not asked', async () => {
    const client = fakeClient({
      routes: { Orders: routeOf(A) },
      lists: { [A]: connection(['c1', 401], ['c2', 401], ['c3', 401]) },
      held: { c1: [q(0)], c2: [q(1)], c3: [q(2)] },
    });
    const live = await readLiveGroup(client, mapping, { maxRunningInfoClients: 2 });
    expect(client.asked).toHaveLength(2);
    expect(live.clients[2]?.runningInfo).toEqual({
      state: 'not-asked',
      reason: 'only the first 2 clients of a group are asked',
    });
  });

  it('asks the brokers of the group retry topic when the topic does not exist, and says so when neither exists', async () => {
    const viaRetry = await readLiveGroup(
      fakeClient({
        routes: { '%RETRY%orders-lambda': routeOf(A) },
        lists: { [A]: connection(['c1', 401]) },
        held: { c1: [] },
      }),
      mapping,
    );
    expect(viaRetry.clients.map((c) => c.clientId)).toEqual(['c1']);
    expect(viaRetry.clients[0]?.runningInfo).toMatchObject({ state: 'answered', queues: [] });

    const nowhere = await readLiveGroup(fakeClient({ routes: {}, lists: {}, held: {} }), mapping);
    expect(nowhere).toMatchObject({ clients: [], brokersAsked: 0 });
    expect(nowhere.problem).toEqual({
      kind: 'topic-missing',
      message: 'topic Orders does not exist (said ns:9876)',
    });
  });
});

describe('lastWriteOf', () => {
  const live: LiveGroup = {
    consumerGroup: 'orders-lambda',
    consumeType: undefined,
    messageModel: undefined,
    subscriptions: [],
    brokersAsked: 1,
    brokersAnswered: 1,
    problem: undefined,
    clients: [
      {
        clientId: 'poller-1',
        clientAddr: '',
        language: 'JAVA',
        version: 401,
        versionName: 'V4_9_4',
        brokers: [A],
        runningInfo: {
          state: 'answered',
          queues: [q(0)],
          runtime: undefined,
          startedAtMs: undefined,
          filteredOut: undefined,
        },
      },
    ],
  };
  const record = (holder: string | undefined, generation: number, released: boolean) => ({
    offset: 0,
    generation,
    holder,
    released,
    updatedAtMs: 1,
  });

  it("names an operator's reset its live holder has not adopted yet as a reset, not as a holder", () => {
    // The reset wrote the next generation, released, under the resetting command's client id.
    expect(lastWriteOf(record('cli-1', 1, true), live, q(0))).toBe('reset');
    // Adopted: the holder wrote the generation under its own id.
    expect(lastWriteOf(record('poller-1', 1, false), live, q(0))).toBe('commit');
  });

  it('reads a release as a release: by a poller, in the first generation, or with nobody holding the queue', () => {
    expect(lastWriteOf(record('poller-1', 1, true), live, q(0))).toBe('release');
    expect(lastWriteOf(record('gone-1', 0, true), live, q(0))).toBe('release');
    expect(lastWriteOf(record('cli-1', 1, true), live, q(7))).toBe('release');
    // Without the live group the two cannot be told apart.
    expect(lastWriteOf(record('cli-1', 1, true), undefined, q(0))).toBe('release');
  });

  it("names an operator writer's record a reset whatever runs, even with nobody holding the queue", () => {
    const writer = operatorWriterId('cli-1');
    expect(lastWriteOf(record(writer, 1, true), live, q(0))).toBe('reset');
    expect(lastWriteOf(record(writer, 1, true), live, q(7))).toBe('reset');
    expect(lastWriteOf(record(writer, 1, true), undefined, q(0))).toBe('reset');
  });

  it('says nothing without a record or a writer (stores local to one poller)', () => {
    expect(lastWriteOf(undefined, live, q(0))).toBeUndefined();
    expect(lastWriteOf(record(undefined, 0, true), live, q(0))).toBeUndefined();
  });
});

describe('readLiveGroup of a POP group', () => {
  it('lists the clients without asking them what they hold', async () => {
    const client = fakeClient({
      routes: { Orders: routeOf(A) },
      lists: { [A]: connection(['c1', 401]) },
      held: { c1: [q(0)] },
    });
    const live = await readLiveGroup(client, mapping, { askRunningInfo: false });
    expect(client.asked).toEqual([]);
    expect(live.clients[0]?.runningInfo).toEqual({
      state: 'not-asked',
      reason: 'a POP consumer holds no queue',
    });
  });
});
