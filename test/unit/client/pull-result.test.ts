import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import { toPullResult } from '../../../src/client/pull-result.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { MessageDecodeError } from '../../../src/protocol/message-decoder.js';
import { encodeStoredMessage } from '../../../src/protocol/message-encoder.js';
import { MessageSysFlag } from '../../../src/protocol/message-sys-flag.js';
import type { RemotingCommand } from '../../../src/protocol/remoting-command.js';
import { storedMessage } from './stored-message.js';

const OFFSETS = { suggestWhichBrokerId: '0', nextBeginOffset: '12', minOffset: '0', maxOffset: '12' };

function response(code: number, extFields: Record<string, string> = OFFSETS, body?: Buffer): RemotingCommand {
  return { code, language: 'JAVA', version: 479, opaque: 1, flag: 1, extFields, body };
}

const record = (queueOffset: number, text: string) =>
  storedMessage({
    topic: 'T',
    queueId: 2,
    queueOffset,
    physicalOffset: 1000 + queueOffset,
    body: Buffer.from(text),
    properties: { UNIQ_KEY: `U${queueOffset}`, TAGS: 'TagA', KEYS: 'k1 k2' },
  });

describe('toPullResult', () => {
  it('maps 0 to FOUND with decoded messages and the header offsets', () => {
    const result = toPullResult(
      response(0, OFFSETS, Buffer.concat([record(10, 'a'), record(11, 'b')])),
      'b:1',
    );
    expect(result.status).toBe('FOUND');
    if (result.status !== 'FOUND') return;
    expect(result).toMatchObject({
      nextBeginOffset: 12,
      minOffset: 0,
      maxOffset: 12,
      suggestWhichBrokerId: 0,
    });
    expect(result.decodeError).toBeUndefined();
    expect(result.messages.map((m) => [m.queueOffset, m.body.toString(), m.msgId, m.tags, m.keys])).toEqual([
      [10, 'a', 'U10', 'TagA', ['k1', 'k2']],
      [11, 'b', 'U11', 'TagA', ['k1', 'k2']],
    ]);
  });

  it('shifts queue offsets by offsetDelta', () => {
    const result = toPullResult(response(0, { ...OFFSETS, offsetDelta: '100' }, record(1, 'x')), 'b:1');
    expect(result.status === 'FOUND' && result.messages[0]?.queueOffset).toBe(101);
  });

  it('shifts the queue offset of a malformed record by offsetDelta too', () => {
    // Flagged zlib, not zlib: the record's offsets are read, its body is not.
    const broken = encodeStoredMessage({
      topic: 'T',
      queueOffset: 2,
      physicalOffset: 1002,
      storedBody: Buffer.from('not zlib'),
      sysFlag: MessageSysFlag.COMPRESSED | MessageSysFlag.COMPRESSION_ZLIB,
    });
    const body = Buffer.concat([record(1, 'x'), broken]);
    const result = toPullResult(response(0, { ...OFFSETS, offsetDelta: '100' }, body), 'b:1');
    if (result.status !== 'FOUND') throw new Error(result.status);
    expect(result.messages.map((m) => m.queueOffset)).toEqual([101]);
    const error = result.decodeError as MessageDecodeError;
    expect(error).toBeInstanceOf(MessageDecodeError);
    expect([error.queueOffset, error.physicalOffset]).toEqual([102, 1002]);
    expect(error.message).toMatch(/queueOffset 102.*does not decompress/);
  });

  it('keeps the messages before a malformed record and reports the decode error', () => {
    const body = Buffer.concat([record(10, 'a'), Buffer.from([0, 0, 0, 9, 1, 2, 3])]);
    const result = toPullResult(response(0, OFFSETS, body), 'b:1');
    expect(result.status).toBe('FOUND');
    if (result.status !== 'FOUND') return;
    expect(result.messages).toHaveLength(1);
    expect(result.decodeError).toBeInstanceOf(ProtocolError);
  });

  it.each([
    [19, 'NO_NEW_MSG'],
    [20, 'NO_MATCHED_MSG'],
    [21, 'OFFSET_ILLEGAL'],
  ])('maps %i to %s with offsets', (code, status) => {
    expect(toPullResult(response(code), 'b:1')).toEqual({
      status,
      nextBeginOffset: 12,
      minOffset: 0,
      maxOffset: 12,
      suggestWhichBrokerId: 0,
    });
  });

  it.each([
    [24, true, true],
    [25, true, true],
    [26, true, true],
    [17, true, false],
    [16, false, false],
    [215, true, false],
  ])(
    'throws BrokerError for code %i (retriable %s, needsRebalance %s)',
    (code, retriable, needsRebalance) => {
      const error = (() => {
        try {
          toPullResult(response(code, {}), 'b:1');
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(BrokerError);
      expect(error).toMatchObject({ code, retriable, needsRebalance, requestCode: 11, address: 'b:1' });
    },
  );

  it('rejects a pull response without its offsets', () => {
    expect(() => toPullResult(response(19, {}), 'b:1')).toThrow(/no suggestWhichBrokerId/);
  });
});
