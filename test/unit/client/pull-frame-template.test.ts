import { describe, expect, it } from 'vitest';
import { BrokerClient } from '../../../src/client/broker-client.js';
import { PullFrameTemplate } from '../../../src/client/pull-frame-template.js';
import type { PullMessageRequestHeader } from '../../../src/protocol/headers.js';
import {
  decodeFrame,
  encodeFrame,
  FrameSplitter,
  SerializeType,
  toExtFields,
} from '../../../src/protocol/remoting-command.js';
import { FakeTransport } from './fake-transport.js';

const header: PullMessageRequestHeader = {
  consumerGroup: 'GID_orders-é',
  topic: 'orders',
  queueId: 3,
  queueOffset: 0,
  maxMsgNums: 32,
  sysFlag: 2,
  commitOffset: 0,
  suspendTimeoutMillis: 15_000,
  subscription: undefined,
  subVersion: 1_733_000_000_123,
  expressionType: 'TAG',
  bname: 'broker-a',
};

/** The one frame in `bytes`, decoded as a peer decodes it. */
function decodeWhole(bytes: Buffer) {
  const frames = new FrameSplitter().push(bytes);
  expect(frames).toHaveLength(1);
  return decodeFrame(frames[0] as Buffer);
}

describe('PullFrameTemplate', () => {
  it('encodes the same request as the generic path, as a binary header, for every changing value', () => {
    const template = new PullFrameTemplate(header);
    const cases = [
      { queueOffset: 0, sysFlag: 2, commitOffset: 0 },
      { queueOffset: 9_007_199_254_740_991, sysFlag: 3, commitOffset: 1_234_567_890_123 },
      { queueOffset: 42, sysFlag: 7, commitOffset: -1 },
    ];
    for (const [index, changes] of cases.entries()) {
      const next = { ...header, ...changes };
      expect(template.fits(next)).toBe(true);
      const opaque = 0x7fff_fff0 + index;
      const command = decodeWhole(template.encode(next, opaque, 0));
      const generic = decodeWhole(
        encodeFrame({
          code: 11,
          language: 'JAVA',
          version: 401,
          opaque,
          flag: 0,
          extFields: toExtFields(next),
        }),
      );
      expect(command.serializeType).toBe(SerializeType.ROCKETMQ);
      expect({ ...command, serializeType: undefined }).toEqual({ ...generic, serializeType: undefined });
      expect(command.extFields).toEqual({
        consumerGroup: 'GID_orders-é',
        topic: 'orders',
        queueId: '3',
        queueOffset: String(changes.queueOffset),
        maxMsgNums: '32',
        sysFlag: String(changes.sysFlag),
        commitOffset: String(changes.commitOffset),
        suspendTimeoutMillis: '15000',
        subVersion: '1733000000123',
        expressionType: 'TAG',
        bname: 'broker-a',
      });
    }
  });

  it('writes the flag the connection asks for', () => {
    const command = decodeWhole(new PullFrameTemplate(header).encode(header, 5, 2));
    expect({ opaque: command.opaque, flag: command.flag, code: command.code }).toEqual({
      opaque: 5,
      flag: 2,
      code: 11,
    });
  });

  it('does not fit a header that differs in a fixed field or has a field more', () => {
    const template = new PullFrameTemplate(header);
    expect(template.fits({ ...header, subVersion: header.subVersion + 1 })).toBe(false);
    expect(template.fits({ ...header, queueId: 4 })).toBe(false);
    expect(template.fits({ ...header, subscription: '*' })).toBe(false);
    expect(template.fits({ ...header, maxMsgBytes: 1024 })).toBe(false);
  });
});

describe('BrokerClient.pullMessage with a template', () => {
  const reply = {
    code: 19,
    extFields: { suggestWhichBrokerId: '0', nextBeginOffset: '3', minOffset: '0', maxOffset: '3' },
  };

  it('hands the transport the template frame, and the same extFields for a request signer', async () => {
    const transport = new FakeTransport(() => reply);
    const broker = new BrokerClient({ transport });
    const template = new PullFrameTemplate(header);
    const next = { ...header, queueOffset: 3, sysFlag: 3, commitOffset: 2 };
    await broker.pullMessage('127.0.0.1:10911', next, { template });
    const request = transport.sent[0]?.request;
    expect(request?.code).toBe(11);
    expect(request?.extFields).toEqual(toExtFields(next));
    const frame = request?.encodeFrame?.(77, 0);
    expect(frame).toBeDefined();
    expect(decodeWhole(frame as Buffer)).toMatchObject({
      code: 11,
      opaque: 77,
      extFields: toExtFields(next),
    });
  });

  it('falls back to the generic request when the header does not fit the template', async () => {
    const transport = new FakeTransport(() => reply);
    const broker = new BrokerClient({ transport });
    const template = new PullFrameTemplate(header);
    const other = { ...header, topic: 'payments' };
    await broker.pullMessage('127.0.0.1:10911', other, { template });
    expect(transport.sent[0]?.request).toEqual({ code: 11, extFields: toExtFields(other) });
  });
});
