import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import {
  assessConsumerHealth,
  type ConsumerHealthInput,
  OFFSET_WRITE_STALL_MS,
  PULL_STALL_MS,
  REBALANCE_STALL_MS,
} from '../../../src/consumer/consumer-health.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';

const NOW = 1_000_000_000;
const queue = { topic: 'Orders', brokerName: 'broker-a', queueId: 3 };
const refused = new BrokerError({
  code: ResponseCode.NO_PERMISSION,
  remark: 'check signature failed.',
  requestCode: RequestCode.PULL_MESSAGE,
  address: '10.0.0.1:10911',
});

function input(overrides: Partial<ConsumerHealthInput> = {}): ConsumerHealthInput {
  return {
    state: 'running',
    fatalError: undefined,
    startedAtMs: NOW - 10 * 60_000,
    lastDecisionMs: NOW - 5_000,
    lastDecisionError: undefined,
    queues: [{ queue, lastProgressMs: NOW - 1_000, lastError: undefined }],
    offsets: { failingSinceMs: undefined, lastError: undefined },
    nowMs: NOW,
    ...overrides,
  };
}

describe('assessConsumerHealth', () => {
  it('is healthy while it rebalances, pulls every held queue and writes offsets', () => {
    expect(assessConsumerHealth(input())).toEqual({ healthy: true, problems: [] });
  });

  it('is unhealthy when not running, naming the fatal error', () => {
    expect(assessConsumerHealth(input({ state: 'failed', fatalError: refused })).problems).toEqual([
      'consumer is failed: PULL_MESSAGE to 10.0.0.1:10911 failed with NO_PERMISSION (16): check signature failed.',
    ]);
  });

  it('names a held queue whose pulls have not completed past the threshold, and why', () => {
    const stalled = { queue, lastProgressMs: NOW - PULL_STALL_MS - 10_000, lastError: refused };
    const verdict = assessConsumerHealth(input({ queues: [stalled] }));
    expect(verdict.healthy).toBe(false);
    expect(verdict.problems).toEqual([
      `queue Orders@broker-a@3: no pull completed for ${(PULL_STALL_MS + 10_000) / 1000} s (PULL_MESSAGE to 10.0.0.1:10911 failed with NO_PERMISSION (16): check signature failed.)`,
    ]);
    // Just under the threshold it is still healthy (a broker restart takes ~20 s).
    const slow = { queue, lastProgressMs: NOW - PULL_STALL_MS + 1, lastError: refused };
    expect(assessConsumerHealth(input({ queues: [slow] })).healthy).toBe(true);
  });

  it('is unhealthy when no rebalance could assign queues for too long, also holding none', () => {
    const verdict = assessConsumerHealth(
      input({
        queues: [],
        lastDecisionMs: NOW - REBALANCE_STALL_MS - 1_000,
        lastDecisionError: new Error('consumer list unavailable'),
      }),
    );
    expect(verdict.problems).toEqual([
      `no rebalance could assign queues for ${(REBALANCE_STALL_MS + 1_000) / 1000} s (consumer list unavailable)`,
    ]);
    // Never decided since a recent start: not yet a problem.
    expect(
      assessConsumerHealth(input({ queues: [], lastDecisionMs: undefined, startedAtMs: NOW - 30_000 }))
        .healthy,
    ).toBe(true);
    expect(
      assessConsumerHealth(
        input({ queues: [], lastDecisionMs: undefined, startedAtMs: NOW - REBALANCE_STALL_MS - 1 }),
      ).healthy,
    ).toBe(false);
  });

  it('is unhealthy when offset writes have failed for too long, not for a short outage', () => {
    const table = Object.assign(new Error('Requested resource not found'), {
      name: 'ResourceNotFoundException',
    });
    const short = { failingSinceMs: NOW - 30_000, lastError: table };
    expect(assessConsumerHealth(input({ offsets: short })).healthy).toBe(true);
    const long = { failingSinceMs: NOW - OFFSET_WRITE_STALL_MS - 5_000, lastError: table };
    expect(assessConsumerHealth(input({ offsets: long })).problems).toEqual([
      `offsets not written for ${(OFFSET_WRITE_STALL_MS + 5_000) / 1000} s (ResourceNotFoundException: Requested resource not found)`,
    ]);
  });
});
