import { describe, expect, it, onTestFinished } from 'vitest';
import { dlqTopicOf } from '../../../src/consumer/consumer-options.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { pullMessages } from '../client/helpers.js';
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

describe('ConsumerRuntime retries', () => {
  it('a failing message comes back via the retry topic with reconsumeTimes rising and reaches the DLQ; others flow', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('retry');
    const group = uniqueGroup('retry');
    await createTopic(client, topic, 2);
    const producer = await newProducer(client);
    const ledger = new Ledger();
    const { runtime } = newRuntime(
      // retryDelayLevel 1 (1 s): with 0 the broker would wait 10 s, then 30 s.
      { topic, consumerGroup: group, maxReconsumeTimes: 2, retryDelayLevel: 1, batchSize: 10 },
      recordingListener(ledger, (messages) => {
        const failed = messages.flatMap((m, i) => (m.message.body.toString() === 'poison' ? [i] : []));
        return failed.length === 0
          ? { status: 'SUCCESS' }
          : { status: 'PARTIAL', failedIndexes: failed, reason: 'poison' };
      }),
    );
    await runtime.start();
    const [poisonId] = await produce(producer, topic, 1, { message: () => ({ body: 'poison' }) });
    const normal = await produce(producer, topic, 200, { queues: 2 });
    await waitFor('normal messages', 15_000, async () =>
      ledger.missing(normal).length === 0 ? true : undefined,
    );
    const poisonDeliveries = () => ledger.deliveries.filter((d) => d.message.msgId === poisonId);
    await waitFor('three poison deliveries', 30_000, async () =>
      poisonDeliveries().length >= 3 ? true : undefined,
    );
    const deliveries = poisonDeliveries();
    expect(deliveries.map((d) => d.message.reconsumeTimes)).toEqual([0, 1, 2]);
    expect(deliveries.map((d) => d.topic)).toEqual([topic, topic, topic]);
    expect(deliveries.slice(1).map((d) => d.queue.topic)).toEqual([`%RETRY%${group}`, `%RETRY%${group}`]);
    const [dead] = await pullMessages(client, {
      group: uniqueGroup('dlqreader'),
      topic: dlqTopicOf(group),
      queueId: 0,
      count: 1,
      timeoutMs: 15_000,
    });
    expect(dead?.msgId).toBe(poisonId);
    expect(ledger.duplicates()).toBe(2);
    const status = await runtime.status();
    expect(status.counters.sentBack).toBe(3);
  });

  it('PARTIAL: exactly the failed messages are retried', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('partial');
    const group = uniqueGroup('partial');
    await createTopic(client, topic, 1);
    const producer = await newProducer(client);
    const ledger = new Ledger();
    const isOdd = (body: string) => Number(body.slice(1)) % 2 === 1;
    const { runtime } = newRuntime(
      { topic, consumerGroup: group, retryDelayLevel: 1, batchSize: 7, maximumBatchingWindowMs: 200 },
      recordingListener(ledger, (messages) => {
        const failed = messages.flatMap((m, i) =>
          m.message.reconsumeTimes === 0 && isOdd(m.message.body.toString()) ? [i] : [],
        );
        return { status: 'PARTIAL', failedIndexes: failed, reason: 'odd' };
      }),
    );
    await runtime.start();
    const sent = await produce(producer, topic, 40);
    await waitFor('odd ones retried', 20_000, async () =>
      ledger.deliveries.filter((d) => d.message.reconsumeTimes === 1).length >= 20 ? true : undefined,
    );
    const retried = ledger.deliveries
      .filter((d) => d.message.reconsumeTimes === 1)
      .map((d) => d.message.body.toString());
    const expected = sent.map((_, i) => `m${i}`).filter(isOdd);
    expect(retried.sort()).toEqual(expected.sort());
    expect(ledger.missing(sent)).toEqual([]);
  });

  it('a fatal listener error stops pulling, emits a fatal event and moves no offset', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('fatal');
    const group = uniqueGroup('fatal');
    await createTopic(client, topic, 1);
    const producer = await newProducer(client);
    const ledger = new Ledger();
    const { runtime, offsetStore } = newRuntime(
      { topic, consumerGroup: group },
      recordingListener(ledger, () => {
        throw Object.assign(new Error('function not found'), { fatal: true });
      }),
    );
    const events: string[] = [];
    runtime.onEvent((event) => events.push(event.type));
    await runtime.start();
    const [queue] = (await runtime.status()).queues.filter((q) => q.queue.topic === topic);
    await produce(producer, topic, 5);
    await waitFor('fatal', 15_000, async () => (runtime.state === 'failed' ? true : undefined));
    expect(events).toContain('fatal');
    expect((await runtime.status()).error).toBeInstanceOf(Error);
    expect(queue).toBeDefined();
    if (queue !== undefined) expect(await offsetStore.readOffset(queue.queue, 'MEMORY')).toBe(0);
    await runtime.stop();
    expect(runtime.state).toBe('stopped');
  });
});
