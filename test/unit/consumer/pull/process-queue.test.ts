import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProcessQueue } from '../../../../src/consumer/pull/process-queue.js';
import type { MessageExt } from '../../../../src/protocol/message.js';
import { msg as fakeMessage } from '../fakes.js';

const mq = { topic: 'T', brokerName: 'b', queueId: 0 };

function msg(queueOffset: number, bodyBytes = 10, properties: Record<string, string> = {}): MessageExt {
  return fakeMessage(queueOffset, { bodyBytes, properties });
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => msg(from + i));

describe('ProcessQueue', () => {
  it('counts messages and bytes, ignores duplicates, and reports maxSpan', () => {
    const pq = new ProcessQueue(mq);
    const { added } = pq.putMessages([msg(5, 3), msg(6, 4), msg(9, 5)]);
    expect(added.map((m) => m.queueOffset)).toEqual([5, 6, 9]);
    expect(pq.putMessages([msg(6, 4)]).added).toEqual([]);
    expect(pq.messageCount).toBe(3);
    expect(pq.messageBytes).toBe(12);
    expect(pq.maxSpan).toBe(4);
    expect(pq.maxOffsetPut).toBe(9);
  });

  it('removeMessages returns the smallest unfinished offset, or max + 1 when empty, or -1 if it was empty', () => {
    const pq = new ProcessQueue(mq);
    expect(pq.removeMessages([msg(0)])).toBe(-1);
    pq.putMessages(range(10, 15));
    expect(pq.removeMessages([msg(11), msg(12)])).toBe(10);
    expect(pq.removeMessages([msg(10)])).toBe(13);
    expect(pq.removeMessages([msg(13), msg(14)])).toBe(15);
    expect(pq.messageCount).toBe(0);
    expect(pq.messageBytes).toBe(0);
    expect(pq.removeMessages([msg(14)])).toBe(-1);
  });

  it('computes msgAccCnt from the last message MAX_OFFSET property', () => {
    const pq = new ProcessQueue(mq);
    pq.putMessages([msg(1), msg(2, 1, { MAX_OFFSET: '10' })]);
    expect(pq.msgAccCnt).toBe(8);
  });

  it('reports the first message as expired only after its consume started long enough ago', () => {
    let now = 1_000;
    const pq = new ProcessQueue(mq, { now: () => now });
    pq.putMessages(range(0, 3));
    expect(pq.firstExpiredMessage(100)).toBeUndefined();
    pq.markConsumeStartedAt(0);
    pq.markConsumeStartedAt(1);
    now += 100;
    expect(pq.firstExpiredMessage(100)).toBeUndefined();
    now += 1;
    expect(pq.firstExpiredMessage(100)?.queueOffset).toBe(0);
  });

  it('orderly: take, commit, rollback and makeMessageToConsumeAgain', () => {
    const pq = new ProcessQueue(mq);
    expect(pq.putMessages(range(0, 5)).dispatchToConsume).toBe(true);
    expect(pq.putMessages(range(5, 6)).dispatchToConsume).toBe(false);
    expect(pq.takeMessages(2).map((m) => m.queueOffset)).toEqual([0, 1]);
    expect(pq.maxSpan).toBe(3); // 2..5 waiting
    pq.rollback();
    expect(pq.firstOffset()).toBe(0);
    expect(pq.takeMessages(3).map((m) => m.queueOffset)).toEqual([0, 1, 2]);
    pq.makeMessageToConsumeAgain([msg(1), msg(2)]);
    expect(pq.commit()).toBe(1);
    expect(pq.messageCount).toBe(5);
    expect(pq.takeMessages(10).map((m) => m.queueOffset)).toEqual([1, 2, 3, 4, 5]);
    expect(pq.commit()).toBe(6);
    expect(pq.messageCount).toBe(0);
    expect(pq.commit()).toBe(-1);
    expect(pq.takeMessages(1)).toEqual([]);
    expect(pq.consuming).toBe(false);
  });

  it('tracks lock and pull expiry', () => {
    let now = 0;
    const pq = new ProcessQueue(mq, { now: () => now });
    pq.markLocked();
    now = 30_001;
    expect(pq.locked).toBe(true);
    expect(pq.isLockExpired()).toBe(true);
    expect(pq.isPullExpired()).toBe(false);
    now = 120_001;
    expect(pq.isPullExpired()).toBe(true);
  });

  it('never commits past the smallest unfinished offset (at-least-once), for random put/remove sequences', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ put: fc.integer({ min: 1, max: 40 }) }),
            fc.record({ remove: fc.array(fc.nat({ max: 200 }), { maxLength: 30 }) }),
          ),
          { maxLength: 60 },
        ),
        (ops) => {
          const pq = new ProcessQueue(mq);
          let nextOffset = 0;
          const unfinished = new Set<number>();
          for (const op of ops) {
            if ('put' in op) {
              const batch = range(nextOffset, nextOffset + op.put);
              nextOffset += op.put;
              pq.putMessages(batch);
              for (const m of batch) unfinished.add(m.queueOffset);
            } else {
              const offsets = op.remove.map((i) => i % Math.max(1, nextOffset));
              const commit = pq.removeMessages(offsets.map((o) => ({ queueOffset: o })));
              for (const o of offsets) unfinished.delete(o);
              if (commit >= 0) {
                const smallest = unfinished.size === 0 ? nextOffset : Math.min(...unfinished);
                expect(commit).toBe(smallest);
              }
              expect(pq.messageCount).toBe(unfinished.size);
            }
          }
        },
      ),
    );
  });
});
