import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { QueueReader } from '../../../src/client/queue-reader.js';
import { selectedBrokerVersion } from '../../../src/local-broker/broker-version.js';
import { compareMessageQueues } from '../../../src/protocol/message-queue.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { storeTimeBoundary } from '../../support/store-time-boundary.js';
import { createTopic, newClient, waitFor } from './helpers.js';

describe('LOCK_BATCH_MQ / UNLOCK_BATCH_MQ', () => {
  it('a queue locked by client A cannot be locked by client B until A unlocks it', async () => {
    const a = newClient();
    const b = newClient();
    onTestFinished(() => Promise.all([a.close(), b.close()]).then(() => undefined));
    expect(a.clientId).not.toBe(b.clientId);
    const topic = uniqueTopic('lock');
    const group = uniqueGroup('lock');
    await createTopic(a, topic, 3);
    const { brokerAddr, brokerName } = testBroker();
    const mqSet = [0, 1, 2].map((queueId) => ({ topic, brokerName, queueId }));

    const lockedByA = await a.broker.lockBatchMQ(brokerAddr, {
      consumerGroup: group,
      clientId: a.clientId,
      mqSet,
    });
    expect(lockedByA.sort(compareMessageQueues)).toEqual(mqSet);
    expect(
      await a.broker.lockBatchMQ(brokerAddr, { consumerGroup: group, clientId: a.clientId, mqSet }),
    ).toHaveLength(3);
    expect(
      await b.broker.lockBatchMQ(brokerAddr, { consumerGroup: group, clientId: b.clientId, mqSet }),
    ).toEqual([]);

    await a.broker.unlockBatchMQ(brokerAddr, {
      consumerGroup: group,
      clientId: a.clientId,
      mqSet: mqSet.slice(0, 1),
    });
    expect(
      await b.broker.lockBatchMQ(brokerAddr, { consumerGroup: group, clientId: b.clientId, mqSet }),
    ).toEqual(mqSet.slice(0, 1));

    await a.broker.unlockBatchMQOneway(brokerAddr, { consumerGroup: group, clientId: a.clientId, mqSet });
    // A oneway request has no answer to await: B's lock succeeding is the sign that it was applied.
    const lockedByB = await waitFor('B to lock every queue after the oneway unlock', 5_000, async () => {
      const locked = await b.broker.lockBatchMQ(brokerAddr, {
        consumerGroup: group,
        clientId: b.clientId,
        mqSet,
      });
      return locked.length === 3 ? locked : undefined;
    });
    expect(lockedByB.sort(compareMessageQueues)).toEqual(mqSet);
  });
});

/** True when the test broker is a 4.x release (ROCKETMQ_LAMBDA_BROKER_VERSION=4.9.7). */
const brokerBefore5 = selectedBrokerVersion().major === 4;

describe('offsets', () => {
  it('reports queue bounds, searches by time and round-trips consumer offsets', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('offsets');
    const group = uniqueGroup('offsets');
    await createTopic(client, topic, 1);
    const { brokerAddr, brokerName } = testBroker();
    const queue = { topic, queueId: 0, bname: brokerName };

    expect(await client.broker.getMaxOffset(brokerAddr, queue)).toBe(0);
    expect(await client.broker.getMinOffset(brokerAddr, queue)).toBe(0);

    const producer = new Producer({ client });
    await producer.start();
    // times[i]: after message i's store time, at or before message i + 1's.
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      await producer.send({ topic, body: `m${i}` }, { queueId: 0 });
      times.push(await storeTimeBoundary());
    }
    expect(await client.broker.getMaxOffset(brokerAddr, queue)).toBe(5);
    expect(await client.broker.getMinOffset(brokerAddr, queue)).toBe(0);
    // After the 3rd message's store time, the first message stored is offset 3: our answer on every version.
    const third = times[2] ?? 0;
    const firstAtOrAfter = (timestamp: number) =>
      client.broker.firstOffsetAtOrAfter(brokerAddr, { ...queue, consumerGroup: group, timestamp });
    expect(await firstAtOrAfter(third)).toBe(3);
    expect(await firstAtOrAfter(0)).toBe(0);
    expect(await firstAtOrAfter(Date.now() + 60_000)).toBe(5);
    // The broker's own answer. 5.x: the first message stored at or after the time (LOWER), the max offset
    // when all are older. 4.9.7: the message whose store time is nearest, on either side (docs/protocol.md,
    // "Broker versions"): `third` is 1 ms after message 2's store time, so message 2 unless message 3 was
    // stored within 1 ms after `third`; for a time after every message, the last message.
    const search = (timestamp: number) =>
      client.broker.searchOffsetByTimestamp(brokerAddr, { ...queue, timestamp });
    if (brokerBefore5) {
      expect([2, 3]).toContain(await search(third));
      expect(await search(Date.now() + 60_000)).toBe(4);
    } else {
      expect(await search(third)).toBe(3);
      expect(await search(Date.now() + 60_000)).toBe(5);
    }
    expect(await search(0)).toBe(0);

    const query = { consumerGroup: group, topic, queueId: 0, setZeroIfNotFound: false, bname: brokerName };
    const update = { consumerGroup: group, topic, queueId: 0, commitOffset: 3 };
    if (brokerBefore5) {
      // 4.9.7 ignores setZeroIfNotFound (5.0 added it): a group without an offset on a queue that still
      // starts at 0 reads 0 (broker-committed-offset.ts). Its UPDATE_CONSUMER_OFFSET stores the offset
      // of any group, known or not.
      expect(await client.broker.queryConsumerOffset(brokerAddr, query)).toBe(0);
      await client.broker.updateConsumerOffset(brokerAddr, update);
      expect(await client.broker.queryConsumerOffset(brokerAddr, query)).toBe(3);
    } else {
      expect(await client.broker.queryConsumerOffset(brokerAddr, query)).toBeUndefined();
      // UPDATE_CONSUMER_OFFSET does not auto-create the group (autoCreateSubscriptionGroup covers pulls and heartbeats).
      await expect(client.broker.updateConsumerOffset(brokerAddr, update)).rejects.toMatchObject({
        code: 26,
        needsRebalance: true,
      });
    }
    await client.admin.createSubscriptionGroup(brokerAddr, { groupName: group });
    await client.broker.updateConsumerOffset(brokerAddr, update);
    expect(await client.broker.queryConsumerOffset(brokerAddr, query)).toBe(3);
    await client.broker.updateConsumerOffsetOneway(brokerAddr, {
      consumerGroup: group,
      topic,
      queueId: 0,
      commitOffset: 4,
    });
    // Oneway: the stored offset becoming 4 is the only sign that the update was applied.
    await waitFor('the oneway offset update applied', 5_000, async () =>
      (await client.broker.queryConsumerOffset(brokerAddr, query)) === 4 ? true : undefined,
    );
    expect(await client.broker.queryConsumerOffset(brokerAddr, query)).toBe(4);
  });

  it('searches to the first of the messages of a batch, which share one store time, on every version', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('sametime');
    const group = uniqueGroup('sametime');
    await createTopic(client, topic, 1);
    const { brokerAddr, brokerName } = testBroker();
    const queue = { topic, queueId: 0, bname: brokerName };
    const producer = new Producer({ client });
    await producer.start();
    for (let i = 0; i < 5; i++) await producer.send({ topic, body: `m${i}` }, { queueId: 0 });
    await storeTimeBoundary();
    const batch = ['b0', 'b1', 'b2', 'b3'].map((body) => ({ topic, body }));
    await producer.sendBatch(batch, { queueId: 0 });
    // The consume queue is written behind the commit log: search once it holds the batch.
    await waitFor('the batch in the consume queue', 5_000, async () =>
      (await client.broker.getMaxOffset(brokerAddr, queue)) === 9 ? true : undefined,
    );
    const reader = new QueueReader({ client, consumerGroup: uniqueGroup('sametime-reader') });
    const read = await reader.read({ topic, brokerName, queueId: 0 }, 0, { maxMessages: 9 });
    expect(read.messages.map((m) => m.queueOffset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const storeTimes = read.messages.map((m) => m.storeTimestamp);
    const batchTime = storeTimes[5] ?? 0;
    // The broker stamps a batch once: four messages of one millisecond, after every single message.
    expect(storeTimes.slice(5)).toEqual([batchTime, batchTime, batchTime, batchTime]);
    expect(Math.max(...storeTimes.slice(0, 5))).toBeLessThan(batchTime);

    const firstAtOrAfter = (timestamp: number) =>
      client.broker.firstOffsetAtOrAfter(brokerAddr, { ...queue, consumerGroup: group, timestamp });
    expect(await firstAtOrAfter(batchTime)).toBe(5);
    expect(await firstAtOrAfter(batchTime + 1)).toBe(9);
    // 4.9.7's binary search over the 9 entries probes entry 4 (older), then entry 6, whose store time
    // equals the timestamp, and answers it: two messages of the batch later than 5.x's first one.
    const searched = await client.broker.searchOffsetByTimestamp(brokerAddr, {
      ...queue,
      timestamp: batchTime,
    });
    expect(searched).toBe(brokerBefore5 ? 6 : 5);
  });
});
