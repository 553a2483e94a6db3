/**
 * The POP retry backlog against the real broker: a POP group whose function fails every message leaves
 * them, after their retry delay, in the broker's POP retry topic `%RETRY%<group>_<topic>` (5.3.3 names it
 * V1 by default). With no poller popping, the topic's own queues show no backlog, and only the retry
 * queue shows it: in the lag the pollers measure (measurePopBacklog, summed by popLag) and in `status`
 * (readPopMappingOffsets, the table and the JSON, as retry backlog). Once a poller succeeds the retry
 * backlog drains to 0.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { statusJson, statusTable } from '../../../src/cli/status-render.js';
import { terminalStyle } from '../../../src/cli/terminal-style.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import type { ConsumeResult, MessageListener } from '../../../src/consumer/message-listener.js';
import { measurePopBacklog } from '../../../src/consumer/pop/pop-backlog.js';
import { PopConsumer } from '../../../src/consumer/pop/pop-consumer.js';
import { popLag } from '../../../src/metrics/queue-lag.js';
import { readPopQueuePositions as readPopMappingOffsets } from '../../../src/operations/pop-queue-positions.js';
import type { TargetMapping } from '../../../src/operations/target.js';
import { popRetryTopic } from '../../../src/protocol/pop-extra-info.js';
import { masterAddress, readableQueues } from '../../../src/protocol/route-data.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, waitFor } from '../client/helpers.js';
import { newProducer, produce } from '../consumer/helpers.js';

const MESSAGES = 3;
/** Long enough to stop the consumer before the broker revives the failures into the retry topic. */
const RETRY_DELAY_MS = 5000;

/** The group's backlog as a poller measures it, without popping anything. */
async function pollerLag(client: RocketMQClient, topic: string, group: string) {
  const route = await client.nameServer.getRoute(topic, { refresh: true });
  const backlog = await measurePopBacklog({
    topic,
    consumerGroup: group,
    startingPosition: 'TRIM_HORIZON',
    routes: {
      readableQueues: (name) => readableQueues(name, route),
      masterAddress: (brokerName) => {
        const broker = route.brokerDatas.find((data) => data.brokerName === brokerName);
        return broker === undefined ? undefined : masterAddress(broker);
      },
    },
    broker: client.broker,
  });
  return popLag({ name: 'pop', consumerGroup: group, topic }, backlog);
}

function startConsumer(
  client: RocketMQClient,
  topic: string,
  group: string,
  listener: MessageListener,
): Promise<PopConsumer> {
  const consumer = new PopConsumer(
    {
      name: 'retry-backlog',
      topic,
      consumerGroup: group,
      startingPosition: 'TRIM_HORIZON',
      pollTimeMs: 1000,
      maximumBatchingWindowMs: 0,
      retryDelaysMs: [RETRY_DELAY_MS],
      shutdownTimeoutMs: 5000,
    },
    { client, listener },
  );
  onTestFinished(() => consumer.stop());
  return consumer.start().then(() => consumer);
}

describe('POP retry backlog', () => {
  it('failed messages waiting in the POP retry topic count in the lag and show in status as retry backlog', {
    timeout: 150_000,
  }, async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('PopRetryLag');
    const group = uniqueGroup('PopRetryLag');
    await createTopic(client, topic, 1);
    await produce(await newProducer(client), topic, MESSAGES);

    const failed: number[] = [];
    const failing = await startConsumer(client, topic, group, {
      async consume(messages): Promise<ConsumeResult> {
        for (const m of messages) failed.push(m.message.reconsumeTimes);
        return { status: 'FAILED', reason: 'always fails' };
      },
    });
    await waitFor('the first delivery of every message', 30_000, async () =>
      failed.length >= MESSAGES ? true : undefined,
    );
    await failing.stop();
    // Stopped well within the retry delay: no retry was popped, so the revive brings all three.
    expect(failed).toEqual(new Array(MESSAGES).fill(0));

    const retryTopic = popRetryTopic(topic, group);
    const lag = await waitFor('the failures in the POP retry topic', 60_000, async () => {
      const measured = await pollerLag(client, topic, group);
      const retry = measured.queues.filter((queue) => queue.retry);
      return retry.length === 1 && retry[0]?.lag === MESSAGES ? measured : undefined;
    });
    expect(lag.queues.map((queue) => [queue.queue.topic, queue.retry, queue.lag])).toEqual([
      [topic, false, 0],
      [retryTopic, true, MESSAGES],
    ]);
    expect(lag.queues[1]?.queue).toEqual({
      topic: retryTopic,
      brokerName: testBroker().brokerName,
      queueId: 0,
    });
    expect(lag.unknownQueues).toBe(0);
    expect(lag.total).toBe(MESSAGES);

    const mapping: TargetMapping = {
      name: 'pop',
      topic,
      consumerGroup: group,
      messageModel: 'CLUSTERING',
      startingPosition: 'TRIM_HORIZON',
      startingPositionTimestampMs: undefined,
      offsetStoreKind: 'memory',
      consumeMode: 'POP',
    };
    const snapshot = await readPopMappingOffsets(client, mapping);
    expect(snapshot.brokerError).toBeUndefined();
    const retryRow = snapshot.queues.find((row) => row.retry);
    expect(retryRow).toMatchObject({ queue: { topic: retryTopic, queueId: 0 }, lag: MESSAGES });
    // The age of the oldest retry is read from the retry queue itself.
    expect(retryRow?.oldestUnconsumedAtMs).toBeGreaterThan(0);
    const json = statusJson('poller.json', [snapshot], Date.now()).mappings[0];
    expect(json).toMatchObject({ consumeMode: 'POP', lag: MESSAGES, retryLag: MESSAGES });
    const table = statusTable([snapshot], Date.now(), terminalStyle({ isTTY: false }, {}));
    expect(table).toContain(`lag ${MESSAGES} (retry ${MESSAGES})`);
    expect(table).toMatch(
      new RegExp(`retry ${testBroker().brokerName}:0\\s+\\d+\\s+\\d+\\s+\\d+\\s+${MESSAGES}\\s`),
    );

    const retried: number[] = [];
    await startConsumer(client, topic, group, {
      async consume(messages): Promise<ConsumeResult> {
        for (const m of messages) retried.push(m.message.reconsumeTimes);
        return { status: 'SUCCESS' };
      },
    });
    await waitFor('the retry backlog drained', 60_000, async () => {
      const measured = await pollerLag(client, topic, group);
      return measured.total === 0 && retried.length >= MESSAGES ? measured : undefined;
    });
    expect(retried).toEqual(new Array(MESSAGES).fill(1));
  });
});
