/**
 * A POP poller's running info (src/consumer/pop/pop-running-info.ts), through the wire encoding the broker
 * forwards and the parser `status` reads it with: no queues, who it is, and its counters.
 */
import { describe, expect, it } from 'vitest';
import { newConsumerCounters } from '../../../../src/consumer/consumer-counters.js';
import { buildPopRunningInfo } from '../../../../src/consumer/pop/pop-running-info.js';
import { newPopCounters, type PopConsumerStatus } from '../../../../src/consumer/pop/pop-status.js';
import { encodeConsumerRunningInfo, parseConsumerRunningInfo } from '../../../../src/protocol/bodies.js';
import { buildSubscriptionData } from '../../../../src/protocol/subscription.js';

describe('buildPopRunningInfo', () => {
  it('says CONSUME_POP, holds no queue and carries the counters status sums (filteredOut)', () => {
    const status: PopConsumerStatus = {
      mode: 'POP',
      name: 'audit',
      consumerGroup: 'audit-lambda',
      topic: 'Audit',
      clientId: '10.0.0.1@1',
      state: 'running',
      error: undefined,
      startedAtMs: 1_700_000_000_000,
      brokers: [],
      inFlightBatches: 2,
      inFlightMessages: 7,
      counters: { ...newConsumerCounters(), consumedOk: 40, consumedFailed: 3, sentBack: 1, filteredOut: 12 },
      popCounters: newPopCounters(),
    };
    const subscription = buildSubscriptionData('Audit', '*');
    const info = parseConsumerRunningInfo(
      encodeConsumerRunningInfo(buildPopRunningInfo(status, [subscription], { maxConcurrency: 4 })),
    );
    expect(info.mqTable).toEqual([]);
    expect(info.properties).toMatchObject({
      PROP_CONSUME_TYPE: 'CONSUME_POP',
      PROP_THREADPOOL_CORE_SIZE: '4',
      PROP_CONSUMER_START_TIMESTAMP: '1700000000000',
    });
    expect(info.subscriptionSet).toEqual([expect.objectContaining({ topic: 'Audit', subString: '*' })]);
    expect(info.userConsumerInfo).toMatchObject({
      mapping: 'audit',
      state: 'running',
      inFlightBatches: '2',
      pendingMessages: '7',
      consumedOk: '40',
      consumedFailed: '3',
      sentBack: '1',
      filteredOut: '12',
    });
    expect(info.userConsumerInfo.clientRuntime).toMatch(/^rocketmq-lambda .+ on Node\.js v/);
  });
});
