import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { compareMessageQueues } from '../../../src/protocol/message-queue.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, sleep } from './helpers.js';

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
    let lockedByB: unknown[] = [];
    for (let i = 0; i < 20 && lockedByB.length < 3; i++) {
      lockedByB = await b.broker.lockBatchMQ(brokerAddr, {
        consumerGroup: group,
        clientId: b.clientId,
        mqSet,
      });
      if (lockedByB.length < 3) await sleep(50);
    }
    expect(lockedByB).toHaveLength(3);
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
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      await producer.send({ topic, body: `m${i}` }, { queueId: 0 });
      times.push(Date.now());
      await sleep(20);
    }
    expect(await client.broker.getMaxOffset(brokerAddr, queue)).toBe(5);
    expect(await client.broker.getMinOffset(brokerAddr, queue)).toBe(0);
    // After the 3rd send was acknowledged, the first message stored later is offset 3.
    const third = times[2] ?? 0;
    expect(await client.broker.searchOffsetByTimestamp(brokerAddr, { ...queue, timestamp: third + 1 })).toBe(
      3,
    );
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
    let stored: number | undefined;
    for (let i = 0; i < 20 && stored !== 4; i++) {
      stored = await client.broker.queryConsumerOffset(brokerAddr, query);
      if (stored !== 4) await sleep(50);
    }
    expect(stored).toBe(4);
  });
});
