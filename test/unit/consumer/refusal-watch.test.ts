import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import {
  type ConsumerRefusedError,
  isPermanentRefusal,
  REFUSAL_CONFIRM_MS,
  RefusalWatch,
} from '../../../src/consumer/refusal-watch.js';
import { ConnectionClosedError } from '../../../src/network/errors.js';
import { OffsetStoreError } from '../../../src/offsets/offset-store-error.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';

const noPermission = new BrokerError({
  code: ResponseCode.NO_PERMISSION,
  remark: 'check signature failed.',
  requestCode: RequestCode.HEART_BEAT,
  address: '10.0.0.1:10911',
});
const busy = new BrokerError({
  code: ResponseCode.SYSTEM_BUSY,
  requestCode: RequestCode.PULL_MESSAGE,
  address: '10.0.0.1:10911',
});

function watch() {
  let nowMs = 0;
  const tripped: ConsumerRefusedError[] = [];
  const w = new RefusalWatch(
    (error) => tripped.push(error),
    REFUSAL_CONFIRM_MS,
    () => nowMs,
  );
  return {
    w,
    tripped,
    at: (ms: number) => {
      nowMs = ms;
    },
  };
}

describe('isPermanentRefusal', () => {
  it('looks for the permanent flag through causes and aggregates', () => {
    expect(isPermanentRefusal(noPermission)).toBe(true);
    expect(isPermanentRefusal(busy)).toBe(false);
    expect(isPermanentRefusal(new Error('wrapped', { cause: noPermission }))).toBe(true);
    expect(isPermanentRefusal(new AggregateError([busy, noPermission]))).toBe(true);
    const untrusted = new ConnectionClosedError('certificate unknown', { address: 'a:1', permanent: true });
    expect(untrusted.retriable).toBe(false);
    expect(isPermanentRefusal(untrusted)).toBe(true);
    expect(isPermanentRefusal(new OffsetStoreError('throttled', { retriable: true }))).toBe(false);
    expect(isPermanentRefusal(undefined)).toBe(false);
  });
});

describe('RefusalWatch', () => {
  it('trips once refusals went on for the confirmation time with no broker success, naming the refusal', () => {
    const t = watch();
    t.w.failed(noPermission);
    t.at(REFUSAL_CONFIRM_MS - 1);
    t.w.failed(noPermission);
    expect(t.tripped).toEqual([]);
    t.at(REFUSAL_CONFIRM_MS);
    t.w.failed(noPermission);
    expect(t.tripped).toHaveLength(1);
    expect(t.tripped[0]?.message).toBe(
      'the brokers refuse this consumer: HEART_BEAT to 10.0.0.1:10911 failed with NO_PERMISSION (16): check signature failed.',
    );
    expect(t.tripped[0]?.permanent).toBe(true);
    t.w.failed(noPermission);
    expect(t.tripped).toHaveLength(1);
  });

  it('a success in between (a broker made write-only for maintenance refuses send-backs only) resets it', () => {
    const t = watch();
    t.w.failed(noPermission);
    t.at(REFUSAL_CONFIRM_MS / 2);
    t.w.succeeded();
    t.at(REFUSAL_CONFIRM_MS + 1);
    t.w.failed(noPermission);
    t.at(REFUSAL_CONFIRM_MS + 2);
    t.w.failed(noPermission);
    expect(t.tripped).toEqual([]);
  });

  it('ignores retriable failures, and trips at once for refusals that need no confirmation', () => {
    const t = watch();
    for (let i = 0; i < 10; i++) {
      t.at(i * REFUSAL_CONFIRM_MS);
      t.w.failed(busy);
    }
    expect(t.tripped).toEqual([]);
    t.w.refusedNow(
      'the offset store refuses this consumer',
      new OffsetStoreError('no table', { permanent: true }),
    );
    expect(t.tripped.map((error) => error.message)).toEqual([
      'the offset store refuses this consumer: no table',
    ]);
  });
});
