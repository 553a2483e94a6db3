import { describe, expect, it } from 'vitest';
import { BrokerAdminClient } from '../../../src/client/admin-client.js';
import { BrokerClient } from '../../../src/client/broker-client.js';
import { BrokerError } from '../../../src/client/broker-error.js';
import { RocketMQError } from '../../../src/errors.js';
import { FakeTransport, type SentRequest } from './fake-transport.js';

const ADDR = '127.0.0.1:10911';
const MQ = { topic: 'T', brokerName: 'broker-a', queueId: 0 };

function client(
  respond: (sent: SentRequest) => { code: number; extFields?: Record<string, string>; body?: Buffer },
) {
  const transport = new FakeTransport(respond);
  return { transport, broker: new BrokerClient({ transport }), admin: new BrokerAdminClient({ transport }) };
}

describe('BrokerClient', () => {
  it('sends the heartbeat body with an empty header and a 3 s timeout', async () => {
    const { transport, broker } = client(() => ({ code: 0 }));
    await broker.heartbeat(ADDR, { clientID: 'c', producerDataSet: [], consumerDataSet: [] });
    expect(transport.sent[0]).toMatchObject({ timeoutMs: 3000, request: { code: 34, extFields: {} } });
    expect(JSON.parse(String(transport.sent[0]?.request.body)).clientID).toBe('c');
  });

  it('lists consumers and surfaces "no consumer" as a retriable BrokerError', async () => {
    const { broker } = client(({ request }) =>
      request.extFields?.consumerGroup === 'G'
        ? { code: 0, body: Buffer.from('{"consumerIdList":["a","b"]}') }
        : { code: 1 },
    );
    expect(await broker.getConsumerListByGroup(ADDR, 'G')).toEqual(['a', 'b']);
    await expect(broker.getConsumerListByGroup(ADDR, 'H')).rejects.toMatchObject({
      code: 1,
      retriable: true,
    });
  });

  it('pulls with a 30 s timeout and refuses a timeout not above the suspend time', async () => {
    const { transport, broker } = client(() => ({
      code: 19,
      extFields: { suggestWhichBrokerId: '0', nextBeginOffset: '3', minOffset: '0', maxOffset: '3' },
    }));
    const header = {
      consumerGroup: 'G',
      topic: 'T',
      queueId: 0,
      queueOffset: 3,
      maxMsgNums: 32,
      sysFlag: 2,
      commitOffset: 0,
      suspendTimeoutMillis: 15_000,
      subVersion: 0,
    };
    expect((await broker.pullMessage(ADDR, header)).status).toBe('NO_NEW_MSG');
    expect(transport.sent[0]).toMatchObject({ timeoutMs: 30_000, request: { code: 11 } });
    await expect(broker.pullMessage(ADDR, header, { timeoutMs: 15_000 })).rejects.toBeInstanceOf(
      RocketMQError,
    );
  });

  it('returns the locked subset and unlocks sync or oneway', async () => {
    const { transport, broker } = client(({ request }) =>
      request.code === 41
        ? { code: 0, body: Buffer.from(`{"lockOKMQSet":[${JSON.stringify(MQ)}]}`) }
        : { code: 0 },
    );
    const body = { consumerGroup: 'G', clientId: 'c', mqSet: [MQ, { ...MQ, queueId: 1 }] };
    expect(await broker.lockBatchMQ(ADDR, body)).toEqual([MQ]);
    await broker.unlockBatchMQ(ADDR, body);
    await broker.unlockBatchMQOneway(ADDR, body);
    expect(transport.sent.map((s) => [s.request.code, s.oneway, s.timeoutMs])).toEqual([
      [41, false, 1000],
      [42, false, 1000],
      [42, true, undefined],
    ]);
  });

  it('reads offsets and maps QUERY_NOT_FOUND to undefined', async () => {
    const { transport, broker } = client(({ request }) => {
      if (request.code === 14)
        return request.extFields?.queueId === '0' ? { code: 22 } : { code: 0, extFields: { offset: '7' } };
      return { code: 0, extFields: { offset: String(request.code) } };
    });
    expect(await broker.getMaxOffset(ADDR, { topic: 'T', queueId: 0 })).toBe(30);
    expect(transport.sent[0]?.request.extFields).toEqual({ committed: 'true', topic: 'T', queueId: '0' });
    expect(await broker.getMinOffset(ADDR, { topic: 'T', queueId: 0 })).toBe(31);
    expect(await broker.searchOffsetByTimestamp(ADDR, { topic: 'T', queueId: 0, timestamp: 1 })).toBe(29);
    const query = { consumerGroup: 'G', topic: 'T', queueId: 0, setZeroIfNotFound: false };
    expect(await broker.queryConsumerOffset(ADDR, query)).toBeUndefined();
    expect(await broker.queryConsumerOffset(ADDR, { ...query, queueId: 1 })).toBe(7);
    await broker.updateConsumerOffset(ADDR, { consumerGroup: 'G', topic: 'T', queueId: 0, commitOffset: 5 });
    await broker.updateConsumerOffsetOneway(ADDR, {
      consumerGroup: 'G',
      topic: 'T',
      queueId: 0,
      commitOffset: 6,
    });
    expect(
      transport.sent.slice(-2).map((s) => [s.request.code, s.oneway, s.request.extFields?.commitOffset]),
    ).toEqual([
      [15, false, '5'],
      [15, true, '6'],
    ]);
  });

  it('sends back with a 5 s timeout and throws on failure', async () => {
    const { transport, broker } = client(() => ({ code: 1 }));
    const error = await broker
      .consumerSendMsgBack(ADDR, { offset: 123, group: 'G', delayLevel: 1, originTopic: 'T' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerError);
    expect(transport.sent[0]).toMatchObject({
      timeoutMs: 5000,
      request: { code: 36, extFields: { offset: '123', group: 'G', delayLevel: '1', originTopic: 'T' } },
    });
  });

  it('sends single (310) and batch (320, m=true) messages and maps the status', async () => {
    const { transport, broker } = client(({ request }) => ({
      code: request.code === 310 ? 0 : 10,
      extFields: { msgId: 'OFFSETID', queueId: '1', queueOffset: '4' },
    }));
    const header = {
      producerGroup: 'P',
      topic: 'T',
      defaultTopic: 'TBW102',
      defaultTopicQueueNums: 4,
      queueId: 1,
      sysFlag: 0,
      bornTimestamp: 1,
      flag: 0,
    };
    expect(await broker.sendMessage(ADDR, header, Buffer.from('x'))).toEqual({
      status: 'SEND_OK',
      offsetMsgId: 'OFFSETID',
      queueId: 1,
      queueOffset: 4,
    });
    expect((await broker.sendBatchMessage(ADDR, header, Buffer.from('y'))).status).toBe('FLUSH_DISK_TIMEOUT');
    expect(transport.sent[0]?.request.extFields?.m).toBeUndefined();
    expect(transport.sent[1]?.request).toMatchObject({ code: 320, extFields: { b: 'T', m: 'true' } });
  });
});

describe('BrokerAdminClient', () => {
  it('creates topics with mqadmin defaults and subscription groups with a JSON body', async () => {
    const { transport, admin } = client(() => ({ code: 0 }));
    await admin.createTopic(ADDR, { topic: 'T', readQueueNums: 3 });
    await admin.createSubscriptionGroup(ADDR, { groupName: 'G' });
    expect(transport.sent[0]?.request).toMatchObject({
      code: 17,
      extFields: {
        topic: 'T',
        defaultTopic: 'TBW102',
        readQueueNums: '3',
        writeQueueNums: '3',
        perm: '6',
        topicFilterType: 'SINGLE_TAG',
        order: 'false',
      },
    });
    expect(transport.sent[1]?.request.code).toBe(200);
    expect(JSON.parse(String(transport.sent[1]?.request.body)).groupName).toBe('G');
  });
});
