/**
 * A poller mapping with consumeMode POP against the real broker: three pollers of one group share a
 * 2-queue topic (more pollers than queues, which PUSH cannot use), with no rebalance and no offset store,
 * and every sent message reaches the function (ledger: lost 0) through the unchanged Lambda result mapping.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import { PopConsumer } from '../../../src/consumer/pop/pop-consumer.js';
import type { InvokeOutcome, InvokeRequest, Invoker } from '../../../src/invoke/invoker.js';
import { type Poller, startPoller } from '../../../src/poller/poller.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';

const QUEUES = 2;
const POLLERS = 3;
const MESSAGES = 120;
const HANDLERS_DIR = fileURLToPath(new URL('../../fixtures/config/handlers/', import.meta.url));

/** Counts every message id the function received, over all pollers; answers "all succeeded". */
class LedgerInvoker {
  readonly counts = new Map<string, number>();
  readonly perPoller: number[] = [];

  forPoller(index: number): Invoker {
    this.perPoller[index] = 0;
    return {
      invoke: async (request: InvokeRequest): Promise<InvokeOutcome> => {
        const event = JSON.parse(request.payload.toString('utf8')) as { Records: { messageId: string }[] };
        for (const record of event.Records) {
          this.counts.set(record.messageId, (this.counts.get(record.messageId) ?? 0) + 1);
        }
        this.perPoller[index] = (this.perPoller[index] ?? 0) + event.Records.length;
        return { ok: true, payload: Buffer.from('{"batchItemFailures":[]}') };
      },
      close: async () => undefined,
    };
  }

  duplicates(): number {
    let n = 0;
    for (const count of this.counts.values()) n += count - 1;
    return n;
  }
}

describe('a poller with consumeMode POP', () => {
  it('three pollers share a 2-queue topic: every message delivered, none lost', {
    timeout: 120_000,
  }, async () => {
    const topic = uniqueTopic('PollerPop');
    const group = uniqueGroup('PollerPop');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);
    const config = parseConfig(
      {
        nameServer: testBroker().namesrvAddr,
        shutdownTimeoutMs: 5000,
        offsets: { store: 'memory' },
        mappings: [
          {
            name: 'pop',
            topic,
            consumerGroup: group,
            function: 'local:./noop.mjs#handler',
            consumeMode: 'POP',
            startingPosition: 'TRIM_HORIZON',
            batchSize: 10,
            maximumBatchingWindowMs: 50,
          },
        ],
      },
      { baseDir: HANDLERS_DIR },
    );
    const ledger = new LedgerInvoker();
    const pollers: Poller[] = [];
    onTestFinished(async () => {
      await Promise.all(pollers.map((poller) => poller.stop()));
    });
    for (let i = 0; i < POLLERS; i++) {
      pollers.push(
        await startPoller(config, {
          invoker: ledger.forPoller(i),
          consumerOverrides: { routeRefreshIntervalMs: 2000 },
        }),
      );
    }
    for (const poller of pollers) {
      expect(poller.runtimes.get('pop')).toBeInstanceOf(PopConsumer);
      // No queue is held: the lag is the group's backlog on every queue, shared by the three pollers.
      const [lag] = await poller.lag();
      expect(lag).toMatchObject({ sharedBy: POLLERS, unknownQueues: 0, total: 0 });
      expect(lag?.queues).toHaveLength(QUEUES);
    }

    const sent = await produce(await newProducer(client), topic, MESSAGES, { queues: QUEUES, batch: 10 });
    await waitFor(`${MESSAGES} messages delivered`, 60_000, async () =>
      sent.every((id) => ledger.counts.has(id)) ? true : undefined,
    );
    const lost = sent.filter((id) => !ledger.counts.has(id));
    expect(lost).toEqual([]);
    // Acked: the pollers' counters agree with the ledger once the acks went out.
    await waitFor('every delivery acked', 30_000, async () => {
      const acked = (await Promise.all(pollers.map((poller) => poller.popStatus())))
        .flat()
        .reduce((sum, status) => sum + status.popCounters.acks, 0);
      return acked >= MESSAGES ? acked : undefined;
    });
    for (const poller of pollers) {
      expect(poller.health()).toMatchObject({ healthy: true, problems: [] });
      // Every POP poller pops every queue: none is a standby.
      expect(poller.health().mappings?.map((mapping) => mapping.state)).toEqual(['consuming']);
      expect((await poller.popStatus())[0]?.state).toBe('running');
    }
    console.info(
      `[poller-pop] ${MESSAGES} sent over ${QUEUES} queues to ${POLLERS} pollers: lost ${lost.length}, duplicates ${ledger.duplicates()}, per poller ${ledger.perPoller.join('/')}`,
    );
    const exits = await Promise.all(pollers.map((poller) => poller.stop()));
    expect(exits.flatMap((exit) => exit.failures)).toEqual([]);
  });
});
