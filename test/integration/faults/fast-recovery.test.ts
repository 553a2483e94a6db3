/**
 * Fault scenario "fast recovery": a consumer started while what it needs is missing uses it within
 * seconds of its return, not at the next periodic route refresh, heartbeat and rebalance (30 s, 30 s,
 * 20 s: a poller once first pulled 45 s after its name server turned sane). The periodic intervals are
 * the production defaults here, so only the fast retries of membership-recovery.ts can make the waits.
 * - Its only name server answers garbage, then relays to the real one (fake-name-server.ts).
 * - Its broker refuses connections (a TCP proxy in front of the real broker, not listening; the name
 *   server's routes name the proxy), then relays; later it goes down and comes back once more.
 * - A POP consumer's only name server answers garbage, then relays (a short outage: the unit test
 *   test/unit/consumer/pop/pop-consumer-recovery.test.ts covers the POP cases on fake timers).
 * Each phase waits up to {@link CONSUMED_WITHIN_MS} for the message produced during the outage; the
 * target is 10 s, the margin is for a loaded machine, the time measured goes to the fault report.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConsumerRuntime } from '../../../src/consumer/consumer-runtime.js';
import type { ConsumedMessage, MessageListener } from '../../../src/consumer/message-listener.js';
import { POP_CONSUMER_DEFAULTS } from '../../../src/consumer/pop/pop-consumer-options.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import { masterAddress } from '../../../src/protocol/route-data.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { recordFaultOutcome } from '../../support/fault-report.js';
import { waitFor } from '../../support/wait-for.js';
import { createTopic, newClient, sleep } from '../client/helpers.js';
import { newProducer, startPopConsumer } from '../consumer/helpers.js';
import { FakeNameServer } from './fake-name-server.js';
import { TcpProxy } from './tcp-proxy.js';

/** Generous over the 10 s target; without the fast retries the first pull comes after 30 s or more. */
const CONSUMED_WITHIN_MS = 15_000;
/**
 * How long each outage lasts once the consumer runs: checks at about 0, 1, 3 and 7 s fail, so the next
 * one is up to the full 5 s away when the outage ends (the longest a recovery waits).
 */
const OUTAGE_MS = 7000;
/** The POP case's outage: the checks at about 0 and 1 s fail, the next is 1-4 s away when it ends. */
const POP_OUTAGE_MS = 2500;

/** Records when each message body was first consumed. */
class ArrivalLog implements MessageListener {
  readonly firstSeenMs = new Map<string, number>();

  async consume(messages: readonly ConsumedMessage[]): Promise<{ status: 'SUCCESS' }> {
    for (const { message } of messages) {
      const body = message.body.toString('utf8');
      if (!this.firstSeenMs.has(body)) this.firstSeenMs.set(body, Date.now());
    }
    return { status: 'SUCCESS' };
  }

  /** Waits for `body`; resolves with the ms from `sinceMs` to its consumption. */
  async after(body: string, sinceMs: number): Promise<number> {
    const seenMs = await waitFor(`"${body}" consumed`, CONSUMED_WITHIN_MS, () => this.firstSeenMs.get(body));
    return seenMs - sinceMs;
  }
}

/** A topic of the real broker, a producer for it, and the address its route names for the broker. */
async function realTopic(prefix: string) {
  const admin = newClient();
  onTestFinished(() => admin.close());
  const topic = uniqueTopic(prefix);
  await createTopic(admin, topic, 2);
  const route = await admin.nameServer.getRoute(topic, { refresh: true });
  const routed = route.brokerDatas[0] === undefined ? undefined : masterAddress(route.brokerDatas[0]);
  if (routed === undefined) throw new Error(`the route of ${topic} names no master`);
  return { topic, routed, producer: await newProducer(admin) };
}

/** A consumer of `topic` through the given name server, with the production intervals. */
async function startConsumer(nameServer: string, topic: string, listener: ArrivalLog) {
  const client = newClient({ nameServerAddresses: [nameServer] });
  const runtime = new ConsumerRuntime(
    {
      name: 'recovery',
      topic,
      consumerGroup: uniqueGroup('fault_recovery'),
      startingPosition: 'TRIM_HORIZON',
      maximumBatchingWindowMs: 50,
      shutdownTimeoutMs: 5000,
    },
    { client, offsetStore: new MemoryOffsetStore(), listener },
  );
  onTestFinished(async () => {
    await runtime.stop();
    await client.close();
  });
  await runtime.start();
  return runtime;
}

/** A POP consumer of `topic` through the given name server, with the production intervals. */
function startPopConsumerVia(nameServer: string, topic: string, listener: ArrivalLog) {
  return startPopConsumer(
    {
      name: 'recovery-pop',
      topic,
      consumerGroup: uniqueGroup('fault_recovery_pop'),
      maximumBatchingWindowMs: 50,
      pollTimeMs: POP_CONSUMER_DEFAULTS.pollTimeMs,
    },
    listener,
    { nameServerAddresses: [nameServer] },
  );
}

/** One "name server turns sane" phase: its fault report row, the prefix of its topic, its outage. */
interface NameServerPhase {
  readonly scenario: string;
  readonly topicPrefix: string;
  /** Put before the row's notes. */
  readonly notesPrefix: string;
  readonly outageMs: number;
}

const NAME_SERVER_PHASE: NameServerPhase = {
  scenario: 'name server turns sane',
  topicPrefix: 'fault_ns_back',
  notesPrefix: '',
  outageMs: OUTAGE_MS,
};
const POP_NAME_SERVER_PHASE: NameServerPhase = {
  scenario: 'name server turns sane (POP)',
  topicPrefix: 'fault_ns_back_pop',
  notesPrefix: 'POP: ',
  outageMs: POP_OUTAGE_MS,
};

/**
 * A consumer (made by `start`) whose only name server answers garbage for the phase's outage, then relays
 * to the real one: waits for the message sent meanwhile and records the row. The consumer, and how many
 * lookups the garbage answered.
 */
async function nameServerTurnsSane<Consumer>(
  phase: NameServerPhase,
  start: (nameServer: string, topic: string, listener: ArrivalLog) => Promise<Consumer>,
) {
  const startedAt = Date.now();
  const { topic, producer } = await realTopic(phase.topicPrefix);
  const nameServer = await FakeNameServer.start('garbage');
  const arrivals = new ArrivalLog();
  const consumer = await start(nameServer.address, topic, arrivals);
  await producer.send({ topic, body: 'sent while the name server talks nonsense' });
  await sleep(phase.outageMs);
  const garbageAnswers = nameServer.requests;

  const switchedAt = Date.now();
  nameServer.forwardTo(testBroker().namesrvAddr);
  const recoveryMs = await arrivals.after('sent while the name server talks nonsense', switchedAt);

  await recordRecovery(
    phase.scenario,
    1,
    arrivals,
    startedAt,
    `${phase.notesPrefix}first message consumed ${(recoveryMs / 1000).toFixed(1)} s after the only name ` +
      'server turned sane (target 10 s; periodic intervals at their defaults); ' +
      `${garbageAnswers} lookups answered with garbage in the ${phase.outageMs / 1000} s before`,
  );
  return { consumer, garbageAnswers };
}

/** Records a scenario in which each of `sent` messages was to be consumed once. */
function recordRecovery(
  scenario: string,
  sent: number,
  arrivals: ArrivalLog,
  startedAt: number,
  notes: string,
): Promise<void> {
  return recordFaultOutcome({
    scenario,
    consumer: 'rocketmq-lambda',
    sent,
    delivered: arrivals.firstSeenMs.size,
    lost: sent - arrivals.firstSeenMs.size,
    duplicates: 0,
    orderViolations: null,
    processOutcomes: [],
    notes,
    durationMs: Date.now() - startedAt,
  });
}

describe('fast recovery', () => {
  it('uses a name server within seconds of it turning sane', async () => {
    const { consumer, garbageAnswers } = await nameServerTurnsSane(NAME_SERVER_PHASE, startConsumer);
    expect(consumer.state).toBe('running');
    // Retried on the backoff (about 0, 1, 3, 7 s), not once per 30 s.
    expect(garbageAnswers).toBeGreaterThanOrEqual(6);
  }, 40_000);

  it('pulls from a broker within seconds of it coming back, at start and mid-run', async () => {
    const startedAt = Date.now();
    const { topic, routed, producer } = await realTopic('fault_broker_back');
    const broker = await TcpProxy.start(routed, { down: true });
    const nameServer = await FakeNameServer.start('garbage');
    nameServer.forwardTo(testBroker().namesrvAddr, new Map([[routed, broker.address]]));
    const arrivals = new ArrivalLog();
    const runtime = await startConsumer(nameServer.address, topic, arrivals);
    /** Sends `body` while the broker is down, brings it back after the outage: ms until `body` is consumed. */
    const consumedOnceBack = async (body: string) => {
      await producer.send({ topic, body });
      await sleep(OUTAGE_MS);
      const upAt = Date.now();
      await broker.up();
      return arrivals.after(body, upAt);
    };

    const atStartMs = await consumedOnceBack('sent while the broker was down at start');
    await broker.down();
    const midRunMs = await consumedOnceBack('sent while the broker was down mid-run');

    await recordRecovery(
      'broker comes back',
      2,
      arrivals,
      startedAt,
      `consumed ${(atStartMs / 1000).toFixed(1)} s after the broker came back (down since the consumer's start), ` +
        `${(midRunMs / 1000).toFixed(1)} s after it came back from a ${OUTAGE_MS / 1000} s outage mid-run ` +
        '(target 10 s; periodic intervals at their defaults)',
    );
    expect(runtime.state).toBe('running');
    expect(broker.accepted).toBeGreaterThan(0);
  }, 60_000);

  it('a POP consumer pops within seconds of its name server turning sane', async () => {
    const { consumer, garbageAnswers } = await nameServerTurnsSane(
      POP_NAME_SERVER_PHASE,
      startPopConsumerVia,
    );
    expect(consumer.state).toBe('running');
    // Retried on the backoff (about 0 and 1 s), not once per 30 s.
    expect(garbageAnswers).toBeGreaterThanOrEqual(2);
  }, 30_000);
});
