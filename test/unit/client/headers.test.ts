import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import {
  parseOffsetResponseHeader,
  parsePullMessageResponseHeader,
  parseSendMessageResponseHeader,
} from '../../../src/protocol/header-parsers.js';
import { toSendMessageV2ExtFields } from '../../../src/protocol/headers.js';
import { buildPullSysFlag, PullSysFlag } from '../../../src/protocol/pull-sys-flag.js';
import { toExtFields } from '../../../src/protocol/remoting-command.js';

describe('request headers', () => {
  it('renames a send header to the V2 one-letter fields and drops absent ones', () => {
    const ext = toSendMessageV2ExtFields({
      producerGroup: 'PG',
      topic: 'T',
      defaultTopic: 'TBW102',
      defaultTopicQueueNums: 4,
      queueId: 3,
      sysFlag: 0x301,
      bornTimestamp: 1_700_000_000_123,
      flag: 0,
      properties: 'UNIQ_KEY\u0001X\u0002',
      reconsumeTimes: 0,
      unitMode: false,
      batch: true,
      bname: 'broker-a',
    });
    expect(ext).toEqual({
      a: 'PG',
      b: 'T',
      c: 'TBW102',
      d: '4',
      e: '3',
      f: '769',
      g: '1700000000123',
      h: '0',
      i: 'UNIQ_KEY\u0001X\u0002',
      j: '0',
      k: 'false',
      m: 'true',
      n: 'broker-a',
    });
  });

  it('encodes a pull header with string values as Java expects', () => {
    const ext = toExtFields({
      consumerGroup: 'G',
      topic: 'T',
      queueId: 1,
      queueOffset: 2 ** 40,
      maxMsgNums: 32,
      sysFlag: buildPullSysFlag({ suspend: true, subscription: true }),
      commitOffset: 0,
      suspendTimeoutMillis: 15_000,
      subVersion: 0,
      subscription: 'TagA || TagB',
      expressionType: 'TAG',
    });
    expect(ext.queueOffset).toBe('1099511627776');
    expect(ext.sysFlag).toBe('6');
    expect(ext.subscription).toBe('TagA || TagB');
  });

  it('has the Java PullSysFlag bit values', () => {
    expect(PullSysFlag).toEqual({
      COMMIT_OFFSET: 1,
      SUSPEND: 2,
      SUBSCRIPTION: 4,
      CLASS_FILTER: 8,
      LITE_PULL: 16,
    });
    expect(buildPullSysFlag({ commitOffset: true, suspend: true, classFilter: true, litePull: true })).toBe(
      27,
    );
  });
});

describe('response header parsers', () => {
  it('parses a pull response header, with and without offsetDelta', () => {
    expect(
      parsePullMessageResponseHeader({
        suggestWhichBrokerId: '0',
        nextBeginOffset: '12',
        minOffset: '0',
        maxOffset: '12',
      }),
    ).toEqual({ suggestWhichBrokerId: 0, nextBeginOffset: 12, minOffset: 0, maxOffset: 12 });
    expect(
      parsePullMessageResponseHeader({
        suggestWhichBrokerId: '1',
        nextBeginOffset: '5',
        minOffset: '1',
        maxOffset: '9',
        offsetDelta: '100',
        topicSysFlag: '0',
      }),
    ).toMatchObject({ offsetDelta: 100, topicSysFlag: 0 });
  });

  it('names the missing or malformed field', () => {
    expect(() =>
      parsePullMessageResponseHeader({ suggestWhichBrokerId: '0', minOffset: '0', maxOffset: '1' }),
    ).toThrow(/no nextBeginOffset/);
    expect(() =>
      parsePullMessageResponseHeader({
        suggestWhichBrokerId: '0',
        nextBeginOffset: 'x',
        minOffset: '0',
        maxOffset: '1',
      }),
    ).toThrow(ProtocolError);
    expect(() => parseOffsetResponseHeader({ offset: '9007199254740993' }, 'GET_MAX_OFFSET')).toThrow(
      /GET_MAX_OFFSET response header offset=9007199254740993 is outside the safe integer range/,
    );
    expect(() => parseOffsetResponseHeader({ offset: '1.5' })).toThrow(/not an integer/);
  });

  it('parses send and offset response headers', () => {
    expect(
      parseSendMessageResponseHeader({
        msgId: '7F00000100002A9F0000000000000000',
        queueId: '2',
        queueOffset: '7',
        MSG_REGION: 'DefaultRegion',
        TRACE_ON: 'true',
      }),
    ).toEqual({
      msgId: '7F00000100002A9F0000000000000000',
      queueId: 2,
      queueOffset: 7,
      regionId: 'DefaultRegion',
      traceOn: true,
    });
    expect(() => parseSendMessageResponseHeader({ queueId: '2', queueOffset: '7' })).toThrow(/no msgId/);
    expect(parseOffsetResponseHeader({ offset: '-1' })).toEqual({ offset: -1 });
  });
});
