import { describe, expect, it, onTestFinished } from 'vitest';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { buildSubscriptionData } from '../../../src/protocol/subscription.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, waitFor } from './helpers.js';

function heartbeat(client: RocketMQClient, group: string, topic: string) {
  return client.broker.heartbeat(testBroker().brokerAddr, {
    clientID: client.clientId,
    producerDataSet: [],
    consumerDataSet: [
      {
        groupName: group,
        consumeType: 'CONSUME_PASSIVELY',
        messageModel: 'CLUSTERING',
        consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
        subscriptionDataSet: [
          buildSubscriptionData(topic, '*', 'TAG', 1),
          buildSubscriptionData(`%RETRY%${group}`, '*', 'TAG', 1),
        ],
      },
    ],
  });
}

describe('group membership', () => {
  it('heartbeat lists the client, NOTIFY_CONSUMER_IDS_CHANGED reaches members, unregister removes it', async () => {
    const a = newClient();
    const b = newClient();
    onTestFinished(() => Promise.all([a.close(), b.close()]).then(() => undefined));
    const topic = uniqueTopic('members');
    const group = uniqueGroup('members');
    await createTopic(a, topic, 2);
    const { brokerAddr } = testBroker();

    await heartbeat(a, group, topic);
    expect(await a.broker.getConsumerListByGroup(brokerAddr, group)).toEqual([a.clientId]);

    const notified: string[] = [];
    a.requestHandler.onConsumerIdsChanged((changed) => notified.push(changed));
    await heartbeat(b, group, topic);
    await waitFor('NOTIFY_CONSUMER_IDS_CHANGED at client A', 5000, async () =>
      notified.length > 0 ? true : undefined,
    );
    expect(notified[0]).toBe(group);
    expect((await a.broker.getConsumerListByGroup(brokerAddr, group)).sort()).toEqual(
      [a.clientId, b.clientId].sort(),
    );

    const before = notified.length;
    await b.broker.unregisterClient(brokerAddr, { clientID: b.clientId, consumerGroup: group });
    expect(await a.broker.getConsumerListByGroup(brokerAddr, group)).toEqual([a.clientId]);
    await waitFor('notify after unregister', 5000, async () => (notified.length > before ? true : undefined));

    await a.broker.unregisterClient(brokerAddr, { clientID: a.clientId, consumerGroup: group });
    await expect(a.broker.getConsumerListByGroup(brokerAddr, group)).rejects.toMatchObject({
      code: 1,
      retriable: true,
    });
  });

  it('GET_CONSUMER_RUNNING_INFO sent to the broker is forwarded to our client and answered by its provider', async () => {
    const consumer = newClient();
    const admin = newClient();
    onTestFinished(() => Promise.all([consumer.close(), admin.close()]).then(() => undefined));
    const topic = uniqueTopic('running');
    const group = uniqueGroup('running');
    await createTopic(consumer, topic, 1);
    const { brokerAddr, brokerName } = testBroker();
    consumer.requestHandler.setRunningInfoProvider(group, ({ clientId }) => ({
      properties: { PROP_CONSUME_TYPE: 'CONSUME_PASSIVELY', PROP_CLIENT_ID: clientId },
      subscriptionSet: [buildSubscriptionData(topic, '*', 'TAG', 1)],
      mqTable: [{ queue: { topic, brokerName, queueId: 0 }, info: { commitOffset: 42, locked: false } }],
    }));
    await heartbeat(consumer, group, topic);

    const info = await admin.admin.getConsumerRunningInfo(brokerAddr, {
      consumerGroup: group,
      clientId: consumer.clientId,
      jstackEnable: false,
    });
    expect(info.properties).toEqual({
      PROP_CONSUME_TYPE: 'CONSUME_PASSIVELY',
      PROP_CLIENT_ID: consumer.clientId,
    });
    expect(info.mqTable).toEqual([
      { queue: { topic, brokerName, queueId: 0 }, info: { commitOffset: 42, locked: false } },
    ]);

    const otherGroup = uniqueGroup('running-other');
    await heartbeat(consumer, otherGroup, topic);
    await expect(
      admin.admin.getConsumerRunningInfo(brokerAddr, {
        consumerGroup: otherGroup,
        clientId: consumer.clientId,
      }),
    ).rejects.toMatchObject({
      code: 1,
      remark: `The Consumer Group <${otherGroup}> not exist in this consumer`,
    });
  });
});
