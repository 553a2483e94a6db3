/**
 * A POP consumer gets back to work within seconds of what it lacked coming back (membership-recovery.ts),
 * not at its next route refresh (30 s): a name server that answered nonsense at start and turns sane, and
 * a broker group that a route refreshed on a pop loop's stale-route hint adds. Fake timers, production
 * intervals.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BrokerError } from '../../../../src/client/broker-error.js';
import type { PopResult } from '../../../../src/client/pop-result.js';
import type { MessageListener } from '../../../../src/consumer/message-listener.js';
import { PopConsumer, type PopConsumerClient } from '../../../../src/consumer/pop/pop-consumer.js';
import { RocketMQError } from '../../../../src/errors.js';
import { RequestCode } from '../../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../../src/protocol/response-code.js';
import type { TopicRouteData } from '../../../../src/protocol/route-data.js';

const TOPIC = 'T';
/** Within this of what it lacked coming back, the consumer pops there (the target: 10 s). */
const RECOVERED_WITHIN_MS = 10_000;

function routeOf(...brokerNames: string[]): TopicRouteData {
  return {
    brokerDatas: brokerNames.map((brokerName) => ({
      cluster: 'C',
      brokerName,
      brokerAddrs: new Map([[0, `${brokerName}:10911`]]),
    })),
    queueDatas: brokerNames.map((brokerName) => ({
      brokerName,
      readQueueNums: 2,
      writeQueueNums: 2,
      perm: 6,
      topicSysFlag: 0,
    })),
  };
}

/** A POP consumer over a name server the test steers and brokers whose pops it records. */
function setup(state: { route: TopicRouteData | undefined; staleAt?: string }) {
  const pops: Array<{ address: string; atMs: number }> = [];
  const client: PopConsumerClient = {
    clientId: '127.0.0.1@1#me',
    nameServer: {
      async getRoute(topic: string) {
        if (state.route === undefined)
          throw new RocketMQError(`garbage answer for ${topic}`, { retriable: true });
        return state.route;
      },
    },
    broker: {
      heartbeat: async () => undefined as never,
      unregisterClient: async () => undefined,
      consumerSendMsgBack: async () => undefined,
      getConsumerListByGroup: async () => [],
      getMaxOffset: async () => 0,
      getMinOffset: async () => 0,
      queryConsumerOffset: async () => undefined,
    } as unknown as PopConsumerClient['broker'],
    pool: {} as PopConsumerClient['pool'],
  };
  const pop = {
    popMessage: async (address: string): Promise<PopResult> => {
      pops.push({ address, atMs: Date.now() });
      if (address === state.staleAt) {
        throw new BrokerError({
          code: ResponseCode.TOPIC_NOT_EXIST,
          requestCode: RequestCode.POP_MESSAGE,
          address,
        });
      }
      // An empty long poll of a second.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return { status: 'NO_NEW_MSG', restNum: 0 };
    },
    ackMessage: async () => 'OK' as never,
    changeInvisibleTime: async () => undefined as never,
  };
  const listener: MessageListener = { consume: async () => ({ status: 'SUCCESS' }) };
  const consumer = new PopConsumer(
    { name: 'm', topic: TOPIC, consumerGroup: 'G', shutdownTimeoutMs: 1000 },
    { client, listener, pop },
  );
  return { consumer, pops };
}

function firstPopAt(
  pops: ReadonlyArray<{ address: string; atMs: number }>,
  address: string,
): number | undefined {
  return pops.find((p) => p.address === address)?.atMs;
}

describe('PopConsumer recovery', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('pops within seconds of a name server that answered garbage at start turning sane', async () => {
    const state: { route: TopicRouteData | undefined } = { route: undefined };
    const { consumer, pops } = setup(state);
    await consumer.start();
    expect(consumer.state).toBe('running');
    await vi.advanceTimersByTimeAsync(7000);
    expect(pops).toEqual([]);

    state.route = routeOf('b0');
    const saneAtMs = Date.now();
    await vi.advanceTimersByTimeAsync(RECOVERED_WITHIN_MS);

    const first = firstPopAt(pops, 'b0:10911');
    expect(first).toBeDefined();
    expect((first as number) - saneAtMs).toBeLessThanOrEqual(RECOVERED_WITHIN_MS);
    await consumer.stop();
  });

  it('pops at once at a broker group that a route refreshed on a stale-route hint adds', async () => {
    const state: { route: TopicRouteData | undefined; staleAt?: string } = { route: routeOf('b0') };
    const { consumer, pops } = setup(state);
    await consumer.start();
    await vi.advanceTimersByTimeAsync(2500);
    expect(firstPopAt(pops, 'b1:10911')).toBeUndefined();

    // b0 says our route is stale; the refreshed route names a new broker group.
    state.route = routeOf('b0', 'b1');
    state.staleAt = 'b0:10911';
    const hintedAtMs = Date.now();
    await vi.advanceTimersByTimeAsync(RECOVERED_WITHIN_MS);

    const first = firstPopAt(pops, 'b1:10911');
    expect(first).toBeDefined();
    expect((first as number) - hintedAtMs).toBeLessThanOrEqual(RECOVERED_WITHIN_MS);
    await consumer.stop();
  });
});
