import { describe, expect, it, onTestFinished } from 'vitest';
import type { ConsumeResult, MessageListener } from '../../../src/consumer/message-listener.js';
import { describeError } from '../../../src/util/describe-error.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { expectQuietFor } from '../../support/quiet-window.js';
import { createTopic, newClient, pullMessages, sleep, waitFor } from '../client/helpers.js';
import { Ledger, newProducer, produce, recordingListener, startPopConsumer } from '../consumer/helpers.js';

describe('PopConsumer against the real broker', () => {
  it('a failing message is retried with growing reconsumeTimes, then lands in %DLQ%<group> and is acked', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('popdlq');
    const group = uniqueGroup('popdlq');
    await createTopic(client, topic, 2);
    const [sentId] = await produce(await newProducer(client), topic, 1);
    const attempts: number[] = [];
    const finalFailures: string[] = [];
    const listener: MessageListener = {
      async consume(messages): Promise<ConsumeResult> {
        for (const m of messages) attempts.push(m.message.reconsumeTimes);
        return { status: 'FAILED', reason: 'always fails' };
      },
      async notifyFinalFailure(messages) {
        finalFailures.push(...messages.map((m) => m.message.msgId));
      },
    };
    const consumer = await startPopConsumer(
      { topic, consumerGroup: group, maxReconsumeTimes: 2, retryDelaysMs: [1000], invisibleTimeMs: 30_000 },
      listener,
    );
    await waitFor('the final failure', 60_000, async () => (finalFailures.length > 0 ? true : undefined));
    expect(attempts).toEqual([0, 1, 2]);
    expect(finalFailures).toEqual([sentId]);
    const status = await consumer.status();
    expect(status.counters.deadLettered).toBe(1);
    expect(status.popCounters.invisibleTimeChanges).toBe(2);
    const dlq = await pullMessages(client, {
      group: uniqueGroup('dlqreader'),
      topic: `%DLQ%${group}`,
      queueId: 0,
      count: 1,
    });
    expect(dlq.map((m) => m.msgId)).toEqual([sentId]);
    console.info(
      `[pop] DLQ record: reconsumeTimes ${dlq[0]?.reconsumeTimes}, RETRY_TOPIC ${dlq[0]?.properties.RETRY_TOPIC}`,
    );
    // Acked after the send-back: it is not delivered again.
    await expectQuietFor('deliveries after the DLQ', 6000, () => attempts.length);
    expect(testBroker().brokerName).toBe(status.brokers[0]?.brokerName);
  }, 90_000);

  it('4 consumers of one group share a 2-queue topic: all busy, none lost, duplicates counted', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('pop4');
    const group = uniqueGroup('pop4');
    await createTopic(client, topic, 2);
    const producer = await newProducer(client);
    const sent: string[] = [];
    const ledgers = [new Ledger(), new Ledger(), new Ledger(), new Ledger()];
    const all = new Ledger();
    // Each batch takes a while, as a function would: one consumer alone could not keep up.
    const slow = (ledger: Ledger) =>
      recordingListener(ledger, async (messages) => {
        all.record(messages);
        await sleep(100);
        return { status: 'SUCCESS' };
      });
    const consumers = [];
    for (const ledger of ledgers) {
      consumers.push(
        await startPopConsumer(
          { topic, consumerGroup: group, batchSize: 8, maxConcurrency: 2, invisibleTimeMs: 30_000 },
          slow(ledger),
        ),
      );
    }
    const started = Date.now();
    for (let round = 0; round < 10; round++)
      sent.push(...(await produce(producer, topic, 200, { queues: 2 })));
    try {
      await waitFor('all 2,000 messages delivered', 90_000, async () =>
        all.missing(sent).length === 0 ? true : undefined,
      );
    } catch (error) {
      // What each consumer was doing when the wait gave up, for the reader of the failure; the last pop
      // error says whether the broker stopped answering (an RPC timeout) or refused.
      const states = await Promise.all(
        consumers.map(async (c) => {
          const { counters, popCounters, brokers } = await c.status();
          const lastErrors = brokers.map((b) =>
            b.lastError === undefined ? 'none' : describeError(b.lastError),
          );
          return JSON.stringify({
            pullRequests: counters.pullRequests,
            pullErrors: counters.pullErrors,
            popCounters,
            lastErrors,
          });
        }),
      );
      throw new Error(
        `${all.missing(sent).length} of ${sent.length} still missing; consumers: ${states.join(' | ')}`,
        {
          cause: error,
        },
      );
    }
    const elapsedMs = Date.now() - started;
    for (const c of consumers) expect(c.health().healthy).toBe(true);
    // Stopped, every batch in flight is settled: each delivery was acked once (or said why not).
    await Promise.all(consumers.map((c) => c.stop()));
    const perConsumer = ledgers.map((l) => l.deliveries.length);
    const statuses = await Promise.all(consumers.map((c) => c.status()));
    const batches = statuses.map((s) => s.counters.batchesDispatched);
    const settled = statuses.map((s) => s.popCounters);
    const acks = settled.reduce((n, p) => n + p.acks, 0);
    const unacked = settled.reduce((n, p) => n + p.ackFailures + p.gone, 0);
    console.info(
      `[pop] 4 consumers, 2 queues: sent ${sent.length}, delivered ${all.deliveries.length} ` +
        `(unique ${all.counts.size}), lost ${all.missing(sent).length}, duplicates ${all.duplicates()}, ` +
        `per consumer ${perConsumer.join('/')}, batches ${batches.join('/')}, acks ${acks}, ${elapsedMs} ms`,
    );
    expect(acks + unacked).toBe(all.deliveries.length);
    expect(all.missing(sent)).toEqual([]);
    for (const count of perConsumer) expect(count).toBeGreaterThan(0);
  }, 150_000);
});
