import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { averagelyStrategy } from '../../../../src/consumer/rebalance/allocate-message-queue-averagely.js';
import { averagelyByCircleStrategy } from '../../../../src/consumer/rebalance/allocate-message-queue-averagely-by-circle.js';
import { createConsistentHashStrategy } from '../../../../src/consumer/rebalance/allocate-message-queue-consistent-hash.js';
import { createZoneNearbyStrategy } from '../../../../src/consumer/rebalance/allocate-zone-nearby.js';
import type { AllocationStrategy } from '../../../../src/consumer/rebalance/allocation-strategy.js';
import { brokerZoneLookup } from '../../../../src/consumer/rebalance/zone-conventions.js';
import { messageQueueKey } from '../../../../src/protocol/message-queue.js';
import { sortedClientIds, sortedQueues } from './allocation-arbitraries.js';

// The contract every strategy must keep so that independently computing clients agree: the shares of all
// clients together are every queue exactly once, and the same inputs give the same shares.
const strategies: AllocationStrategy[] = [
  averagelyStrategy,
  averagelyByCircleStrategy,
  createConsistentHashStrategy(),
  createConsistentHashStrategy({ virtualNodes: 1 }),
  createZoneNearbyStrategy({ brokerZone: brokerZoneLookup() }),
  createZoneNearbyStrategy({
    inner: averagelyByCircleStrategy,
    brokerZone: brokerZoneLookup({ 'broker-a': 'az3' }),
  }),
  createZoneNearbyStrategy({ inner: createConsistentHashStrategy(), brokerZone: brokerZoneLookup() }),
];

describe.each(strategies.map((strategy) => [strategy.name, strategy] as const))('%s', (_name, strategy) => {
  it('gives every queue to exactly one client of the group', () => {
    fc.assert(
      fc.property(sortedQueues, sortedClientIds, (queues, clientIds) => {
        const shares = clientIds.map((id) => strategy.allocate('G', id, queues, clientIds));
        const allocated = shares.flat().map(messageQueueKey);
        expect(allocated.length).toBe(queues.length);
        expect(new Set(allocated)).toEqual(new Set(queues.map(messageQueueKey)));
      }),
    );
  });

  it('is deterministic and leaves its inputs alone', () => {
    fc.assert(
      fc.property(sortedQueues, sortedClientIds, fc.nat(), (queues, clientIds, pick) => {
        const me = clientIds[pick % clientIds.length] ?? '';
        const before = [JSON.stringify(queues), JSON.stringify(clientIds)];
        const first = strategy.allocate('G', me, queues, clientIds);
        const second = strategy.allocate('G', me, structuredClone(queues), [...clientIds]);
        expect(second).toEqual(first);
        expect([JSON.stringify(queues), JSON.stringify(clientIds)]).toEqual(before);
      }),
    );
  });

  it('gives nothing to a client not in the list, and nothing when there are no queues', () => {
    fc.assert(
      fc.property(sortedQueues, sortedClientIds, (queues, clientIds) => {
        expect(strategy.allocate('G', 'not-a-member', queues, clientIds)).toEqual([]);
        expect(strategy.allocate('G', clientIds[0] ?? '', [], clientIds)).toEqual([]);
      }),
    );
  });
});
