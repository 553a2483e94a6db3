import { describe, expect, it } from 'vitest';
import { averagelyStrategy } from '../../../../src/consumer/rebalance/allocate-message-queue-averagely.js';
import { averagelyByCircleStrategy } from '../../../../src/consumer/rebalance/allocate-message-queue-averagely-by-circle.js';
import {
  type AllocationStrategyName,
  createAllocationStrategy,
} from '../../../../src/consumer/rebalance/create-allocation-strategy.js';
import { RocketMQError } from '../../../../src/errors.js';

describe('createAllocationStrategy', () => {
  it('defaults to AVG', () => {
    expect(createAllocationStrategy()).toBe(averagelyStrategy);
    expect(createAllocationStrategy({ strategy: 'AVG_BY_CIRCLE' })).toBe(averagelyByCircleStrategy);
  });

  it.each([
    [{ strategy: 'AVG' }, 'AVG'],
    [{ strategy: 'AVG_BY_CIRCLE' }, 'AVG_BY_CIRCLE'],
    [{ strategy: 'CONSISTENT_HASH', virtualNodes: 20 }, 'CONSISTENT_HASH'],
    [{ zoneNearby: {} }, 'MACHINE_ROOM_NEARBY-AVG'],
    [
      { strategy: 'CONSISTENT_HASH', zoneNearby: { brokerZones: { b: 'az1' } } },
      'MACHINE_ROOM_NEARBY-CONSISTENT_HASH',
    ],
  ] as const)('%j is %s', (config, name) => {
    expect(createAllocationStrategy(config).name).toBe(name);
  });

  it('uses the broker zones of the mapping', () => {
    const strategy = createAllocationStrategy({ zoneNearby: { brokerZones: { 'broker-b': 'az2' } } });
    const queues = ['broker-a', 'broker-b'].flatMap((brokerName) =>
      [0, 1].map((queueId) => ({ topic: 'T', brokerName, queueId })),
    );
    const ids = ['10.0.0.1@1@az1', '10.0.0.2@2@az2'];
    // broker-a has no known zone: shared by both; broker-b is az2's.
    expect(
      strategy.allocate('G', '10.0.0.2@2@az2', queues, ids).map((q) => `${q.brokerName}#${q.queueId}`),
    ).toEqual(['broker-a#1', 'broker-b#0', 'broker-b#1']);
  });

  it('refuses an unknown name and a bad virtualNodes (permanent)', () => {
    const permanent = expect.objectContaining({ permanent: true, constructor: RocketMQError });
    expect(() => createAllocationStrategy({ strategy: 'LIFO' as AllocationStrategyName })).toThrow(permanent);
    expect(() => createAllocationStrategy({ strategy: 'CONSISTENT_HASH', virtualNodes: 0 })).toThrow(
      permanent,
    );
  });
});
