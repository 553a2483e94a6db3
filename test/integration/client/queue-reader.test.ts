/**
 * QueueReader against the real broker: reads a queue from any offset, reads the message at an offset,
 * reports the queue's end and an illegal offset with the broker's suggestion, and commits nothing for
 * the group it names.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { QueueReader } from '../../../src/client/queue-reader.js';
import { committedOffsetOf } from '../../../src/protocol/consumer-offset-table.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, waitFor } from './helpers.js';

describe('QueueReader', () => {
  it('reads a queue from an offset without committing anything', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('Read');
    const group = uniqueGroup('Reader');
    await createTopic(client, topic, 2);
    const producer = new Producer({ client });
    await producer.start();
    for (let i = 0; i < 5; i++) {
      await producer.send({ topic, body: `m${i}`, tags: 'T', keys: [`k${i}`] }, { queueId: 1 });
    }

    const reader = new QueueReader({ client, consumerGroup: group });
    const queues = await reader.queues(topic);
    expect(queues.map((q) => [q.queue.queueId, q.readable])).toEqual([
      [0, true],
      [1, true],
    ]);
    const queue = { topic, brokerName: testBroker().brokerName, queueId: 1 };

    const first = await reader.read(queue, 1, { maxMessages: 2 });
    expect(first.status).toBe('FOUND');
    expect(first.messages.map((m) => m.body.toString())).toEqual(['m1', 'm2']);
    expect(first.messages.map((m) => m.queueOffset)).toEqual([1, 2]);
    expect(first).toMatchObject({ nextOffset: 3, minOffset: 0, maxOffset: 5 });

    const atThree = await reader.readAt(queue, 3);
    expect(atThree?.body.toString()).toBe('m3');
    expect(atThree?.keys).toEqual(['k3']);

    const end = await reader.read(queue, 5);
    expect(end).toMatchObject({ status: 'NO_NEW_MSG', messages: [], nextOffset: 5, maxOffset: 5 });
    expect(await reader.readAt(queue, 5)).toBeUndefined();

    const beyond = await reader.read(queue, 50);
    expect(beyond.status).toBe('OFFSET_ILLEGAL');
    expect(beyond.nextOffset).toBe(5);

    const empty = await reader.read({ ...queue, queueId: 0 }, 0);
    expect(empty).toMatchObject({ status: 'NO_NEW_MSG', maxOffset: 0 });

    // Nothing committed: the broker's own offset table has no entry for the reading group on either queue.
    // (Asked through GET_ALL_CONSUMER_OFFSET, not QUERY_CONSUMER_OFFSET: a 4.x broker answers the latter
    // with 0 for a group that never committed, docs/broker-versions.md.)
    // A control group commits on the same queue, so the table is shown to carry commits.
    const { brokerAddr } = testBroker();
    const control = uniqueGroup('ReaderControl');
    await client.admin.createSubscriptionGroup(brokerAddr, { groupName: control });
    await client.broker.updateConsumerOffset(brokerAddr, {
      consumerGroup: control,
      topic,
      queueId: 1,
      commitOffset: 2,
    });
    const table = await client.broker.getAllConsumerOffset(brokerAddr);
    expect(committedOffsetOf(table, control, topic, 1)).toBe(2);
    for (const queueId of [0, 1]) {
      expect(committedOffsetOf(table, group, topic, queueId)).toBeUndefined();
    }
  });

  it('reports a write-only topic (perm 2, how 4.x brokers created DLQs) as unreadable, and the broker refuses the pull', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const topic = uniqueTopic('WriteOnly');
    await client.admin.createTopic(testBroker().brokerAddr, { topic, readQueueNums: 1, perm: 2 });
    const reader = new QueueReader({ client, consumerGroup: uniqueGroup('Reader') });
    const queues = await waitFor('route of the write-only topic', 15_000, async () => {
      const found = await reader.queues(topic);
      return found.length === 1 ? found : undefined;
    });
    expect(queues[0]?.readable).toBe(false);
    const queue = { topic, brokerName: testBroker().brokerName, queueId: 0 };
    await expect(reader.read(queue, 0)).rejects.toMatchObject({
      code: 16,
      permanent: true,
      retriable: false,
    });
  });

  it('says TOPIC_NOT_EXIST for a topic no name server knows', async () => {
    const client = newClient();
    onTestFinished(() => client.close());
    const reader = new QueueReader({ client, consumerGroup: uniqueGroup() });
    await expect(reader.queues(uniqueTopic('Missing'))).rejects.toMatchObject({
      code: 17,
      retriable: false,
    });
  });
});
