import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createConsistentHashStrategy } from '../../../../src/consumer/rebalance/allocate-message-queue-consistent-hash.js';
import { RocketMQError } from '../../../../src/errors.js';
import { type MessageQueue, messageQueueKey } from '../../../../src/protocol/message-queue.js';
import { sortedClientIds, sortedQueues } from './allocation-arbitraries.js';

const queue = (brokerName: string, queueId: number): MessageQueue => ({
  topic: 'TopicTest',
  brokerName,
  queueId,
});
const label = (q: MessageQueue) => `${q.brokerName.slice(-1)}${q.queueId}`;

describe('createConsistentHashStrategy', () => {
  it('allocates what Java 5.3.3 AllocateMessageQueueConsistentHash (10 virtual nodes) allocates', () => {
    // Recorded by running the Java 5.3.3 client's strategy on these sorted inputs: MD5 ring points
    // `<clientId>-<i>`, queues hashed by MessageQueue.toString().
    const queues = ['broker-a', 'broker-b'].flatMap((brokerName) =>
      [0, 1, 2, 3].map((i) => queue(brokerName, i)),
    );
    const clientIds = ['10.0.0.1@1', '10.0.0.2@2', '10.0.0.3@3'];
    const strategy = createConsistentHashStrategy();
    expect(strategy.name).toBe('CONSISTENT_HASH');
    expect(clientIds.map((id) => strategy.allocate('G', id, queues, clientIds).map(label))).toEqual([
      ['a1', 'a2', 'b1', 'b3'],
      ['b2'],
      ['a0', 'a3', 'b0'],
    ]);
  });

  it('moves only the leaving client’s queues when a client leaves', () => {
    const strategy = createConsistentHashStrategy();
    fc.assert(
      fc.property(sortedQueues, sortedClientIds, fc.nat(), (queues, clientIds, pick) => {
        if (clientIds.length < 2) return;
        const leaving = clientIds[pick % clientIds.length] ?? '';
        const remaining = clientIds.filter((id) => id !== leaving);
        for (const id of remaining) {
          const before = strategy.allocate('G', id, queues, clientIds).map(messageQueueKey);
          const after = new Set(strategy.allocate('G', id, queues, remaining).map(messageQueueKey));
          for (const key of before) expect(after.has(key)).toBe(true);
        }
      }),
    );
  });

  it.each([0, -1, 1.5, Number.NaN, 1001])('refuses virtualNodes %s (permanent)', (virtualNodes) => {
    expect(() => createConsistentHashStrategy({ virtualNodes })).toThrow(
      expect.objectContaining({ permanent: true, constructor: RocketMQError }),
    );
  });
});
