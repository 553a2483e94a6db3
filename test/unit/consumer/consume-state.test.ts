import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import {
  assessPopConsumeState,
  assessPushConsumeState,
  CANNOT_CONSUME_STATES,
  CONSUME_STATES,
  consumeStateProblem,
  type PushConsumeFacts,
} from '../../../src/consumer/consume-state.js';
import { assessConsumerHealth, REBALANCE_STALL_MS } from '../../../src/consumer/consumer-health.js';
import { CONSUMER_OPTION_SPECS } from '../../../src/consumer/consumer-option-specs.js';
import { normalizeConsumerOptions } from '../../../src/consumer/consumer-options.js';
import { normalizePopConsumerOptions } from '../../../src/consumer/pop/pop-consumer-options.js';
import { HEALTH_BEAT_INTERVAL_MS, HEALTH_MAX_AGE_MS } from '../../../src/poller/health-beat.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';

const NOW = 2_000_000_000;
const GRACE = 30_000;

function brokerError(
  code: number,
  remark: string,
  requestCode: number = RequestCode.PULL_MESSAGE,
): BrokerError {
  return new BrokerError({ code, remark, requestCode, address: '10.0.0.1:10911' });
}

const noSuchTopic = brokerError(
  ResponseCode.TOPIC_NOT_EXIST,
  'No topic route info in name server for the topic: Orders',
  RequestCode.GET_ROUTEINFO_BY_TOPIC,
);

/** A running consumer of topic Orders, group orders-fn, holding two healthy queues. */
function push(overrides: Partial<PushConsumeFacts> = {}): PushConsumeFacts {
  return {
    lifecycle: 'running',
    topic: 'Orders',
    consumerGroup: 'orders-fn',
    startedAtMs: NOW - 600_000,
    routeKnown: true,
    readableQueues: 4,
    routeFailure: undefined,
    routeFailingSinceMs: undefined,
    allocation: { queues: 4, members: 2, listed: true, assigned: 2 },
    decisionError: undefined,
    lastDecisionMs: NOW - 5_000,
    holdingNoneSinceMs: undefined,
    held: [
      { lastProgressMs: NOW - 1_000, lastError: undefined },
      { lastProgressMs: NOW - 2_000, lastError: undefined },
    ],
    ...overrides,
  };
}

describe('readinessGraceMs', () => {
  it('defaults to 30 s, so a consumer that cannot consume reads unhealthy in the health file within 60 s', () => {
    expect(CONSUMER_OPTION_SPECS.readinessGraceMs.default).toBe(30_000);
    expect(normalizeConsumerOptions({ name: 'n', topic: 'T', consumerGroup: 'G' }).readinessGraceMs).toBe(
      30_000,
    );
    expect(normalizePopConsumerOptions({ name: 'n', topic: 'T', consumerGroup: 'G' }).readinessGraceMs).toBe(
      30_000,
    );
    // The file is rewritten every beat: the verdict reaches it at most one beat after the grace ran out.
    expect(CONSUMER_OPTION_SPECS.readinessGraceMs.default + HEALTH_BEAT_INTERVAL_MS).toBeLessThan(60_000);
    expect(HEALTH_MAX_AGE_MS).toBe(60_000);
  });

  it('is checked like every option', () => {
    expect(() =>
      normalizeConsumerOptions({ name: 'n', topic: 'T', consumerGroup: 'G', readinessGraceMs: -1 }),
    ).toThrow(/readinessGraceMs/);
    expect(() =>
      normalizePopConsumerOptions({ name: 'n', topic: 'T', consumerGroup: 'G', readinessGraceMs: 1.5 }),
    ).toThrow(/readinessGraceMs/);
  });
});

describe('assessPushConsumeState', () => {
  it('consumes while it holds queues of the topic that pull', () => {
    expect(assessPushConsumeState(push())).toEqual({
      state: 'consuming',
      reason: undefined,
      sinceMs: undefined,
    });
  });

  it('names a topic the name servers do not know, since the first failed lookup', () => {
    const state = assessPushConsumeState(
      push({
        routeKnown: false,
        readableQueues: 0,
        routeFailure: noSuchTopic,
        routeFailingSinceMs: NOW - 40_000,
        allocation: undefined,
        lastDecisionMs: undefined,
        held: [],
      }),
    );
    expect(state).toEqual({
      state: 'topic_missing',
      reason: 'topic Orders does not exist (the name servers know no route of it)',
      sinceMs: NOW - 40_000,
    });
    expect(consumeStateProblem(state, GRACE, NOW)).toBe(
      'cannot consume (topic_missing) for 40 s: topic Orders does not exist (the name servers know no route of it)',
    );
    // Within the grace the state is reported, but it is not (yet) a problem.
    expect(consumeStateProblem(state, GRACE, NOW - 15_000)).toBeUndefined();
  });

  it('says why a route is unknown when the name servers cannot be asked', () => {
    const state = assessPushConsumeState(
      push({
        routeKnown: false,
        routeFailure: new Error('connect ECONNREFUSED'),
        held: [],
        allocation: undefined,
      }),
    );
    expect(state.state).toBe('topic_missing');
    expect(state.reason).toBe('no route of topic Orders known: connect ECONNREFUSED');
  });

  it('is a healthy standby when the group has more members than queues and this one is given none', () => {
    const state = assessPushConsumeState(
      push({
        allocation: { queues: 2, members: 3, listed: true, assigned: 0 },
        holdingNoneSinceMs: NOW - 3_600_000,
        held: [],
      }),
    );
    expect(state).toEqual({
      state: 'waiting',
      reason:
        'standby: group orders-fn has 3 members for the 2 queue(s) of topic Orders; this one holds none until a holder leaves',
      sinceMs: NOW - 3_600_000,
    });
    expect(consumeStateProblem(state, GRACE, NOW)).toBeUndefined();
  });

  it('is unassigned when it holds nothing though the group has no more members than queues', () => {
    const state = assessPushConsumeState(
      push({
        allocation: { queues: 4, members: 2, listed: true, assigned: 0 },
        holdingNoneSinceMs: NOW - 45_000,
        held: [],
      }),
    );
    expect(state.state).toBe('unassigned');
    expect(state.reason).toBe(
      'holds none of the 4 queue(s) of topic Orders though group orders-fn has only 2 member(s) (does every member use the same allocateStrategy?)',
    );
    expect(consumeStateProblem(state, GRACE, NOW)).toMatch(
      /^cannot consume \(unassigned\) for 45 s: holds none/,
    );
  });

  it('is unassigned when the brokers do not list it in the group, or its queues could not be taken', () => {
    const unlisted = assessPushConsumeState(
      push({ allocation: { queues: 4, members: 2, listed: false, assigned: 0 }, held: [] }),
    );
    expect(unlisted.state).toBe('unassigned');
    expect(unlisted.reason).toContain('the brokers do not list this client in group orders-fn');
    const notTaken = assessPushConsumeState(
      push({ allocation: { queues: 4, members: 2, listed: true, assigned: 2 }, held: [] }),
    );
    expect(notTaken.state).toBe('unassigned');
    expect(notTaken.reason).toContain('2 queue(s) of topic Orders assigned, none taken yet');
    const undecided = assessPushConsumeState(
      push({ decisionError: new Error('the broker lists no consumer of the group yet'), held: [] }),
    );
    expect(undecided).toMatchObject({ state: 'unassigned', sinceMs: NOW - 5_000 });
    expect(undecided.reason).toBe(
      'no queue of topic Orders assigned: the broker lists no consumer of the group yet',
    );
  });

  it('names a missing subscription group when every held queue fails with SUBSCRIPTION_GROUP_NOT_EXIST', () => {
    const missing = brokerError(
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      'subscription group [orders-fn] does not exist',
    );
    const state = assessPushConsumeState(
      push({
        held: [
          { lastProgressMs: NOW - 50_000, lastError: missing },
          { lastProgressMs: NOW - 40_000, lastError: missing },
        ],
      }),
    );
    expect(state.state).toBe('group_missing');
    expect(state.sinceMs).toBe(NOW - 40_000);
    expect(state.reason).toContain('the brokers do not have subscription group orders-fn');
  });

  it('names a refused subscription (an SQL92 filter on a broker without enablePropertyFilter)', () => {
    const refused = brokerError(
      ResponseCode.SYSTEM_ERROR,
      'The broker does not support consumer to filter message by SQL92',
    );
    const state = assessPushConsumeState(
      push({ held: [{ lastProgressMs: NOW - 35_000, lastError: refused }] }),
    );
    expect(state.state).toBe('subscription_refused');
    expect(state.reason).toContain('the brokers refuse the subscription of group orders-fn to topic Orders');
    // Any other SYSTEM_ERROR is a passing failure, judged by the pull stall threshold instead.
    const busy = brokerError(ResponseCode.SYSTEM_ERROR, 'store busy');
    expect(
      assessPushConsumeState(push({ held: [{ lastProgressMs: NOW - 35_000, lastError: busy }] })).state,
    ).toBe('consuming');
  });

  it('consumes while only some held queues fail, or they fail for different reasons', () => {
    const missing = brokerError(ResponseCode.TOPIC_NOT_EXIST, 'topic not exist');
    expect(
      assessPushConsumeState(
        push({
          held: [
            { lastProgressMs: NOW - 50_000, lastError: missing },
            { lastProgressMs: NOW - 1_000, lastError: undefined },
          ],
        }),
      ).state,
    ).toBe('consuming');
  });

  it('follows the lifecycle before anything else', () => {
    expect(assessPushConsumeState(push({ lifecycle: 'starting' })).state).toBe('starting');
    expect(assessPushConsumeState(push({ lifecycle: 'failed' })).state).toBe('failed');
    expect(assessPushConsumeState(push({ lifecycle: 'stopping' })).state).toBe('stopped');
  });
});

describe('assessPopConsumeState', () => {
  const pop = {
    lifecycle: 'running' as const,
    topic: 'Orders',
    consumerGroup: 'orders-fn',
    startedAtMs: NOW - 60_000,
    routeKnown: true,
    routeFailure: undefined,
    routeFailingSinceMs: undefined,
    brokers: [{ lastProgressMs: NOW - 1_000, lastError: undefined }],
  };

  it('consumes while it pops a broker, names a missing topic or group otherwise', () => {
    expect(assessPopConsumeState(pop).state).toBe('consuming');
    expect(
      assessPopConsumeState({
        ...pop,
        routeKnown: false,
        routeFailure: noSuchTopic,
        routeFailingSinceMs: NOW - 50_000,
        brokers: [],
      }),
    ).toEqual({
      state: 'topic_missing',
      reason: 'topic Orders does not exist (the name servers know no route of it)',
      sinceMs: NOW - 50_000,
    });
    const missing = brokerError(
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      'no group',
      RequestCode.POP_MESSAGE,
    );
    expect(
      assessPopConsumeState({ ...pop, brokers: [{ lastProgressMs: NOW - 40_000, lastError: missing }] }),
    ).toMatchObject({ state: 'group_missing', sinceMs: NOW - 40_000 });
  });
});

describe('the consume state in the health verdict', () => {
  const base = {
    state: 'running' as const,
    fatalError: undefined,
    startedAtMs: NOW - 10 * 60_000,
    lastDecisionMs: undefined,
    lastDecisionError: new Error('no route known for topic Orders'),
    queues: [],
    offsets: { failingSinceMs: undefined, lastError: undefined },
    nowMs: NOW,
  };
  const missing = {
    state: 'topic_missing' as const,
    reason: 'topic Orders does not exist',
    sinceMs: NOW - 10 * 60_000,
  };

  it('turns unhealthy once a cannot-consume state outlasts the grace, saying it once', () => {
    const verdict = assessConsumerHealth({ ...base, consume: { state: missing, graceMs: GRACE } });
    expect(verdict).toEqual({
      healthy: false,
      problems: ['cannot consume (topic_missing) for 600 s: topic Orders does not exist'],
      state: missing,
    });
    // Without the state, only the rebalance stall (after minutes) would have said it.
    expect(10 * 60_000).toBeGreaterThan(REBALANCE_STALL_MS);
    expect(assessConsumerHealth(base).problems).toEqual([
      'no rebalance could assign queues for 600 s (no route known for topic Orders)',
    ]);
  });

  it('stays healthy within the grace, and for a waiting standby, while reporting the state', () => {
    const early = { ...missing, sinceMs: NOW - 10_000 };
    expect(
      assessConsumerHealth({ ...base, startedAtMs: NOW - 10_000, consume: { state: early, graceMs: GRACE } }),
    ).toEqual({ healthy: true, problems: [], state: early });
    const waiting = { state: 'waiting' as const, reason: 'standby', sinceMs: NOW - 3_600_000 };
    expect(
      assessConsumerHealth({
        ...base,
        lastDecisionMs: NOW - 1_000,
        lastDecisionError: undefined,
        consume: { state: waiting, graceMs: GRACE },
      }),
    ).toEqual({ healthy: true, problems: [], state: waiting });
  });

  it('lists exactly four cannot-consume states among the states', () => {
    expect([...CANNOT_CONSUME_STATES].sort()).toEqual(
      ['group_missing', 'subscription_refused', 'topic_missing', 'unassigned'].sort(),
    );
    for (const state of CANNOT_CONSUME_STATES) expect(CONSUME_STATES).toContain(state);
    expect(CANNOT_CONSUME_STATES.has('waiting')).toBe(false);
  });
});
