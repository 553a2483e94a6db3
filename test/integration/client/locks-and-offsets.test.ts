import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
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
    // After the 3rd message's store time, the first message stored is offset 3.
    const third = times[2] ?? 0;
    expect(await client.broker.searchOffsetByTimestamp(brokerAddr, { ...queue, timestamp: third })).toBe(3);
    expect(await client.broker.searchOffsetByTimestamp(brokerAddr, { ...queue, timestamp: 0 })).toBe(0);
    expect(
      await client.broker.searchOffsetByTimestamp(brokerAddr, { ...queue, timestamp: Date.now() + 60_000 }),
    ).toBe(5);

    const query = { consumerGroup: group, topic, queueId: 0, setZeroIfNotFound: false, bname: brokerName };
    expect(await client.broker.queryConsumerOffset(brokerAddr, query)).toBeUndefined();
    // UPDATE_CONSUMER_OFFSET does not auto-create the group (autoCreateSubscriptionGroup covers pulls and heartbeats).
    await expect(
      client.broker.updateConsumerOffset(brokerAddr, {
        consumerGroup: group,
        topic,
        queueId: 0,
        commitOffset: 3,
      }),
    ).rejects.toMatchObject({ code: 26, needsRebalance: true });
    await client.admin.createSubscriptionGroup(brokerAddr, { groupName: group });
    await client.broker.updateConsumerOffset(brokerAddr, {
      consumerGroup: group,
      topic,
      queueId: 0,
      commitOffset: 3,
    });
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
});
