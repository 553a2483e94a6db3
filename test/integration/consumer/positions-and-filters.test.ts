import { describe, expect, it, onTestFinished } from 'vitest';
import type { ConsumerOptions } from '../../../src/consumer/consumer-options.js';
import type { ConsumerRuntime } from '../../../src/consumer/consumer-runtime.js';
import type { ConsumeResult } from '../../../src/consumer/message-listener.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { storeTimeBoundary } from '../../support/store-time-boundary.js';
import {
  createTopic,
  Ledger,
  newClient,
  newProducer,
  newRuntime,
  produce,
  recordingListener,
  waitFor,
} from './helpers.js';

async function topicWithProducer(prefix: string, queues = 1) {
  const client = newClient();
  onTestFinished(() => client.close());
  const topic = uniqueTopic(prefix);
  await createTopic(client, topic, queues);
  return { topic, producer: await newProducer(client) };
}

const MARKER = 'marker';

/** The bodies a ledger saw, sorted, the markers of {@link drainedThrough} left out. */
const bodies = (ledger: Ledger) =>
  ledger.deliveries
    .map((d) => d.message.body.toString())
    .filter((body) => !body.startsWith(MARKER))
    .sort();

/**
 * Waits until `runtime` has delivered all it ever will of what was sent before `markers` (message ids
 * sent last, one per queue, that the runtime's filter lets through): every marker reached the listener
 * and nothing pulled is left buffered or in flight. A queue is pulled in order, so a message sent
 * before its marker was pulled before it; with the buffers empty, it was delivered too. This replaces
 * a fixed sleep after the expected count arrived: an extra delivery cannot come later than the markers.
 */
async function drainedThrough(runtime: ConsumerRuntime, ledger: Ledger, topic: string, markers: string[]) {
  await waitFor('the markers delivered and the buffers empty', 15_000, async () => {
    if (ledger.missing(markers).length > 0) return undefined;
    const status = await runtime.status();
    const buffered = status.queues
      .filter((q) => q.queue.topic === topic)
      .reduce((sum, q) => sum + q.cachedMessageCount, 0);
    return buffered === 0 && status.inFlightBatches === 0 ? true : undefined;
  });
}

describe('ConsumerRuntime starting positions', () => {
  it('TRIM_HORIZON, LATEST and AT_TIMESTAMP', async () => {
    const { topic, producer } = await topicWithProducer('start', 2);
    await produce(producer, topic, 6, { queues: 2, message: (i) => ({ body: `old${i}` }) });
    const at = await storeTimeBoundary();
    await produce(producer, topic, 4, { queues: 2, message: (i) => ({ body: `new${i}` }) });
    const start = async (position: Partial<ConsumerOptions>) => {
      const ledger = new Ledger();
      const { runtime } = newRuntime(
        { topic, consumerGroup: uniqueGroup('start'), ...position },
        recordingListener(ledger),
      );
      await runtime.start();
      return { ledger, runtime };
    };
    const earliest = await start({ startingPosition: 'TRIM_HORIZON' });
    const latest = await start({ startingPosition: 'LATEST' });
    const fromTime = await start({ startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: at });
    await produce(producer, topic, 2, { queues: 2, message: (i) => ({ body: `late${i}` }) });
    const markers = await produce(producer, topic, 2, {
      queues: 2,
      message: (i) => ({ body: `${MARKER}${i}` }),
    });
    for (const { ledger, runtime } of [earliest, latest, fromTime]) {
      await drainedThrough(runtime, ledger, topic, markers);
    }
    expect(bodies(earliest.ledger)).toHaveLength(12);
    expect(bodies(latest.ledger)).toEqual(['late0', 'late1']);
    expect(bodies(fromTime.ledger)).toEqual(['late0', 'late1', 'new0', 'new1', 'new2', 'new3']);
  });
});

describe('ConsumerRuntime filters', () => {
  it('TAG filter: only matching tags reach the listener', async () => {
    const { topic, producer } = await topicWithProducer('tags');
    const ledger = new Ledger();
    const { runtime } = newRuntime(
      { topic, consumerGroup: uniqueGroup('tags'), filter: { expression: 'TagA || TagC' } },
      recordingListener(ledger),
    );
    await runtime.start();
    const tags = ['TagA', 'TagB', 'TagC'];
    await produce(producer, topic, 30, { message: (i) => ({ tags: tags[i % 3] }) });
    const markers = await produce(producer, topic, 1, { message: () => ({ body: MARKER, tags: 'TagA' }) });
    await drainedThrough(runtime, ledger, topic, markers);
    expect(bodies(ledger)).toHaveLength(20);
    expect(new Set(ledger.deliveries.map((d) => d.message.tags))).toEqual(new Set(['TagA', 'TagC']));
  });

  it('SQL92 filter: only matching properties reach the listener', async () => {
    const { topic, producer } = await topicWithProducer('sql');
    const ledger = new Ledger();
    const { runtime } = newRuntime(
      {
        topic,
        consumerGroup: uniqueGroup('sql'),
        filter: { type: 'SQL92', expression: "n >= 15 AND color = 'red'" },
      },
      recordingListener(ledger),
    );
    await runtime.start();
    await produce(producer, topic, 20, {
      message: (i) => ({ properties: { n: String(i), color: i % 2 === 0 ? 'red' : 'blue' } }),
    });
    const markers = await produce(producer, topic, 1, {
      message: () => ({ body: MARKER, properties: { n: '98', color: 'red' } }),
    });
    await drainedThrough(runtime, ledger, topic, markers);
    const matching = ledger.deliveries.filter((d) => d.message.body.toString() !== MARKER);
    expect(matching.map((d) => d.message.properties.n).sort()).toEqual(['16', '18']);
  });
});

describe('ConsumerRuntime flow control and broadcasting', () => {
  it('a listener that never returns keeps the buffered count at pullThresholdForQueue', async () => {
    const { topic, producer } = await topicWithProducer('flow');
    const ledger = new Ledger();
    const { runtime } = newRuntime(
      {
        topic,
        consumerGroup: uniqueGroup('flow'),
        pullThresholdForQueue: 100,
        batchSize: 10,
        maxConcurrency: 1,
        shutdownTimeoutMs: 100,
      },
      recordingListener(ledger, () => new Promise<ConsumeResult>(() => undefined)),
    );
    await runtime.start();
    await produce(producer, topic, 1000);
    const cached = async () =>
      (await runtime.status()).queues.find((q) => q.queue.topic === topic)?.cachedMessageCount ?? 0;
    const pauses = async () => (await runtime.status()).counters.flowControlCountPauses;
    // A pause means the buffer is over the threshold: the loop pulls no more until the listener returns.
    await waitFor('the buffer to fill', 15_000, async () => ((await pauses()) > 0 ? true : undefined));
    const first = await cached();
    // Instead of a fixed sleep, five more decisions of the pull loop not to pull: had it pulled, that
    // pull would have come before them (one loop per queue, one step at a time).
    const pausesAtFirst = await pauses();
    await waitFor('five more flow-control pauses', 15_000, async () =>
      (await pauses()) >= pausesAtFirst + 5 ? true : undefined,
    );
    const second = await cached();
    const status = await runtime.status();
    expect(first).toBe(second);
    expect(first).toBeGreaterThanOrEqual(100);
    expect(first).toBeLessThanOrEqual(100 + 32);
    expect(status.counters.flowControlCountPauses).toBeGreaterThan(5);
    expect(status.inFlightBatches).toBe(1);
    // one batch (at most batchSize) is in flight and never returns; nothing else was dispatched
    expect(ledger.deliveries.length).toBeGreaterThan(0);
    expect(ledger.deliveries.length).toBeLessThanOrEqual(10);
  });

  it('broadcasting: two runtimes of one group both see every message', async () => {
    const { topic, producer } = await topicWithProducer('bcast', 2);
    const group = uniqueGroup('bcast');
    const ledgers = [new Ledger(), new Ledger()];
    for (const ledger of ledgers) {
      const { runtime } = newRuntime(
        { topic, consumerGroup: group, messageModel: 'BROADCASTING' },
        recordingListener(ledger),
      );
      await runtime.start();
      expect((await runtime.status()).queues).toHaveLength(2);
    }
    const sent = await produce(producer, topic, 100, { queues: 2 });
    for (const ledger of ledgers) {
      await waitFor('all messages', 15_000, async () =>
        ledger.missing(sent).length === 0 ? true : undefined,
      );
      expect(ledger.duplicates()).toBe(0);
    }
  });
});
