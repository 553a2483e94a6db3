import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { userProperties } from '../../../src/protocol/message.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, pullMessages } from './helpers.js';

async function pulledOriginal() {
  const client = newClient();
  onTestFinished(() => client.close());
  const topic = uniqueTopic('sendback');
  const group = uniqueGroup('sendback');
  await createTopic(client, topic, 1);
  const producer = new Producer({ client });
  await producer.start();
  const sent = await producer.send(
    { topic, body: 'retry me ✓', tags: 'TagR', keys: ['rk'], properties: { p: 'v' } },
    { queueId: 0 },
  );
  const [original] = await pullMessages(client, { group, topic, queueId: 0, count: 1 });
  if (original === undefined) throw new Error('original message not pulled');
  expect(original.msgId).toBe(sent.msgId);
  return { client, topic, group, original };
}

describe('CONSUMER_SEND_MSG_BACK', () => {
  it('puts the message into %RETRY%<group> with reconsumeTimes + 1 after its delay', async () => {
    const { client, topic, group, original } = await pulledOriginal();
    await client.broker.consumerSendMsgBack(testBroker().brokerAddr, {
      offset: original.physicalOffset,
      group,
      delayLevel: 1,
      originMsgId: original.msgId,
      originTopic: topic,
      unitMode: false,
      maxReconsumeTimes: 16,
      bname: testBroker().brokerName,
    });
    const retryTopic = `%RETRY%${group}`;
    const [retried] = await pullMessages(client, {
      group,
      topic: retryTopic,
      queueId: 0,
      count: 1,
      timeoutMs: 20_000,
    });
    expect(retried).toBeDefined();
    if (retried === undefined) return;
    expect(retried.topic).toBe(retryTopic);
    expect(retried.reconsumeTimes).toBe(original.reconsumeTimes + 1);
    expect(retried.properties.RETRY_TOPIC).toBe(topic);
    expect(retried.msgId).toBe(original.msgId);
    // The 5.3.3 broker ignores the header's originMsgId: it stores the looked-up message's offset msg id.
    expect(retried.properties.ORIGIN_MESSAGE_ID).toBe(original.offsetMsgId);
    expect(retried.tags).toBe('TagR');
    expect(retried.keys).toEqual(['rk']);
    expect(userProperties(retried.properties)).toEqual({ p: 'v' });
    expect(retried.body.toString()).toBe('retry me ✓');
    expect(retried.storeTimestamp - original.storeTimestamp).toBeGreaterThanOrEqual(900);
  });

  it('with delayLevel -1 puts the message straight into %DLQ%<group>', async () => {
    const { client, topic, group, original } = await pulledOriginal();
    await client.broker.consumerSendMsgBack(testBroker().brokerAddr, {
      offset: original.physicalOffset,
      group,
      delayLevel: -1,
      originMsgId: original.msgId,
      originTopic: topic,
      maxReconsumeTimes: 16,
    });
    const dlqTopic = `%DLQ%${group}`;
    const [dead] = await pullMessages(client, {
      group,
      topic: dlqTopic,
      queueId: 0,
      count: 1,
      timeoutMs: 10_000,
    });
    expect(dead).toBeDefined();
    if (dead === undefined) return;
    expect(dead.topic).toBe(dlqTopic);
    expect(dead.msgId).toBe(original.msgId);
    expect(dead.properties.RETRY_TOPIC).toBe(topic);
    expect(dead.reconsumeTimes).toBe(original.reconsumeTimes + 1);
    expect(dead.body.toString()).toBe('retry me ✓');
  });

  it('fails with a BrokerError for an offset that holds no message', async () => {
    const { client, group } = await pulledOriginal();
    await expect(
      client.broker.consumerSendMsgBack(testBroker().brokerAddr, { offset: 2 ** 40, group, delayLevel: 1 }),
    ).rejects.toMatchObject({ code: 1, requestCode: 36 });
  });
});
