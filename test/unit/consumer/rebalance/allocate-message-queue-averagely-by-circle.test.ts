import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { averagelyStrategy } from '../../../../src/consumer/rebalance/allocate-message-queue-averagely.js';
import {
  allocateMessageQueueAveragelyByCircle,
  averagelyByCircleStrategy,
} from '../../../../src/consumer/rebalance/allocate-message-queue-averagely-by-circle.js';
import type { MessageQueue } from '../../../../src/protocol/message-queue.js';

const queues = (n: number) => Array.from({ length: n }, (_, i) => `q${i}`);
const ids = (c: number) => Array.from({ length: c }, (_, i) => `c${i}`);

describe('allocateMessageQueueAveragelyByCircle', () => {
  // Java AllocateMessageQueueAveragelyByCircle: client at index k takes every queue i >= k with
  // i % clients == k. Checked against the Java 5.3.3 client for 8 queues / 3 clients.
  it.each([
    [
      8,
      3,
      [
        ['q0', 'q3', 'q6'],
        ['q1', 'q4', 'q7'],
        ['q2', 'q5'],
      ],
    ],
    [
      5,
      2,
      [
        ['q0', 'q2', 'q4'],
        ['q1', 'q3'],
      ],
    ],
    [2, 4, [['q0'], ['q1'], [], []]],
    [4, 1, [['q0', 'q1', 'q2', 'q3']]],
  ] as const)('%i queues over %i clients', (n, c, expected) => {
    const all = ids(c);
    expect(all.map((id) => allocateMessageQueueAveragelyByCircle(queues(n), all, id))).toEqual(expected);
  });

  it('gives nothing to a client that is not in the list', () => {
    expect(allocateMessageQueueAveragelyByCircle(queues(4), ['a', 'b'], 'z')).toEqual([]);
  });

  it('gives each client as many queues as AVG does, spread instead of contiguous', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 1, max: 20 }), (n, c) => {
        const all = ids(c);
        for (const id of all) {
          const circle = allocateMessageQueueAveragelyByCircle(queues(n), all, id);
          const index = all.indexOf(id);
          expect(circle.length).toBe(averagelyStrategy.allocate('G', id, mqs(n), all).length);
          expect(circle).toEqual(queues(n).filter((_q, i) => i % c === index));
        }
      }),
    );
  });

  it('is the AVG_BY_CIRCLE strategy', () => {
    const all = ids(3);
    expect(averagelyByCircleStrategy.name).toBe('AVG_BY_CIRCLE');
    expect(averagelyByCircleStrategy.allocate('G', 'c1', mqs(8), all).map((q) => q.queueId)).toEqual([
      1, 4, 7,
    ]);
  });
});

function mqs(n: number): MessageQueue[] {
  return Array.from({ length: n }, (_, queueId) => ({ topic: 'T', brokerName: 'b', queueId }));
}
