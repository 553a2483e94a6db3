/**
 * Our signing client against a real RocketMQ 5.3.3 with ACL 2.0 (authentication and authorization):
 * with the right keys everything works; with a wrong secret, an unknown access key or no signature at
 * all, the exact answers of the name server and the broker per request type.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import { Producer } from '../../../src/client/producer.js';
import { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { type LocalBroker, startLocalBroker } from '../../../src/local-broker/local-broker.js';
import type { AclCredentials } from '../../../src/protocol/acl-signer.js';
import type { HeartbeatData } from '../../../src/protocol/bodies.js';
import { buildPullSysFlag } from '../../../src/protocol/pull-sys-flag.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';
import { buildSubscriptionData } from '../../../src/protocol/subscription.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { waitFor } from '../../support/wait-for.js';

const ADMIN: AclCredentials = { accessKey: 'rocketmq-admin', secretKey: 'acl-test-secret-8f3a' };

let broker: LocalBroker;
let topic: string;

beforeAll(async () => {
  broker = await startLocalBroker({ heapMb: 256, acl: { ...ADMIN } });
  // One topic with a message, made by the admin, for every request below.
  const admin = new RocketMQClient({ nameServerAddresses: broker.namesrvAddr, credentials: ADMIN });
  try {
    topic = uniqueTopic('Acl');
    await admin.admin.createTopic(broker.brokerAddr, { topic, readQueueNums: 1 });
    await waitFor(`route of ${topic}`, 15_000, () => admin.nameServer.queryRoute(topic));
    const producer = new Producer({ client: admin });
    await producer.start();
    await producer.send({ topic, body: 'for the admin only' }, { queueId: 0 });
  } finally {
    await admin.close();
  }
});

afterAll(async () => {
  await broker?.stop();
});

function newClient(credentials: AclCredentials | undefined): RocketMQClient {
  const client = new RocketMQClient({ nameServerAddresses: broker.namesrvAddr, credentials });
  onTestFinished(() => client.close());
  return client;
}

function heartbeatData(client: RocketMQClient, group: string): HeartbeatData {
  return {
    clientID: client.clientId,
    producerDataSet: [],
    consumerDataSet: [
      {
        groupName: group,
        consumeType: 'CONSUME_PASSIVELY',
        messageModel: 'CLUSTERING',
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        subscriptionDataSet: [buildSubscriptionData(topic, '*', 'TAG')],
      },
    ],
  };
}

/** One call per request type the consumer makes, each resolving with what it got. */
function requests(client: RocketMQClient, group: string): Record<string, () => Promise<unknown>> {
  const { brokerAddr, brokerName } = broker;
  return {
    GET_ROUTEINFO_BY_TOPIC: async () => (await client.nameServer.queryRoute(topic)).queueDatas.length,
    HEART_BEAT: () => client.broker.heartbeat(brokerAddr, heartbeatData(client, group)),
    GET_CONSUMER_LIST_BY_GROUP: () => client.broker.getConsumerListByGroup(brokerAddr, group),
    PULL_MESSAGE: async () =>
      (
        await client.broker.pullMessage(brokerAddr, {
          consumerGroup: group,
          topic,
          queueId: 0,
          queueOffset: 0,
          maxMsgNums: 32,
          sysFlag: buildPullSysFlag({ suspend: false, subscription: true }),
          commitOffset: 0,
          suspendTimeoutMillis: 15_000,
          subscription: '*',
          expressionType: 'TAG',
          subVersion: 0,
          bname: brokerName,
        })
      ).status,
    SEND_MESSAGE_V2: async () =>
      (
        await client.broker.sendMessage(
          brokerAddr,
          {
            producerGroup: uniqueGroup('AclProducer'),
            topic,
            defaultTopic: 'TBW102',
            defaultTopicQueueNums: 4,
            queueId: 0,
            sysFlag: 0,
            bornTimestamp: Date.now(),
            flag: 0,
            properties: '',
            bname: brokerName,
          },
          Buffer.from('should not land'),
        )
      ).status,
    QUERY_CONSUMER_OFFSET: () =>
      client.broker.queryConsumerOffset(brokerAddr, {
        consumerGroup: group,
        topic,
        queueId: 0,
        bname: brokerName,
      }),
  };
}

type Outcome =
  | { ok: true; value: unknown }
  | { ok: false; code: number; remark: string | undefined; permanent: boolean; retriable: boolean };

async function outcome(call: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    if (!(error instanceof BrokerError)) throw error;
    return {
      ok: false,
      code: error.code,
      remark: error.remark,
      permanent: error.permanent,
      retriable: error.retriable,
    };
  }
}

describe('ACL 2.0 broker', () => {
  it('with the right keys: route, heartbeat, consumer list, pull, send and offset query all work', async () => {
    const client = newClient(ADMIN);
    const group = uniqueGroup('AclOk');
    const calls = requests(client, group);

    expect(await calls.GET_ROUTEINFO_BY_TOPIC?.()).toBe(1);
    await calls.HEART_BEAT?.();
    expect(await calls.GET_CONSUMER_LIST_BY_GROUP?.()).toEqual([client.clientId]);
    expect(await calls.PULL_MESSAGE?.()).toBe('FOUND');
    expect(await calls.SEND_MESSAGE_V2?.()).toBe('SEND_OK');
    expect(await calls.QUERY_CONSUMER_OFFSET?.()).toBe(0);
  });

  const refusals: ReadonlyArray<{ who: string; credentials: AclCredentials | undefined; remark: string }> = [
    {
      who: 'a wrong secret key',
      credentials: { accessKey: ADMIN.accessKey, secretKey: 'not-the-secret' },
      remark: 'check signature failed.',
    },
    {
      who: 'an unknown access key',
      credentials: { accessKey: 'nobody', secretKey: ADMIN.secretKey },
      remark: 'User:nobody is not found.',
    },
    { who: 'no signature at all', credentials: undefined, remark: 'username cannot be null.' },
  ];

  for (const { who, credentials, remark } of refusals) {
    it(`with ${who}: the namesrv answers, the broker refuses every request with NO_PERMISSION (16) "${remark}"`, async () => {
      const client = newClient(credentials);
      const calls = requests(client, uniqueGroup('AclNo'));

      const seen: Record<string, Outcome> = {};
      for (const [name, call] of Object.entries(calls)) seen[name] = await outcome(call);

      const refused: Outcome = {
        ok: false,
        code: ResponseCode.NO_PERMISSION,
        remark,
        permanent: true,
        retriable: false,
      };
      expect(seen).toEqual({
        // The 5.3.3 name server has no ACL: it answers anyone, signed or not.
        GET_ROUTEINFO_BY_TOPIC: { ok: true, value: 1 },
        HEART_BEAT: refused,
        GET_CONSUMER_LIST_BY_GROUP: refused,
        PULL_MESSAGE: refused,
        SEND_MESSAGE_V2: refused,
        QUERY_CONSUMER_OFFSET: refused,
      });
    });
  }
});
