import { describe, expect, it } from 'vitest';
import {
  readConsumerOffsetAnswer,
  settleAmbiguousZero,
} from '../../../../src/consumer/rebalance/broker-committed-offset.js';
import { MQVersionCode } from '../../../../src/protocol/mq-version.js';

const queue = { topic: 'T', brokerName: 'b', queueId: 1 };

describe('readConsumerOffsetAnswer', () => {
  it('doubts only a 0 from a broker known to be older than 5.0', () => {
    expect(readConsumerOffsetAnswer({ offset: 0, brokerVersion: MQVersionCode.V4_9_7 })).toEqual({
      kind: 'ambiguous-zero',
    });
    expect(readConsumerOffsetAnswer({ offset: 0, brokerVersion: MQVersionCode.V4_9_4 })).toEqual({
      kind: 'ambiguous-zero',
    });
    for (const brokerVersion of [MQVersionCode.V5_0_0, MQVersionCode.V5_3_3, MQVersionCode.V5_5_1, 0]) {
      expect(readConsumerOffsetAnswer({ offset: 0, brokerVersion })).toEqual({
        kind: 'committed',
        offset: 0,
      });
    }
    expect(readConsumerOffsetAnswer({ offset: 12, brokerVersion: MQVersionCode.V4_9_7 })).toEqual({
      kind: 'committed',
      offset: 12,
    });
  });

  it('reads QUERY_NOT_FOUND and nonsense offsets as no offset', () => {
    expect(readConsumerOffsetAnswer({ offset: undefined, brokerVersion: MQVersionCode.V4_9_7 })).toEqual({
      kind: 'none',
    });
    expect(readConsumerOffsetAnswer({ offset: -1, brokerVersion: MQVersionCode.V5_3_3 })).toEqual({
      kind: 'none',
    });
  });
});

describe('settleAmbiguousZero', () => {
  const table = new Map([
    ['T@G', new Map([[0, 9]])],
    ['T@OTHER', new Map([[1, 0]])],
  ]);

  it('is no offset when the group has no entry for the queue', () => {
    expect(settleAmbiguousZero(table, 'G', queue)).toBeUndefined();
    expect(settleAmbiguousZero(table, 'NEW', queue)).toBeUndefined();
  });

  it("is the group's entry when it has one (a committed 0, or what was committed since)", () => {
    expect(settleAmbiguousZero(table, 'OTHER', queue)).toBe(0);
    expect(settleAmbiguousZero(table, 'G', { ...queue, queueId: 0 })).toBe(9);
  });

  it('stays 0 without a table (redeliver rather than skip)', () => {
    expect(settleAmbiguousZero(undefined, 'G', queue)).toBe(0);
  });
});
