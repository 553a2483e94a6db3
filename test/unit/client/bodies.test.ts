import { describe, expect, it } from 'vitest';
import {
  encodeCheckClientRequestBody,
  encodeConsumerRunningInfo,
  encodeHeartbeatData,
  encodeLockBatchRequestBody,
  encodeSubscriptionGroupConfig,
  parseConsumerListBody,
  parseConsumerRunningInfo,
  parseLockBatchResponseBody,
} from '../../../src/protocol/bodies.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { buildSubscriptionData } from '../../../src/protocol/subscription.js';

describe('HeartbeatData', () => {
  it('encodes the Java field names and defaults (fixture)', () => {
    const body = encodeHeartbeatData({
      clientID: '10.0.0.1@12345#abc',
      producerDataSet: [{ groupName: 'CLIENT_INNER_PRODUCER' }],
      consumerDataSet: [
        {
          groupName: 'G',
          consumeType: 'CONSUME_PASSIVELY',
          messageModel: 'CLUSTERING',
          consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
          subscriptionDataSet: [
            {
              topic: 'T',
              subString: 'TagA || TagB',
              tagsSet: ['TagA', 'TagB'],
              codeSet: [2598919, 2598920],
              subVersion: 1700000000000,
              expressionType: 'TAG',
            },
          ],
        },
      ],
    });
    expect(body.toString('utf8')).toBe(
      '{"clientID":"10.0.0.1@12345#abc","consumerDataSet":[{"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET",' +
        '"consumeType":"CONSUME_PASSIVELY","groupName":"G","messageModel":"CLUSTERING","subscriptionDataSet":' +
        '[{"classFilterMode":false,"codeSet":[2598919,2598920],"expressionType":"TAG","subString":"TagA || TagB",' +
        '"subVersion":1700000000000,"tagsSet":["TagA","TagB"],"topic":"T"}],"unitMode":false}],' +
        '"heartbeatFingerprint":0,"producerDataSet":[{"groupName":"CLIENT_INNER_PRODUCER"}],"withoutSub":false}',
    );
  });

  it('accepts the protocol layer SubscriptionData as is', () => {
    const sub = buildSubscriptionData('T', 'TagA', 'TAG', 5);
    const json = JSON.parse(
      encodeHeartbeatData({
        clientID: 'c',
        producerDataSet: [],
        consumerDataSet: [
          {
            groupName: 'G',
            consumeType: 'CONSUME_PASSIVELY',
            messageModel: 'CLUSTERING',
            consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
            subscriptionDataSet: [sub],
          },
        ],
      }).toString(),
    );
    expect(json.consumerDataSet[0].subscriptionDataSet[0]).toMatchObject({
      codeSet: [2598919],
      tagsSet: ['TagA'],
    });
  });
});

describe('lock bodies', () => {
  const mq = { topic: 'T', brokerName: 'broker-a', queueId: 1 };

  it('encodes LockBatchRequestBody', () => {
    expect(encodeLockBatchRequestBody({ consumerGroup: 'G', clientId: 'c', mqSet: [mq] }).toString()).toBe(
      '{"clientId":"c","consumerGroup":"G","mqSet":[{"brokerName":"broker-a","queueId":1,"topic":"T"}],"onlyThisBroker":false}',
    );
  });

  it('parses the locked set; an empty body means none', () => {
    expect(
      parseLockBatchResponseBody(
        Buffer.from('{"lockOKMQSet":[{"brokerName":"broker-a","queueId":1,"topic":"T"}]}'),
      ),
    ).toEqual([mq]);
    expect(parseLockBatchResponseBody(undefined)).toEqual([]);
    expect(parseLockBatchResponseBody(Buffer.from('{"lockOKMQSet":[]}'))).toEqual([]);
    expect(() => parseLockBatchResponseBody(Buffer.from('{"lockOKMQSet":[{"topic":1}]}'))).toThrow(
      ProtocolError,
    );
    expect(() => parseLockBatchResponseBody(Buffer.from('nope'))).toThrow(ProtocolError);
  });
});

describe('consumer list', () => {
  it('parses consumerIdList', () => {
    expect(parseConsumerListBody(Buffer.from('{"consumerIdList":["a@1#x","b@2#y"]}'))).toEqual([
      'a@1#x',
      'b@2#y',
    ]);
    expect(() => parseConsumerListBody(Buffer.from('{"consumerIdList":[1]}'))).toThrow(ProtocolError);
  });
});

describe('ConsumerRunningInfo', () => {
  it('writes mqTable with object keys like fastjson and reads it back', () => {
    const body = encodeConsumerRunningInfo({
      properties: { PROP_CONSUME_TYPE: 'CONSUME_PASSIVELY', PROP_CLIENT_VERSION: 'V4_9_4' },
      subscriptionSet: [buildSubscriptionData('T', '*', 'TAG', 1)],
      mqTable: [
        { queue: { topic: 'T', brokerName: 'b', queueId: 0 }, info: { commitOffset: 5, locked: false } },
        { queue: { topic: 'T', brokerName: 'b', queueId: 1 }, info: { commitOffset: 7, locked: true } },
      ],
    });
    const text = body.toString();
    expect(text).toContain(
      '"mqTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{"commitOffset":5,"locked":false},',
    );
    const parsed = parseConsumerRunningInfo(body);
    expect(parsed.properties.PROP_CONSUME_TYPE).toBe('CONSUME_PASSIVELY');
    expect(parsed.mqTable).toEqual([
      { queue: { topic: 'T', brokerName: 'b', queueId: 0 }, info: { commitOffset: 5, locked: false } },
      { queue: { topic: 'T', brokerName: 'b', queueId: 1 }, info: { commitOffset: 7, locked: true } },
    ]);
    expect(parsed.subscriptionSet).toHaveLength(1);
  });

  it('handles an empty mqTable', () => {
    const parsed = parseConsumerRunningInfo(
      encodeConsumerRunningInfo({ properties: {}, subscriptionSet: [], mqTable: [] }),
    );
    expect(parsed.mqTable).toEqual([]);
  });
});

describe('SubscriptionGroupConfig', () => {
  it('fills in the broker defaults', () => {
    const json = JSON.parse(
      encodeSubscriptionGroupConfig({ groupName: 'G', consumeMessageOrderly: true }).toString(),
    );
    expect(json).toMatchObject({
      groupName: 'G',
      consumeEnable: true,
      consumeMessageOrderly: true,
      retryQueueNums: 1,
      retryMaxTimes: 16,
      brokerId: 0,
      notifyConsumerIdsChangedEnable: true,
    });
  });
});

describe('CheckClientRequestBody', () => {
  it('encodes the Java field names, namespace only when given (fixture)', () => {
    const subscriptionData = buildSubscriptionData('T', "a > 5 AND b = 'x'", 'SQL92', 1700000000000);
    expect(
      encodeCheckClientRequestBody({ clientId: 'c', group: 'G', subscriptionData }).toString('utf8'),
    ).toBe(
      '{"clientId":"c","group":"G","subscriptionData":{"classFilterMode":false,"codeSet":[],' +
        '"expressionType":"SQL92","subString":"a > 5 AND b = \'x\'","subVersion":1700000000000,"tagsSet":[],"topic":"T"}}',
    );
    const withNamespace = encodeCheckClientRequestBody({
      clientId: 'c',
      group: 'G',
      subscriptionData,
      namespace: 'ns',
    });
    expect(JSON.parse(withNamespace.toString('utf8'))).toMatchObject({ namespace: 'ns' });
  });
});
