import { describe, expect, it, onTestFinished } from 'vitest';
import type { ConsumerOptions } from '../../../src/consumer/consumer-options.js';
import type { ConsumeResult } from '../../../src/consumer/message-listener.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { sleep } from '../client/helpers.js';
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

const bodies = (ledger: Ledger) => ledger.deliveries.map((d) => d.message.body.toString()).sort();

describe('ConsumerRuntime starting positions', () => {
  it('TRIM_HORIZON, LATEST and AT_TIMESTAMP', async () => {
    const { topic, producer } = await topicWithProducer('start', 2);
    await produce(producer, topic, 6, { queues: 2, message: (i) => ({ body: `old${i}` }) });
    await sleep(50);
    const at = Date.now();
    await sleep(50);
    await produce(producer, topic, 4, { queues: 2, message: (i) => ({ body: `new${i}` }) });
    const start = async (position: Partial<ConsumerOptions>) => {
      const ledger = new Ledger();
      const { runtime } = newRuntime(
        { topic, consumerGroup: uniqueGroup('start'), ...position },
        recordingListener(ledger),
      );
      await runtime.start();
      return ledger;
    };
    const earliest = await start({ startingPosition: 'TRIM_HORIZON' });
    const latest = await start({ startingPosition: 'LATEST' });
    const fromTime = await start({ startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: at });
    await produce(producer, topic, 2, { queues: 2, message: (i) => ({ body: `late${i}` }) });
    await waitFor('earliest sees 12', 15_000, async () =>
      earliest.deliveries.length >= 12 ? true : undefined,
    );
    await waitFor('from-time sees 6', 15_000, async () =>
      fromTime.deliveries.length >= 6 ? true : undefined,
    );
    await waitFor('latest sees 2', 15_000, async () => (latest.deliveries.length >= 2 ? true : undefined));
    await sleep(300);
    expect(bodies(earliest)).toHaveLength(12);
    expect(bodies(latest)).toEqual(['late0', 'late1']);
    expect(bodies(fromTime)).toEqual(['late0', 'late1', 'new0', 'new1', 'new2', 'new3']);
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
    await waitFor('20 matching', 15_000, async () => (ledger.deliveries.length >= 20 ? true : undefined));
    await sleep(300);
    expect(ledger.deliveries).toHaveLength(20);
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
    await waitFor('2 matching', 15_000, async () => (ledger.deliveries.length >= 2 ? true : undefined));
    await sleep(300);
    expect(ledger.deliveries.map((d) => d.message.properties.n).sort()).toEqual(['16', '18']);
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
    await waitFor('the buffer to fill', 15_000, async () => ((await cached()) >= 100 ? true : undefined));
    const first = await cached();
    await sleep(1000);
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
