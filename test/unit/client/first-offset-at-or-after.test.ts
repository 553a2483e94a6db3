import { describe, expect, it } from 'vitest';
import { BrokerClient } from '../../../src/client/broker-client.js';
import { MQVersionCode } from '../../../src/protocol/mq-version.js';
import { PullSysFlag } from '../../../src/protocol/pull-sys-flag.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';
import { type FakeReply, FakeTransport } from './fake-transport.js';
import { storedMessage } from './stored-message.js';

const ADDR = '127.0.0.1:10911';
const REQUEST = { consumerGroup: 'G', topic: 'T', queueId: 0, bname: 'broker-a' };

/**
 * One queue on a broker of version `version`: offset `minOffset + i` holds a message stored at
 * `storeTimes[i]`. SEARCH_OFFSET_BY_TIMESTAMP answers `searchAnswer`; PULL_MESSAGE answers like a broker
 * (FOUND at a stored offset, NO_NEW_MSG at the end, OFFSET_ILLEGAL outside).
 */
function brokerWithQueue(options: {
  version: number;
  storeTimes: number[];
  minOffset?: number;
  searchAnswer: number;
}) {
  const { version, storeTimes, searchAnswer } = options;
  const minOffset = options.minOffset ?? 0;
  const maxOffset = minOffset + storeTimes.length;
  const transport = new FakeTransport(({ request }): FakeReply => {
    if (request.code === RequestCode.SEARCH_OFFSET_BY_TIMESTAMP) {
      return { code: ResponseCode.SUCCESS, version, extFields: { offset: String(searchAnswer) } };
    }
    if (request.code !== RequestCode.PULL_MESSAGE) throw new Error(`unexpected request ${request.code}`);
    const offset = Number(request.extFields?.queueOffset);
    const bounds = { minOffset: String(minOffset), maxOffset: String(maxOffset), suggestWhichBrokerId: '0' };
    if (offset < minOffset || offset > maxOffset) {
      const nextBeginOffset = String(offset < minOffset ? minOffset : maxOffset);
      return { code: ResponseCode.PULL_OFFSET_MOVED, version, extFields: { ...bounds, nextBeginOffset } };
    }
    if (offset === maxOffset) {
      return {
        code: ResponseCode.PULL_NOT_FOUND,
        version,
        extFields: { ...bounds, nextBeginOffset: String(offset) },
      };
    }
    const body = storedMessage({
      topic: 'T',
      queueId: 0,
      queueOffset: offset,
      physicalOffset: offset * 200,
      body: Buffer.from(`m${offset}`),
      properties: {},
      storeTimestamp: storeTimes[offset - minOffset] as number,
    });
    return {
      code: ResponseCode.SUCCESS,
      version,
      extFields: { ...bounds, nextBeginOffset: String(offset + 1) },
      body,
    };
  });
  const broker = new BrokerClient({ transport });
  const pulledOffsets = () =>
    transport.sent
      .filter((sent) => sent.request.code === RequestCode.PULL_MESSAGE)
      .map((sent) => Number(sent.request.extFields?.queueOffset));
  return { broker, transport, pulledOffsets };
}

const V4 = MQVersionCode.V4_9_7;

describe('BrokerClient.firstOffsetAtOrAfter', () => {
  it('takes a 5.x answer as it is: one SEARCH_OFFSET_BY_TIMESTAMP, no read', async () => {
    const { broker, transport } = brokerWithQueue({
      version: MQVersionCode.V5_3_3,
      storeTimes: [100, 200, 300],
      searchAnswer: 1,
    });
    expect(await broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 150 })).toBe(1);
    expect(transport.sent).toHaveLength(1);
    expect(transport.sent[0]?.request).toMatchObject({
      code: RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
      extFields: { topic: 'T', queueId: '0', timestamp: '150', bname: 'broker-a' },
    });
    // The group is ours, not the wire's: only the reads of a 4.x broker name it.
    expect(transport.sent[0]?.request.extFields).not.toHaveProperty('consumerGroup');
  });

  it('takes the answer of a broker that did not say its version (0) as it is', async () => {
    const { broker, transport } = brokerWithQueue({ version: 0, storeTimes: [100, 200], searchAnswer: 0 });
    expect(await broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 150 })).toBe(0);
    expect(transport.sent).toHaveLength(1);
  });

  it('moves a 4.x answer one message before the time to the next message', async () => {
    // 4.9.7 answers 1 for 110: 100 is nearer to 110 than 200.
    const { broker, pulledOffsets } = brokerWithQueue({
      version: V4,
      storeTimes: [90, 100, 200, 300],
      searchAnswer: 1,
    });
    expect(await broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 110 })).toBe(2);
    expect(pulledOffsets()).toEqual([1, 2]);
  });

  it('reads without committing, suspending or filtering, as the group being positioned', async () => {
    const { broker, transport } = brokerWithQueue({ version: V4, storeTimes: [100, 200], searchAnswer: 0 });
    await broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 150 });
    const pull = transport.sent.find((sent) => sent.request.code === RequestCode.PULL_MESSAGE);
    expect(pull?.request.extFields).toMatchObject({
      consumerGroup: 'G',
      topic: 'T',
      queueId: '0',
      bname: 'broker-a',
      maxMsgNums: '1',
      commitOffset: '0',
      suspendTimeoutMillis: '0',
      subscription: '*',
      expressionType: 'TAG',
      sysFlag: String(PullSysFlag.SUBSCRIPTION),
    });
  });

  it('moves a 4.x answer inside a run of same-millisecond messages to the first of them', async () => {
    // 4.9.7's binary search stops at whichever message of the run it probes first.
    const storeTimes = [100, 100, 150, 200, 200, 200, 200, 200, 200, 200, 300];
    for (const searchAnswer of [3, 5, 6, 9]) {
      const { broker } = brokerWithQueue({ version: V4, storeTimes, searchAnswer });
      expect(await broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 200 })).toBe(3);
    }
  });

  it('needs few reads for a long run of same-millisecond messages', async () => {
    const storeTimes = [100, ...Array.from({ length: 1000 }, () => 200), 300];
    const { broker, pulledOffsets } = brokerWithQueue({ version: V4, storeTimes, searchAnswer: 700 });
    expect(await broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 200 })).toBe(1);
    // Doubling steps back from 700, then halving: about 2·log2(700) reads, not 700.
    expect(pulledOffsets().length).toBeLessThanOrEqual(22);
  });

  it('answers the max offset when the time is after every message (4.x answers the last message)', async () => {
    const { broker, pulledOffsets } = brokerWithQueue({
      version: V4,
      storeTimes: [100, 200, 300],
      searchAnswer: 2,
    });
    expect(await broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 1000 })).toBe(3);
    expect(pulledOffsets()).toEqual([2]);
  });

  it('checks a 4.x answer at the max offset against the last message', async () => {
    const older = brokerWithQueue({ version: V4, storeTimes: [100, 200, 300], searchAnswer: 3 });
    expect(await older.broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 1000 })).toBe(3);
    const newer = brokerWithQueue({ version: V4, storeTimes: [100, 200, 300], searchAnswer: 3 });
    expect(await newer.broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 250 })).toBe(2);
  });

  it('answers the min offset when the time is before every message', async () => {
    const { broker } = brokerWithQueue({
      version: V4,
      storeTimes: [100, 200, 300],
      minOffset: 40,
      searchAnswer: 40,
    });
    expect(await broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 5 })).toBe(40);
  });

  it('keeps an answer outside the queue within its bounds', async () => {
    // 4.9.7 answers 0 when it finds no consume queue file, whatever the queue's min offset.
    const below = brokerWithQueue({
      version: V4,
      storeTimes: [100, 200, 300],
      minOffset: 40,
      searchAnswer: 0,
    });
    expect(await below.broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 150 })).toBe(41);
    const above = brokerWithQueue({
      version: V4,
      storeTimes: [100, 200, 300],
      minOffset: 40,
      searchAnswer: 99,
    });
    expect(await above.broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 150 })).toBe(41);
  });

  it('answers 0 for an empty queue with one read', async () => {
    const { broker, pulledOffsets } = brokerWithQueue({ version: V4, storeTimes: [], searchAnswer: 0 });
    expect(await broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 150 })).toBe(0);
    expect(pulledOffsets()).toEqual([0]);
  });

  it('agrees with a linear scan for every answer and time on a queue with repeated store times', async () => {
    const storeTimes = [10, 10, 10, 20, 30, 30, 40, 40, 40, 40, 50];
    const expected = (timestamp: number) => {
      const index = storeTimes.findIndex((storeTime) => storeTime >= timestamp);
      return index === -1 ? storeTimes.length : index;
    };
    for (let timestamp = 0; timestamp <= 60; timestamp += 5) {
      for (let searchAnswer = 0; searchAnswer <= storeTimes.length; searchAnswer++) {
        const { broker } = brokerWithQueue({ version: V4, storeTimes, searchAnswer });
        expect(
          await broker.firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp }),
          `time ${timestamp}, broker answer ${searchAnswer}`,
        ).toBe(expected(timestamp));
      }
    }
  });

  it('fails, retriable, when the broker filters out the message it should read', async () => {
    const transport = new FakeTransport(
      ({ request }): FakeReply =>
        request.code === RequestCode.SEARCH_OFFSET_BY_TIMESTAMP
          ? { code: ResponseCode.SUCCESS, version: V4, extFields: { offset: '1' } }
          : {
              code: ResponseCode.PULL_RETRY_IMMEDIATELY,
              version: V4,
              extFields: { minOffset: '0', maxOffset: '3', nextBeginOffset: '2', suggestWhichBrokerId: '0' },
            },
    );
    await expect(
      new BrokerClient({ transport }).firstOffsetAtOrAfter(ADDR, { ...REQUEST, timestamp: 150 }),
    ).rejects.toMatchObject({ retriable: true });
  });
});
