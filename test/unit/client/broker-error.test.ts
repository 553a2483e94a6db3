import { describe, expect, it } from 'vitest';
import { BrokerError, expectSuccess } from '../../../src/client/broker-error.js';
import { RocketMQError } from '../../../src/errors.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';

const response = (code: number, remark?: string) => ({
  code,
  remark,
  language: 'JAVA',
  version: 479,
  opaque: 1,
  flag: 1,
  extFields: {},
});

describe('BrokerError', () => {
  it('carries code, remark, request code, address and the table flags', () => {
    const error = new BrokerError({
      code: ResponseCode.SUBSCRIPTION_NOT_LATEST,
      remark: 'the consumer subscription not latest',
      requestCode: RequestCode.PULL_MESSAGE,
      address: '127.0.0.1:10911',
    });
    expect(error).toBeInstanceOf(RocketMQError);
    expect(error.name).toBe('BrokerError');
    expect(error).toMatchObject({
      code: 25,
      requestCode: 11,
      address: '127.0.0.1:10911',
      retriable: true,
      needsRebalance: true,
      staleRoute: false,
    });
    expect(error.message).toBe(
      'PULL_MESSAGE to 127.0.0.1:10911 failed with SUBSCRIPTION_NOT_LATEST (25): the consumer subscription not latest',
    );
  });

  it('sets staleRoute for NOT_LEADER_FOR_QUEUE and nothing for NO_PERMISSION', () => {
    const stale = new BrokerError({ code: 501, requestCode: 11, address: 'a' });
    expect([stale.retriable, stale.staleRoute, stale.needsRebalance]).toEqual([true, true, false]);
    const denied = new BrokerError({ code: ResponseCode.NO_PERMISSION, requestCode: 11, address: 'a' });
    expect([denied.retriable, denied.staleRoute, denied.needsRebalance]).toEqual([false, false, false]);
  });

  it('lets the caller override retriable', () => {
    const error = new BrokerError({
      code: ResponseCode.TOPIC_NOT_EXIST,
      requestCode: 105,
      address: 'ns',
      retriable: false,
    });
    expect(error.retriable).toBe(false);
    expect(error.staleRoute).toBe(true);
  });
});

describe('expectSuccess', () => {
  it('returns allowed responses and throws BrokerError otherwise', () => {
    const ok = response(0);
    expect(expectSuccess(ok, { code: 30 }, 'a')).toBe(ok);
    expect(expectSuccess(response(22), { code: 14 }, 'a', [0, 22]).code).toBe(22);
    expect(() => expectSuccess(response(2, '[REJECTREQUEST]'), { code: 30 }, 'a')).toThrow(
      expect.objectContaining({ code: 2, retriable: true, remark: '[REJECTREQUEST]', requestCode: 30 }),
    );
  });
});
