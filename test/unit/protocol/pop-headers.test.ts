import { describe, expect, it } from 'vitest';
import { toPopResult } from '../../../src/client/pop-result.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import {
  type PopMessageRequestHeader,
  parseChangeInvisibleTimeResponseHeader,
  parsePopMessageResponseHeader,
} from '../../../src/protocol/pop-headers.js';
import { FLAG_RESPONSE, type RemotingCommand, toExtFields } from '../../../src/protocol/remoting-command.js';

function response(code: number, extFields: Record<string, string>): RemotingCommand {
  return { code, language: 'JAVA', version: 0, opaque: 1, flag: FLAG_RESPONSE, extFields };
}

describe('POP headers', () => {
  it('sends the request header under the Java field names', () => {
    const header: PopMessageRequestHeader = {
      consumerGroup: 'G',
      topic: 'T',
      queueId: -1,
      maxMsgNums: 32,
      invisibleTime: 60_000,
      pollTime: 15_000,
      bornTime: 1_700_000_000_000,
      initMode: 0,
      expType: 'TAG',
      exp: '*',
      bname: 'broker-a',
    };
    expect(toExtFields(header)).toEqual({
      consumerGroup: 'G',
      topic: 'T',
      queueId: '-1',
      maxMsgNums: '32',
      invisibleTime: '60000',
      pollTime: '15000',
      bornTime: '1700000000000',
      initMode: '0',
      expType: 'TAG',
      exp: '*',
      bname: 'broker-a',
    });
  });

  it('parses a POP_MESSAGE response header, an empty answer reading as zeros', () => {
    expect(
      parsePopMessageResponseHeader({
        popTime: '1700000000000',
        invisibleTime: '60000',
        reviveQid: '3',
        restNum: '5',
        startOffsetInfo: '0 1 7',
        msgOffsetInfo: '0 1 7,8',
      }),
    ).toEqual({
      popTime: 1_700_000_000_000,
      invisibleTime: 60_000,
      reviveQid: 3,
      restNum: 5,
      startOffsetInfo: '0 1 7',
      msgOffsetInfo: '0 1 7,8',
    });
    expect(parsePopMessageResponseHeader({})).toEqual({
      popTime: 0,
      invisibleTime: 0,
      reviveQid: 0,
      restNum: 0,
    });
    expect(() => parsePopMessageResponseHeader({ restNum: 'x' })).toThrow(ProtocolError);
  });

  it('parses a CHANGE_MESSAGE_INVISIBLETIME response header and refuses one without popTime', () => {
    expect(
      parseChangeInvisibleTimeResponseHeader({
        popTime: '1700000001000',
        invisibleTime: '10000',
        reviveQid: '3',
      }),
    ).toEqual({ popTime: 1_700_000_001_000, invisibleTime: 10_000, reviveQid: 3 });
    expect(() => parseChangeInvisibleTimeResponseHeader({ invisibleTime: '1', reviveQid: '0' })).toThrow(
      /popTime/,
    );
  });

  it('maps POP response codes: 210 and 19 are empty, 209 is POLLING_FULL, others throw', () => {
    expect(toPopResult(response(210, { restNum: '0' }), 'b:1', 'broker-a')).toEqual({
      status: 'NO_NEW_MSG',
      restNum: 0,
    });
    expect(toPopResult(response(19, {}), 'b:1', 'broker-a').status).toBe('NO_NEW_MSG');
    expect(toPopResult(response(209, {}), 'b:1', 'broker-a').status).toBe('POLLING_FULL');
    expect(() => toPopResult(response(26, {}), 'b:1', 'broker-a')).toThrow(/SUBSCRIPTION_GROUP_NOT_EXIST/);
  });
});
