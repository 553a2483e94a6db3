/**
 * Filter criteria end to end, with a ledger: real broker → poller (broker-side tag filter, then the
 * mapping's `filters`) → Lambda Invoke API over HTTP → offsets in dynalite. Half of the messages the broker
 * passes say `"status":"paid"`; the function must receive exactly those, the committed offsets must move
 * past every message (filtered-out ones count as consumed), and the filtered-out counter, in the consumer's
 * status, in `/metrics` and in the running info `status` shows (PUSH and POP), must be the number the filter dropped. Messages the broker's tag filter drops
 * never reach the poller: neither invoked nor counted as filtered out. In each consume mode: PUSH
 * concurrent and orderly (offsets in dynalite at the queue ends) and POP (the group's offset at the broker).
 */
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ProducerMessage } from '../../../src/client/producer.js';
import { readLiveGroup } from '../../../src/operations/live-group.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { parseExposition } from '../../support/prometheus-exposition.js';
import { createTopic, newClient, newProducer, waitFor } from '../consumer/helpers.js';
import {
  lambdaConfig,
  queueEnds,
  recordingFunction,
  runPoller,
  topicOffsets,
  useLambdaSuite,
} from '../invoke/lambda-harness.js';

const QUEUES = 2;
/** Messages per queue the broker passes (tag `order`): half paid, alternating. */
const ORDERS_PER_QUEUE = 20;
/** Messages per queue the broker's tag filter drops (tag `noise`), paid too. */
const NOISE_PER_QUEUE = 4;
const suite = useLambdaSuite();

/** Every consume mode filters in the listener: PUSH concurrent, PUSH orderly, POP. */
const MODES: readonly [string, Record<string, unknown>][] = [
  ['concurrent', {}],
  ['orderly', { orderly: true }],
  ['POP', { consumeMode: 'POP' }],
];

describe('filters end to end', () => {
  it.each(MODES)(
    '%s: the function gets exactly the paid messages; offsets move past all; filtered_out counts the rest',
    async (_, mode) => {
      const pop = mode.consumeMode === 'POP';
      const { api } = suite();
      const client = newClient();
      onTestFinished(() => client.close());
      const topic = uniqueTopic('filters');
      const group = uniqueGroup('filters');
      const functionName = uniqueGroup('fn');
      await createTopic(client, topic, QUEUES);
      const ledger = recordingFunction(api, functionName, () => ({ batchItemFailures: [] }));

      const producer = await newProducer(client);
      const paid = new Set<string>();
      const open = new Set<string>();
      const noise = new Set<string>();
      for (let queueId = 0; queueId < QUEUES; queueId++) {
        const messages: ProducerMessage[] = [];
        let orders = 0;
        for (let k = 0; k < ORDERS_PER_QUEUE + NOISE_PER_QUEUE; k++) {
          const isNoise = k % 6 === 2;
          const status = isNoise || orders++ % 2 === 0 ? 'paid' : 'open';
          messages.push({
            topic,
            tags: isNoise ? 'noise' : 'order',
            body: JSON.stringify({ queueId, k, status }),
          });
        }
        const { msgIds } = await producer.sendBatch(messages, { queueId });
        msgIds.forEach((id, k) => {
          const message = messages[k] as ProducerMessage;
          if (message.tags === 'noise') noise.add(id);
          else if (String(message.body).includes('"paid"')) paid.add(id);
          else open.add(id);
        });
      }
      expect([paid.size, open.size, noise.size]).toEqual([
        (QUEUES * ORDERS_PER_QUEUE) / 2,
        (QUEUES * ORDERS_PER_QUEUE) / 2,
        QUEUES * NOISE_PER_QUEUE,
      ]);

      const logLines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
      const poller = await runPoller(
        lambdaConfig(
          suite(),
          {
            topic,
            consumerGroup: group,
            function: functionName,
            filter: 'order',
            filters: ['{"body": {"status": ["paid"]}}'],
            batchSize: 8,
            ...mode,
          },
          { metrics: { prometheus: { port: 0, host: '127.0.0.1' } } },
        ),
        { logger },
      );
      const serving = logLines.find((line) => line.msg === 'serving /metrics, /healthz and /readyz');
      const base = `http://127.0.0.1:${String(serving?.port)}`;
      const labels = `mapping="${group}",consumer_group="${group}"`;
      const filteredOut = () => poller.mappingStatus().then((all) => all[0]?.counters.filteredOut ?? -1);

      await waitFor('every paid message at the function, every open one filtered out', 30_000, async () =>
        ledger.counts().size >= paid.size && (await filteredOut()) >= open.size ? true : undefined,
      );
      const ends = await queueEnds(client, topic, QUEUES);
      if (pop) {
        // POP keeps no offsets of its own: the group's consumer offset at the broker, at every queue's end.
        await waitFor("the group's backlog at the broker drained", 15_000, async () => {
          const [lag] = await poller.lag();
          return lag?.unknownQueues === 0 && lag.queues.every((queue) => queue.lag === 0) ? true : undefined;
        });
      } else {
        await waitFor('the stored offsets at the queue ends', 15_000, async () => {
          const stored = await topicOffsets(suite(), group, topic);
          return [...ends].every(([queue, end]) => stored.get(queue) === end) ? true : undefined;
        });
      }
      // What `status` shows of the live group: the poller's running info (forwarded by the broker) says how
      // many it filtered out; a POP poller too, with no queues (src/consumer/pop/pop-running-info.ts).
      const live = await readLiveGroup(client, { topic, consumerGroup: group });
      expect(live.clients.map((c) => c.runningInfo)).toEqual([
        expect.objectContaining({
          state: 'answered',
          filteredOut: open.size,
          queues: pop ? [] : expect.any(Array),
        }),
      ]);
      if (!pop) expect(live.clients[0]?.runningInfo).not.toMatchObject({ queues: [] });
      const scraped = parseExposition(await (await fetch(`${base}/metrics`)).text());
      const exit = await poller.stop();
      expect(exit.failures).toEqual([]);

      // The ledger: exactly the paid ids, each once; no invoke of an open or a noise message.
      expect(new Set(ledger.counts().keys())).toEqual(paid);
      expect([...ledger.counts().values()].every((count) => count === 1)).toBe(true);
      expect(ledger.all().every((record) => record.body.toString().includes('"status":"paid"'))).toBe(true);
      // Offsets past every message: the open ones were consumed by being filtered out, the noise by the broker.
      if (!pop) expect(await topicOffsets(suite(), group, topic)).toEqual(ends);
      expect(await filteredOut()).toBe(open.size);
      expect(scraped.get(`rocketmq_lambda_messages_filtered_out_total{${labels}}`)).toBe(open.size);
      expect(scraped.get(`rocketmq_lambda_consumed_messages_total{${labels},result="success"}`)).toBe(
        paid.size + open.size,
      );
    },
  );
});
