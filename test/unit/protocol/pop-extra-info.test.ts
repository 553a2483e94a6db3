import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import {
  assignPopReceipts,
  encodePopReceipt,
  type PopReceipt,
  parseMsgOffsetInfo,
  parsePopReceipt,
  parseStartOffsetInfo,
  popAckHeader,
  popRetryMark,
  popRetryTopic,
  receiptTopic,
} from '../../../src/protocol/pop-extra-info.js';
import type { PopMessageResponseHeader } from '../../../src/protocol/pop-headers.js';
import { messageExt } from '../invoke/consumed-message.js';

const receipt: PopReceipt = {
  ckQueueOffset: 7,
  popTime: 1_700_000_000_000,
  invisibleTime: 60_000,
  reviveQid: 3,
  retryMark: '0',
  brokerName: 'broker-a',
  queueId: 1,
  queueOffset: 8,
};

describe('POP extra info (ExtraInfoUtil)', () => {
  it('encodes the eight space-separated fields Java builds, and parses them back', () => {
    const text = encodePopReceipt(receipt);
    expect(text).toBe('7 1700000000000 60000 3 0 broker-a 1 8');
    expect(parsePopReceipt(text)).toEqual(receipt);
  });

  it('parses a receipt the broker put into POP_CK for a retried message', () => {
    expect(parsePopReceipt('0 1700000000000 60000 0 1 broker-a 0 0')).toMatchObject({
      retryMark: '1',
      queueId: 0,
    });
  });

  it('refuses a receipt with missing fields, an unknown retry mark or a non-integer', () => {
    expect(() => parsePopReceipt('7 1700000000000 60000 3 0 broker-a 1')).toThrow(ProtocolError);
    expect(() => parsePopReceipt('7 1700000000000 60000 3 9 broker-a 1 8')).toThrow(/retry mark/);
    expect(() => parsePopReceipt('7 1700000000000 60000 x 0 broker-a 1 8')).toThrow(/reviveQid/);
  });

  it('names the POP retry topics as KeyBuilder does and maps receipts to the topic to ack', () => {
    expect(popRetryTopic('T', 'G')).toBe('%RETRY%G_T');
    expect(popRetryTopic('T', 'G', true)).toBe('%RETRY%G+T');
    expect(popRetryMark('T')).toBe('0');
    expect(popRetryMark('%RETRY%G_T')).toBe('1');
    expect(popRetryMark('%RETRY%G+T')).toBe('2');
    expect(receiptTopic(receipt, 'T', 'G')).toBe('T');
    expect(receiptTopic({ ...receipt, retryMark: '1' }, 'T', 'G')).toBe('%RETRY%G_T');
    expect(receiptTopic({ ...receipt, retryMark: '2' }, 'T', 'G')).toBe('%RETRY%G+T');
  });

  it('builds the ack header from the receipt: topic, queue, offset, extra info, broker', () => {
    expect(popAckHeader({ ...receipt, retryMark: '1', queueId: 0, queueOffset: 5 }, 'G', 'T')).toEqual({
      consumerGroup: 'G',
      topic: '%RETRY%G_T',
      queueId: 0,
      offset: 5,
      extraInfo: '7 1700000000000 60000 3 1 broker-a 0 5',
      bname: 'broker-a',
    });
  });

  it('parses startOffsetInfo and msgOffsetInfo per retry mark and queue', () => {
    expect(parseStartOffsetInfo('0 1 7;1 0 3')).toEqual(
      new Map([
        ['0@1', 7],
        ['1@0', 3],
      ]),
    );
    expect(parseMsgOffsetInfo('0 1 7,8;0 0 2')).toEqual(
      new Map([
        ['0@1', [7, 8]],
        ['0@0', [2]],
      ]),
    );
    expect(parseStartOffsetInfo(undefined).size).toBe(0);
    expect(parseStartOffsetInfo('').size).toBe(0);
    expect(() => parseStartOffsetInfo('0 1 7;0 1 9')).toThrow(/twice/);
    expect(() => parseMsgOffsetInfo('0 1')).toThrow(ProtocolError);
  });
});

describe('assignPopReceipts (processPopResponse)', () => {
  const header: PopMessageResponseHeader = {
    popTime: 1_700_000_000_000,
    invisibleTime: 60_000,
    reviveQid: 3,
    restNum: 0,
    startOffsetInfo: '0 1 7;0 0 2',
    msgOffsetInfo: '0 1 7,8;0 0 2',
  };

  it('gives first deliveries the checkpoint of their queue and keeps the broker receipt of a retry', () => {
    const retried = '0 1699999990000 60000 3 1 broker-a 0 4';
    const messages = [
      messageExt({ topic: 'T', queueId: 1, queueOffset: 7 }),
      messageExt({ topic: 'T', queueId: 0, queueOffset: 2 }),
      messageExt({ topic: 'T', queueId: 1, queueOffset: 8 }),
      messageExt({ topic: 'T', queueId: 0, queueOffset: 4, properties: { POP_CK: retried } }),
    ];
    const receipts = assignPopReceipts(messages, header, 'broker-a');
    expect(receipts.map(encodePopReceipt)).toEqual([
      '7 1700000000000 60000 3 0 broker-a 1 7',
      '2 1700000000000 60000 3 0 broker-a 0 2',
      '7 1700000000000 60000 3 0 broker-a 1 8',
      retried,
    ]);
  });

  it('uses the first popped offset of a queue as checkpoint when the broker sends no offset info', () => {
    const legacy = { ...header, startOffsetInfo: undefined, msgOffsetInfo: undefined };
    const messages = [
      messageExt({ topic: 'T', queueId: 1, queueOffset: 7 }),
      messageExt({ topic: 'T', queueId: 1, queueOffset: 8 }),
    ];
    expect(assignPopReceipts(messages, legacy, 'broker-a').map((r) => r.ckQueueOffset)).toEqual([7, 7]);
  });

  it('refuses a response that names no checkpoint for a message queue', () => {
    const messages = [messageExt({ topic: 'T', queueId: 3, queueOffset: 1 })];
    expect(() => assignPopReceipts(messages, header, 'broker-a')).toThrow(/no checkpoint for queue 0@3/);
  });
});
