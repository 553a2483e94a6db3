import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConsumerHeartbeat } from '../../../../src/consumer/membership/consumer-heartbeat.js';
import {
  MembershipRecovery,
  RECOVERY_INITIAL_DELAY_MS,
  RECOVERY_MAX_DELAY_MS,
} from '../../../../src/consumer/membership/membership-recovery.js';
import { TopicRouteTable } from '../../../../src/consumer/membership/topic-route-table.js';
import { RocketMQError } from '../../../../src/errors.js';
import type { TopicRouteData } from '../../../../src/protocol/route-data.js';
import { rootLogger } from '../../../../src/util/logger.js';

const TOPIC = 'T';

function routeOf(...addresses: string[]): TopicRouteData {
  return {
    brokerDatas: addresses.map((address, i) => ({
      cluster: 'C',
      brokerName: `b${i}`,
      brokerAddrs: new Map([[0, address]]),
    })),
    queueDatas: addresses.map((_, i) => ({
      brokerName: `b${i}`,
      readQueueNums: 2,
      writeQueueNums: 2,
      perm: 6,
      topicSysFlag: 0,
    })),
  };
}

/**
 * A consumer's membership parts (the real route table and heartbeat) over a name server and brokers the
 * test turns on and off, with a log of every call and when it was made.
 */
function setup(options: { route?: TopicRouteData; up?: string[] } = {}) {
  const calls: string[] = [];
  const state = {
    route: options.route as TopicRouteData | undefined,
    up: new Set(options.up ?? []),
    decided: false,
  };
  const nameServer = {
    async getRoute(topic: string): Promise<TopicRouteData> {
      calls.push(`lookup ${Date.now()}`);
      if (state.route === undefined) throw new RocketMQError(`no route of ${topic}`, { retriable: true });
      return state.route;
    },
  };
  let recovery: MembershipRecovery | undefined;
  const routes = new TopicRouteTable({
    nameServer,
    log: rootLogger,
    onBrokersAdded: () => recovery?.kick(),
  });
  const heartbeat = new ConsumerHeartbeat({
    clientId: 'me',
    broker: {
      async heartbeat(address: string) {
        calls.push(`heartbeat ${address} ${Date.now()}`);
        if (!state.up.has(address)) throw new RocketMQError(`${address} is down`, { retriable: true });
        return undefined as never;
      },
      async unregisterClient() {
        calls.push(`unregister ${Date.now()}`);
      },
    },
    routes,
    options: { consumerGroup: 'G', messageModel: 'CLUSTERING', startingPosition: 'LATEST' },
    subscriptions: [],
    log: rootLogger,
  });
  recovery = new MembershipRecovery({
    topic: TOPIC,
    routes,
    refreshRoutes: () => routes.refresh(TOPIC),
    heartbeat,
    rebalance: async () => {
      calls.push(`rebalance ${Date.now()}`);
      // The broker lists us once a broker of the route took our heartbeat.
      state.decided = routes.allBrokerAddresses().some((address) => heartbeat.isRegistered(address));
    },
    decided: () => state.decided,
    log: rootLogger,
    random: () => 1,
  });
  return { calls, state, routes, heartbeat, recovery };
}

/** The calls of one kind, as their times (ms since the test's start). */
function times(calls: readonly string[], kind: string): number[] {
  return calls.filter((call) => call.startsWith(`${kind} `)).map((call) => Number(call.split(' ').at(-1)));
}

describe('MembershipRecovery', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('looks the route up on a backoff of 1 s doubling to 5 s while there is none, not every 30 s', async () => {
    const { calls, recovery } = setup();
    recovery.start();
    await vi.advanceTimersByTimeAsync(30_000);
    const lookups = times(calls, 'lookup');
    // Then one lookup per 5 s at most while it fails.
    expect(lookups).toEqual([0, 1000, 3000, 7000, 12_000, 17_000, 22_000, 27_000]);
    expect(recovery.recovering).toBe(true);
    await recovery.stop();
  });

  it('jitters each wait between half and all of its step, never more than the cap', async () => {
    const calls: string[] = [];
    const random = vi.spyOn(Math, 'random').mockReturnValue(0);
    const lowJitter = new MembershipRecovery({
      topic: TOPIC,
      routes: { route: () => undefined, allBrokerAddresses: () => [] },
      refreshRoutes: async () => calls.push(`lookup ${Date.now()}`),
      heartbeat: { isRegistered: () => false, sendTo: async () => ({ accepted: 0, failures: [] }) },
      log: rootLogger,
    });
    lowJitter.start();
    await vi.advanceTimersByTimeAsync(12_000);
    expect(times(calls, 'lookup')).toEqual([0, 500, 1500, 3500, 6000, 8500, 11_000]);
    expect(RECOVERY_INITIAL_DELAY_MS / 2).toBe(500);
    expect(RECOVERY_MAX_DELAY_MS / 2).toBe(2500);
    random.mockRestore();
    await lowJitter.stop();
  });

  it('once the name server answers: heartbeats the new broker and rebalances at once, then stops checking', async () => {
    const { calls, state, recovery } = setup({ up: ['b:1'] });
    recovery.start();
    await vi.advanceTimersByTimeAsync(10_000);
    state.route = routeOf('b:1');
    const before = calls.length;
    await vi.advanceTimersByTimeAsync(5_000);
    // The next lookup (at 12 s) finds the route; the broker is heartbeated and the queues shared out then.
    expect(calls.slice(before)).toEqual(['lookup 12000', 'heartbeat b:1 12000', 'rebalance 12000']);
    expect(recovery.recovering).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.length).toBe(before + 3);
    await recovery.stop();
  });

  it('retries the heartbeat of a broker that is down, without looking up routes meanwhile, and rebalances when it takes one', async () => {
    const { calls, state, routes, heartbeat, recovery } = setup({
      route: routeOf('up:1', 'down:2'),
      up: ['up:1'],
    });
    // What the runtime's start did: route, first heartbeat, first rebalance.
    await routes.refresh(TOPIC);
    await heartbeat.sendToAll();
    state.decided = true;
    calls.length = 0;
    recovery.start();
    await vi.advanceTimersByTimeAsync(11_000);
    expect(times(calls, 'heartbeat down:2')).toEqual([0, 1000, 3000, 7000]);
    expect(times(calls, 'heartbeat up:1')).toEqual([]);
    expect(times(calls, 'lookup')).toEqual([]); // a broker of the route works: the route is usable
    expect(times(calls, 'rebalance')).toEqual([]);
    state.up.add('down:2');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(times(calls, 'heartbeat down:2').at(-1)).toBe(12_000);
    expect(times(calls, 'rebalance')).toEqual([12_000]);
    expect(recovery.recovering).toBe(false);
    await recovery.stop();
  });

  it('looks the route up again while no broker of it takes a heartbeat (they may have moved)', async () => {
    const { calls, state, routes, recovery } = setup({ route: routeOf('old:1') });
    await routes.refresh(TOPIC);
    recovery.start();
    await vi.advanceTimersByTimeAsync(2_000);
    state.route = routeOf('new:1');
    state.up.add('new:1');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(times(calls, 'lookup')).toEqual([0, 0, 1000, 3000]);
    expect(times(calls, 'heartbeat old:1')).toEqual([0, 1000]);
    expect(times(calls, 'heartbeat new:1')).toEqual([3000]);
    expect(times(calls, 'rebalance').at(-1)).toBe(3000);
    expect(recovery.recovering).toBe(false);
    await recovery.stop();
  });

  it('does nothing at all while everything is in place, also when kicked', async () => {
    const { calls, state, routes, heartbeat, recovery } = setup({ route: routeOf('b:1'), up: ['b:1'] });
    await routes.refresh(TOPIC);
    await heartbeat.sendToAll();
    state.decided = true;
    calls.length = 0;
    recovery.start();
    recovery.kick();
    await vi.advanceTimersByTimeAsync(60_000);
    recovery.kick();
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([]);
    await recovery.stop();
  });

  it('heartbeats a broker a periodic refresh found new, and rebalances, at once', async () => {
    const { calls, state, routes, heartbeat, recovery } = setup({
      route: routeOf('b:1'),
      up: ['b:1', 'c:1'],
    });
    await routes.refresh(TOPIC);
    await heartbeat.sendToAll();
    state.decided = true;
    recovery.start();
    await vi.advanceTimersByTimeAsync(10_000);
    calls.length = 0;
    state.route = routeOf('b:1', 'c:1');
    await routes.refresh(TOPIC); // what the runtime's 30 s route task does
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual(['lookup 10000', 'heartbeat c:1 10000', 'rebalance 10000']);
    await recovery.stop();
  });

  it('ignores kicks before start and after stop, and stop cancels the next check', async () => {
    const { calls, recovery } = setup();
    recovery.kick();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(calls).toEqual([]);
    recovery.start();
    await vi.advanceTimersByTimeAsync(1);
    await recovery.stop();
    recovery.kick();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(times(calls, 'lookup')).toEqual([5000]);
  });
});
