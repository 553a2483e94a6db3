import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allocateMessageQueueAveragely,
  averagelyStrategy,
} from '../../../../src/consumer/rebalance/allocate-message-queue-averagely.js';

const queues = (n: number) => Array.from({ length: n }, (_, i) => `q${i}`);
const ids = (c: number) => Array.from({ length: c }, (_, i) => `c${i}`);

describe('allocateMessageQueueAveragely', () => {
  it.each([
    // n, c, expected slices per client (AllocateMessageQueueAveragely's contiguous slices)
    [
      8,
      2,
      [
        ['q0', 'q1', 'q2', 'q3'],
        ['q4', 'q5', 'q6', 'q7'],
      ],
    ],
    [
      8,
      3,
      [
        ['q0', 'q1', 'q2'],
        ['q3', 'q4', 'q5'],
        ['q6', 'q7'],
      ],
    ],
    [
      10,
      4,
      [
        ['q0', 'q1', 'q2'],
        ['q3', 'q4', 'q5'],
        ['q6', 'q7'],
        ['q8', 'q9'],
      ],
    ],
    [3, 5, [['q0'], ['q1'], ['q2'], [], []]],
    [4, 4, [['q0'], ['q1'], ['q2'], ['q3']]],
    [1, 2, [['q0'], []]],
  ] as const)('%i queues over %i clients', (n, c, expected) => {
    const all = ids(c);
    expect(all.map((id) => allocateMessageQueueAveragely(queues(n), all, id))).toEqual(expected);
  });

  it('is the AVG strategy (8 queues over 3 clients: 3, 3, 2 as Java 5.3.3 allocates them)', () => {
    const mqs = Array.from({ length: 8 }, (_, queueId) => ({ topic: 'T', brokerName: 'b', queueId }));
    const all = ids(3);
    expect(averagelyStrategy.name).toBe('AVG');
    expect(all.map((id) => averagelyStrategy.allocate('G', id, mqs, all).map((q) => q.queueId))).toEqual([
      [0, 1, 2],
      [3, 4, 5],
      [6, 7],
    ]);
  });

  it('gives nothing to a client that is not in the list', () => {
    expect(allocateMessageQueueAveragely(queues(4), ['a', 'b'], 'z')).toEqual([]);
  });

  it('gives nothing when there are no queues', () => {
    expect(allocateMessageQueueAveragely([], ['a'], 'a')).toEqual([]);
  });

  it('allocates every queue exactly once, sizes differing by at most one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 1, max: 20 }), (n, c) => {
        const all = ids(c);
        const slices = all.map((id) => allocateMessageQueueAveragely(queues(n), all, id));
        expect(slices.flat().sort()).toEqual(queues(n).sort());
        const sizes = slices.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
  });
});
