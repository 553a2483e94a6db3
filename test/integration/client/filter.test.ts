import { describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { buildSubscriptionData } from '../../../src/protocol/subscription.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { createTopic, newClient, pullMessages } from './helpers.js';

const TAGS = ['TagA', 'TagB', 'TagC', 'TagA', 'TagB', 'TagA'];

async function setup() {
  const client = newClient();
  onTestFinished(() => client.close());
  const topic = uniqueTopic('filter');
  await createTopic(client, topic, 1);
  const producer = new Producer({ client });
  await producer.start();
  for (const [i, tags] of TAGS.entries()) {
    await producer.send({ topic, body: `m${i}`, tags, properties: { n: String(i) } }, { queueId: 0 });
  }
  return { client, topic };
}

describe('filtered pulls', () => {
  it('a TAG expression sent with the SUBSCRIPTION bit returns only matching tags', async () => {
    const { client, topic } = await setup();
    const messages = await pullMessages(client, {
      group: uniqueGroup('filter'),
      topic,
      queueId: 0,
      count: 4,
      subscription: 'TagA || TagC',
    });
    expect(messages.map((m) => m.tags)).toEqual(['TagA', 'TagC', 'TagA', 'TagA']);
    expect(messages.map((m) => m.body.toString())).toEqual(['m0', 'm2', 'm3', 'm5']);
  });

  it('a TAG subscription registered by heartbeat filters pulls without the SUBSCRIPTION bit', async () => {
    const { client, topic } = await setup();
    const group = uniqueGroup('filterhb');
    const subscription = buildSubscriptionData(topic, 'TagB', 'TAG');
    await client.broker.heartbeat(testBroker().brokerAddr, {
      clientID: client.clientId,
      producerDataSet: [],
      consumerDataSet: [
        {
          groupName: group,
          consumeType: 'CONSUME_PASSIVELY',
          messageModel: 'CLUSTERING',
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          subscriptionDataSet: [subscription, buildSubscriptionData(`%RETRY%${group}`, '*', 'TAG')],
        },
      ],
    });
    const messages = await pullMessages(client, {
      group,
      topic,
      queueId: 0,
      count: 2,
      subscription: null,
      subVersion: subscription.subVersion,
    });
    expect(messages.map((m) => [m.tags, m.body.toString()])).toEqual([
      ['TagB', 'm1'],
      ['TagB', 'm4'],
    ]);
  });

  it('an SQL92 expression filters on user properties (broker has enablePropertyFilter=true)', async () => {
    const { client, topic } = await setup();
    const messages = await pullMessages(client, {
      group: uniqueGroup('filtersql'),
      topic,
      queueId: 0,
      count: 3,
      subscription: 'n >= 3 AND TAGS IS NOT NULL',
      expressionType: 'SQL92',
    });
    expect(messages.map((m) => m.properties.n)).toEqual(['3', '4', '5']);
  });
});
