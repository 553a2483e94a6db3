import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RocketMQError } from '../../../src/errors.js';
import {
  consumedOffsetOf,
  measureQueueLag,
  popLag,
  type QueueLag,
  summarizeLag,
} from '../../../src/metrics/queue-lag.js';
import type { MessageQueue } from '../../../src/protocol/message-queue.js';

const MAPPING = { name: 'orders', consumerGroup: 'orders-fn', topic: 'Orders' };

const queue = (queueId: number, topic = 'Orders'): MessageQueue => ({ topic, brokerName: 'b', queueId });

function held(
  queueId: number,
  offsets: { committed?: number; cachedMin?: number; nextPull?: number } = {},
  topic = 'Orders',
) {
  return {
    queue: queue(queueId, topic),
    committedOffset: offsets.committed ?? -1,
    cachedMinOffset: offsets.cachedMin,
    nextPullOffset: offsets.nextPull ?? -1,
  };
}

/** A max-offset lookup from a table keyed by queue id. */
const maxOffsets =
  (table: Record<number, number>) =>
  async (q: MessageQueue): Promise<number> => {
    const max = table[q.queueId];
    if (max === undefined) throw new Error(`no max offset scripted for queue ${q.queueId}`);
    return max;
  };

function lagOf(queueId: number, lag: number | undefined): QueueLag {
  return {
    queue: queue(queueId),
    retry: false,
    maxOffset: lag === undefined ? undefined : 100,
    consumedOffset: lag === undefined ? undefined : 100 - lag,
    lag,
    error: lag === undefined ? 'broker down' : undefined,
  };
}

describe('consumedOffsetOf', () => {
  it.each([
    ['committed wins over the buffer and the pull position', { c: 5, m: 2, n: 9 }, 5],
    ['a committed 0 is a position (≥ 0), not "none"', { c: 0, m: 3, n: 9 }, 0],
    ['no commit yet: the smallest buffered offset', { c: -1, m: 40, n: 72 }, 40],
    ['a buffered 0 counts', { c: -1, m: 0, n: 72 }, 0],
    ['nothing buffered: the next pull offset', { c: -1, m: undefined, n: 72 }, 72],
    ['a negative buffered offset is skipped', { c: -1, m: -1, n: 72 }, 72],
    ['a next pull offset of 0 counts', { c: -1, m: undefined, n: 0 }, 0],
    ['nothing known', { c: -1, m: undefined, n: -1 }, undefined],
  ])('%s', (_, { c, m, n }, expected) => {
    expect(consumedOffsetOf({ committedOffset: c, cachedMinOffset: m, nextPullOffset: n })).toBe(expected);
  });
});

describe('measureQueueLag', () => {
  it('lag = max offset − consumed offset, per queue, in the order given', async () => {
    const lags = await measureQueueLag(
      [
        held(0, { committed: 100, nextPull: 110 }),
        held(1, { cachedMin: 40, nextPull: 72 }),
        held(2, { nextPull: 7 }),
      ],
      maxOffsets({ 0: 120, 1: 50, 2: 7 }),
    );
    expect(lags).toEqual([
      { queue: queue(0), retry: false, maxOffset: 120, consumedOffset: 100, lag: 20, error: undefined },
      { queue: queue(1), retry: false, maxOffset: 50, consumedOffset: 40, lag: 10, error: undefined },
      { queue: queue(2), retry: false, maxOffset: 7, consumedOffset: 7, lag: 0, error: undefined },
    ]);
  });

  it('is never negative (a max offset behind the consumed offset gives 0)', async () => {
    const [lag] = await measureQueueLag([held(0, { committed: 130 })], maxOffsets({ 0: 120 }));
    expect(lag).toMatchObject({ maxOffset: 120, consumedOffset: 130, lag: 0, error: undefined });
  });

  it('flags %RETRY% queues as retry', async () => {
    const lags = await measureQueueLag(
      [held(0, { committed: 1 }), held(0, { committed: 1 }, '%RETRY%orders-fn')],
      async () => 4,
    );
    expect(lags.map((l) => [l.queue.topic, l.retry, l.lag])).toEqual([
      ['Orders', false, 3],
      ['%RETRY%orders-fn', true, 3],
    ]);
  });

  it('a rejected max-offset query leaves the lag undefined with the error message; the others are measured', async () => {
    const lags = await measureQueueLag(
      [held(0, { committed: 10 }), held(1, { committed: 10 })],
      async (q) => {
        if (q.queueId === 0) throw new RocketMQError('connect ECONNREFUSED 127.0.0.1:10911');
        return 15;
      },
    );
    expect(lags[0]).toEqual({
      queue: queue(0),
      retry: false,
      maxOffset: undefined,
      consumedOffset: 10,
      lag: undefined,
      error: 'connect ECONNREFUSED 127.0.0.1:10911',
    });
    expect(lags[1]).toMatchObject({ lag: 5, error: undefined });
  });

  it('a rejection with a non-Error keeps its text', async () => {
    const [lag] = await measureQueueLag([held(0, { committed: 1 })], () => Promise.reject('timeout'));
    expect(lag).toMatchObject({ lag: undefined, error: 'timeout' });
  });

  it('an unknown start offset leaves the lag undefined and says why, keeping the max offset', async () => {
    const [lag] = await measureQueueLag([held(0)], maxOffsets({ 0: 99 }));
    expect(lag).toEqual({
      queue: queue(0),
      retry: false,
      maxOffset: 99,
      consumedOffset: undefined,
      lag: undefined,
      error: 'the start offset is not resolved yet',
    });
  });

  it('asks once per queue, all at once (no query waits for another)', async () => {
    const asked: number[] = [];
    const pending: ((max: number) => void)[] = [];
    const measuring = measureQueueLag([held(0, { committed: 0 }), held(1, { committed: 0 })], (q) => {
      asked.push(q.queueId);
      return new Promise<number>((resolve) => pending.push(resolve));
    });
    await Promise.resolve();
    expect(asked).toEqual([0, 1]);
    for (const resolve of pending) resolve(3);
    expect((await measuring).map((l) => l.lag)).toEqual([3, 3]);
  });

  it('no queues: no queries, no lags', async () => {
    expect(await measureQueueLag([], maxOffsets({}))).toEqual([]);
  });
});

describe('summarizeLag', () => {
  it('sums the measured lags (retry queues included) and counts the unknown ones', () => {
    const retry: QueueLag = { ...lagOf(0, 4), queue: queue(0, '%RETRY%orders-fn'), retry: true };
    const queues = [lagOf(0, 20), lagOf(1, undefined), lagOf(2, 0), retry, lagOf(3, undefined)];
    expect(summarizeLag(MAPPING, queues)).toEqual({
      ...MAPPING,
      queues,
      total: 24,
      sharedBy: 1,
      unknownQueues: 2,
    });
  });

  it('holding no queue is a lag of 0 with nothing unknown', () => {
    expect(summarizeLag(MAPPING, [])).toEqual({
      ...MAPPING,
      queues: [],
      total: 0,
      sharedBy: 1,
      unknownQueues: 0,
    });
  });

  it('all unknown: total 0, every queue unknown', () => {
    const summary = summarizeLag(MAPPING, [lagOf(0, undefined), lagOf(1, undefined)]);
    expect(summary).toMatchObject({ total: 0, unknownQueues: 2 });
  });

  it('property: total is the sum of the measured lags; unknown + measured = queues', async () => {
    const queueArb = fc.record({
      committed: fc.integer({ min: -1, max: 1000 }),
      cachedMin: fc.option(fc.integer({ min: -1, max: 1000 }), { nil: undefined }),
      nextPull: fc.integer({ min: -1, max: 1000 }),
      max: fc.option(fc.integer({ min: 0, max: 2000 }), { nil: undefined }),
      retry: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(queueArb, { maxLength: 20 }), async (specs) => {
        const statuses = specs.map((spec, i) =>
          held(
            i,
            { committed: spec.committed, cachedMin: spec.cachedMin, nextPull: spec.nextPull },
            spec.retry ? '%RETRY%orders-fn' : 'Orders',
          ),
        );
        const lags = await measureQueueLag(statuses, async (q) => {
          const max = specs[q.queueId]?.max;
          if (max === undefined) throw new Error('unreachable');
          return max;
        });
        const summary = summarizeLag(MAPPING, lags);
        const measured = lags.flatMap((l) => (l.lag === undefined ? [] : [l.lag]));
        expect(summary.total).toBe(measured.reduce((sum, lag) => sum + lag, 0));
        expect(summary.unknownQueues + measured.length).toBe(specs.length);
        expect(summary.queues).toBe(lags);
        for (const [i, lag] of lags.entries()) {
          expect(lag.retry).toBe(specs[i]?.retry);
          if (lag.lag !== undefined) {
            expect(lag.lag).toBeGreaterThanOrEqual(0);
            expect(lag.error).toBeUndefined();
          } else {
            expect(lag.error).toEqual(expect.any(String));
          }
        }
      }),
    );
  });
});

describe('popLag', () => {
  const backlogOf = (
    queues: { max: number | undefined; consumed: number | undefined }[],
    pollers: number,
  ) => ({
    pollers,
    queues: queues.map(({ max, consumed }, queueId) => ({
      queue: queue(queueId),
      maxOffset: max,
      consumedOffset: consumed,
      error: max === undefined || consumed === undefined ? 'broker down' : undefined,
    })),
  });

  it("is the group's backlog per queue, and the poller's share of it as the total (rounded up)", () => {
    const lag = popLag(
      MAPPING,
      backlogOf(
        [
          { max: 100, consumed: 40 },
          { max: 50, consumed: 50 },
          { max: 7, consumed: 0 },
        ],
        3,
      ),
    );
    expect(lag.queues.map((q) => q.lag)).toEqual([60, 0, 7]);
    expect(lag).toMatchObject({ total: 23, sharedBy: 3, unknownQueues: 0 });
  });

  it('leaves an unreadable queue unknown and never reports a negative lag', () => {
    const lag = popLag(
      MAPPING,
      backlogOf(
        [
          { max: undefined, consumed: undefined },
          { max: 10, consumed: 12 },
        ],
        1,
      ),
    );
    expect(lag.queues.map((q) => [q.lag, q.error])).toEqual([
      [undefined, 'broker down'],
      [0, undefined],
    ]);
    expect(lag).toMatchObject({ total: 0, sharedBy: 1, unknownQueues: 1 });
  });

  it('property: the shares of all pollers cover the backlog and none is more than one message over', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 16 }),
        fc.integer({ min: 1, max: 64 }),
        (backlogs, pollers) => {
          const lag = popLag(
            MAPPING,
            backlogOf(
              backlogs.map((b) => ({ max: b, consumed: 0 })),
              pollers,
            ),
          );
          const backlog = backlogs.reduce((sum, b) => sum + b, 0);
          expect(lag.total * pollers).toBeGreaterThanOrEqual(backlog);
          expect((lag.total - 1) * pollers).toBeLessThan(backlog);
        },
      ),
    );
  });
});
