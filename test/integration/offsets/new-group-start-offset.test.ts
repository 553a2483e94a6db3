/**
 * A new group's start against the real broker of every version (docs/protocol.md, "Broker versions"):
 * a 4.x broker answers QUERY_CONSUMER_OFFSET with 0 for a group that never committed on a young queue,
 * 5.x answers QUERY_NOT_FOUND; the start offset is the same on both, and a committed 0 is kept.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { StartOffsetResolver } from '../../../src/consumer/rebalance/start-offset.js';
import type { BrokerVersionName } from '../../../src/local-broker/broker-version.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import { committedOffsetOf } from '../../../src/protocol/consumer-offset-table.js';
import { isVersionCodeBefore5, MQVersionCode } from '../../../src/protocol/mq-version.js';
import { componentLogger, rootLogger } from '../../../src/util/logger.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import {
  createTopic,
  Ledger,
  newClient,
  newProducer,
  newRuntime,
  produce,
  recordingListener,
  waitFor,
} from '../consumer/helpers.js';

/** The version code each test broker puts in its responses (`MQVersion.CURRENT_VERSION`). */
const VERSION_CODES: Record<BrokerVersionName, number> = {
  '5.3.3': MQVersionCode.V5_3_3,
  '5.5.1': MQVersionCode.V5_5_1,
  '4.9.7': MQVersionCode.V4_9_7,
  // brokerAddr is the broker itself behind the proxy.
  '5.3.3-proxy': MQVersionCode.V5_3_3,
};

async function youngTopic(messages: number) {
  const client = newClient();
  onTestFinished(() => client.close());
  const topic = uniqueTopic('NewGroup');
  await createTopic(client, topic, 1);
  await produce(await newProducer(client), topic, messages, { message: (i) => ({ body: `old${i}` }) });
  return { client, topic };
}

describe('a new group on a young queue', () => {
  it('starts LATEST at the end on every version, and a committed 0 stays 0', async () => {
    const { brokerAddr, brokerName, version } = testBroker();
    const { client, topic } = await youngTopic(3);
    const queue = { topic, brokerName, queueId: 0 };
    const fresh = uniqueGroup('Fresh');
    const committedZero = uniqueGroup('Zero');
    await client.admin.createSubscriptionGroup(brokerAddr, { groupName: committedZero });
    await client.broker.updateConsumerOffset(brokerAddr, {
      consumerGroup: committedZero,
      topic,
      queueId: 0,
      commitOffset: 0,
    });

    const query = (consumerGroup: string) =>
      client.broker.queryConsumerOffsetAnswer(brokerAddr, {
        consumerGroup,
        topic,
        queueId: 0,
        setZeroIfNotFound: false,
      });
    const freshAnswer = await query(fresh);
    expect(freshAnswer.brokerVersion).toBe(VERSION_CODES[version]);
    // The wire difference itself: a 4.x broker cannot say "not found" here.
    expect(freshAnswer.offset).toBe(isVersionCodeBefore5(freshAnswer.brokerVersion) ? 0 : undefined);
    expect((await query(committedZero)).offset).toBe(0);

    const table = await client.broker.getAllConsumerOffset(brokerAddr);
    expect(committedOffsetOf(table, committedZero, topic, 0)).toBe(0);
    expect(committedOffsetOf(table, fresh, topic, 0)).toBeUndefined();

    const startOf = (consumerGroup: string) =>
      new StartOffsetResolver({
        offsetStore: new MemoryOffsetStore(),
        broker: client.broker,
        clientId: client.clientId,
        consumerGroup,
        brokerOffsets: true,
        handOverTimeoutMs: 1000,
        log: componentLogger('test.start-offset', rootLogger),
        masterAddress: () => brokerAddr,
        startingPosition: 'LATEST',
        startingPositionTimestamp: undefined,
        retryTopic: `%RETRY%${consumerGroup}`,
      }).startOffset(queue);
    expect(await startOf(fresh)).toBe(3);
    expect(await startOf(committedZero)).toBe(0);
  });

  it('a LATEST runtime of a new group receives only what is sent after it started', async () => {
    const { client, topic } = await youngTopic(4);
    const producer = await newProducer(client);
    const ledger = new Ledger();
    const { runtime } = newRuntime(
      { topic, consumerGroup: uniqueGroup('Latest'), startingPosition: 'LATEST' },
      recordingListener(ledger),
    );
    await runtime.start();
    const sent = await produce(producer, topic, 2, { message: (i) => ({ body: `late${i}` }) });
    await waitFor('the late messages delivered and the buffers empty', 15_000, async () => {
      if (ledger.missing(sent).length > 0) return undefined;
      const status = await runtime.status();
      const buffered = status.queues.reduce((sum, q) => sum + q.cachedMessageCount, 0);
      return buffered === 0 && status.inFlightBatches === 0 ? true : undefined;
    });
    expect(ledger.deliveries.map((d) => d.message.body.toString()).sort()).toEqual(['late0', 'late1']);
  });
});
