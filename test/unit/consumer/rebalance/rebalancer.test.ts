import { describe, expect, it } from 'vitest';
import type { QueueOwnershipHooks } from '../../../../src/consumer/consume/consume-service.js';
import type { ConsumerOptions } from '../../../../src/consumer/consumer-options.js';
import { averagelyByCircleStrategy } from '../../../../src/consumer/rebalance/allocate-message-queue-averagely-by-circle.js';
import type { AllocationStrategy } from '../../../../src/consumer/rebalance/allocation-strategy.js';
import { Rebalancer } from '../../../../src/consumer/rebalance/rebalancer.js';
import type { StartOffsetContext } from '../../../../src/consumer/rebalance/start-offset.js';
import { MemoryOffsetStore } from '../../../../src/offsets/memory-offset-store.js';
import type { MessageQueue } from '../../../../src/protocol/message-queue.js';
import { rootLogger } from '../../../../src/util/logger.js';
import { options } from '../fakes.js';

const q = (topic: string, queueId: number): MessageQueue => ({ topic, brokerName: 'b', queueId });

function setup(
  overrides: Partial<ConsumerOptions> = {},
  hooks?: QueueOwnershipHooks,
  allocationStrategy?: AllocationStrategy,
) {
  let clientIds = ['a', 'me'];
  const contexts: (StartOffsetContext | undefined)[] = [];
  const loops: { offset: number; stopped: boolean; queue: MessageQueue }[] = [];
  const offsetStore = new MemoryOffsetStore();
  const routes = {
    readableQueues: (topic: string) =>
      topic === 'T'
        ? [0, 1, 2, 3].map((i) => q('T', i))
        : topic === '%RETRY%G'
          ? [q('%RETRY%G', 0)]
          : undefined,
    anyBrokerAddress: () => 'master:10911',
  };
  const rebalancer = new Rebalancer({
    clientId: 'me',
    broker: { getConsumerListByGroup: async () => clientIds },
    routes,
    options: options(overrides),
    offsetStore,
    startOffsets: {
      startOffset: async (queue, context) => {
        contexts.push(context);
        return queue.topic === 'T' ? 100 + queue.queueId : 0;
      },
    },
    createPullLoop: (pq, offset) => {
      const loop = { offset, stopped: false, queue: pq.messageQueue };
      loops.push(loop);
      return {
        nextOffset: offset,
        progress: { lastProgressMs: Date.now(), lastError: undefined },
        start: () => undefined,
        stop: async () => {
          loop.stopped = true;
        },
      };
    },
    hooks,
    allocationStrategy,
    log: rootLogger,
  });
  const held = () => rebalancer.heldQueues().map((h) => `${h.queue.topic}#${h.queue.queueId}`);
  return { rebalancer, loops, offsetStore, held, contexts, setIds: (ids: string[]) => (clientIds = ids) };
}

describe('Rebalancer', () => {
  it('takes its average share of the topic and of the retry topic, starting at the computed offsets', async () => {
    const t = setup();
    await t.rebalancer.rebalance();
    expect(t.held()).toEqual(['T#2', 'T#3']); // 'a' < 'me': 'me' is second; the retry queue goes to 'a'
    expect(t.loops.map((l) => l.offset)).toEqual([102, 103]);
    expect(await t.offsetStore.readOffset(q('T', 2), 'MEMORY')).toBe(102);
  });

  it('tells the consume state its allocation: its share, the members, and since when it holds none of the topic', async () => {
    const t = setup();
    expect(t.rebalancer.allocationFacts()).toEqual({ allocation: undefined, holdingNoneSinceMs: undefined });
    await t.rebalancer.rebalance();
    expect(t.rebalancer.allocationFacts()).toEqual({
      allocation: { queues: 4, members: 2, listed: true, assigned: 2 },
      holdingNoneSinceMs: undefined,
    });
    // Five members for four queues: 'me' sorts last and is the standby.
    t.setIds(['a', 'b', 'c', 'd', 'me']);
    const before = Date.now();
    await t.rebalancer.rebalance();
    const standby = t.rebalancer.allocationFacts();
    expect(standby.allocation).toEqual({ queues: 4, members: 5, listed: true, assigned: 0 });
    expect(standby.holdingNoneSinceMs).toBeGreaterThanOrEqual(before);
    // Still none at the next rebalance: the time it began is kept.
    await t.rebalancer.rebalance();
    expect(t.rebalancer.allocationFacts().holdingNoneSinceMs).toBe(standby.holdingNoneSinceMs);
    t.setIds(['a', 'b']);
    await t.rebalancer.rebalance();
    expect(t.rebalancer.allocationFacts()).toEqual({
      allocation: { queues: 4, members: 2, listed: false, assigned: 0 },
      holdingNoneSinceMs: standby.holdingNoneSinceMs,
    });
  });

  it('drops queues taken away (loop stopped, offset persisted and forgotten) and adds new ones', async () => {
    const t = setup();
    await t.rebalancer.rebalance();
    const [first] = t.rebalancer.heldQueues();
    t.offsetStore.updateOffset(q('T', 2), 150, true);
    t.setIds(['me', 'z']);
    await t.rebalancer.rebalance();
    expect(t.held().sort()).toEqual(['%RETRY%G#0', 'T#0', 'T#1']);
    expect(first?.processQueue.dropped).toBe(true);
    expect(t.loops.filter((l) => l.stopped).map((l) => l.queue.queueId)).toEqual([2, 3]);
    expect(await t.offsetStore.readOffset(q('T', 2), 'MEMORY')).toBe(-1);
  });

  it('hands a queue over: no new batch of it starts, the one in flight finishes and moves the offset, then it is released', async () => {
    const t = setup({ handOverTimeoutMs: 5000 });
    await t.rebalancer.rebalance();
    const leaving = t.rebalancer.heldQueues().find((h) => h.queue.topic === 'T' && h.queue.queueId === 3);
    if (leaving === undefined) throw new Error('T#3 not held');
    const pq = leaving.processQueue;
    pq.batchStarted(); // a batch of T#3 is being consumed
    const released: string[] = [];
    const release = t.offsetStore.release.bind(t.offsetStore);
    t.offsetStore.release = async (queues) => {
      released.push(
        ...queues.map(
          (queue) => `${queue.topic}#${queue.queueId}@${t.offsetStore.isDirty(queue) ? 'dirty' : 'clean'}`,
        ),
      );
      await release(queues);
    };
    t.setIds(['me', 'z']); // 'me' now gets T#0 and T#1: T#2 and T#3 go
    const rebalancing = t.rebalancer.rebalance();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pq.draining).toBe(true);
    expect(pq.dropped).toBe(false); // still waiting for the batch
    expect(released.map((entry) => entry.split('@')[0])).toEqual(['T#2']); // nothing in flight: released at once
    t.offsetStore.updateOffset(leaving.queue, 180, true); // the batch commits while draining
    pq.batchFinished();
    await rebalancing;
    expect(pq.dropped).toBe(true);
    expect(released).toContain('T#3@dirty');
    expect(t.held().sort()).toEqual(['%RETRY%G#0', 'T#0', 'T#1']);
  });

  it('divides the queues with the given strategy, passing the group, sorted queues and sorted ids', async () => {
    const calls: { group: string; me: string; queues: number; ids: readonly string[] }[] = [];
    const spy: AllocationStrategy = {
      name: 'SPY',
      allocate: (group, me, queues, ids) => {
        calls.push({ group, me, queues: queues.length, ids });
        return averagelyByCircleStrategy.allocate(group, me, queues, ids);
      },
    };
    const t = setup({}, undefined, spy);
    t.setIds(['me', 'a']);
    await t.rebalancer.rebalance();
    expect(t.held()).toEqual(['T#1', 'T#3']); // by circle: 'a' takes T#0 and T#2 (AVG would give 'me' T#2, T#3)
    expect(calls).toEqual([
      { group: 'G', me: 'me', queues: 4, ids: ['a', 'me'] },
      { group: 'G', me: 'me', queues: 1, ids: ['a', 'me'] },
    ]);
  });

  it('gives the start offset resolver the consumer list, to wait for a holder still in the group', async () => {
    const t = setup();
    t.setIds(['a', 'me', 'zz']);
    await t.rebalancer.rebalance();
    const context = t.contexts[0];
    expect([...(context?.members ?? [])]).toEqual(['a', 'me', 'zz']);
    expect(context?.cancelled?.()).toBe(false);
  });

  it('broadcasting holds every queue of the topic and no retry queue, without asking for the consumer list', async () => {
    const t = setup({ messageModel: 'BROADCASTING' });
    t.setIds([]);
    await t.rebalancer.rebalance();
    expect(t.held()).toEqual(['T#0', 'T#1', 'T#2', 'T#3']);
  });

  it('skips a queue whose add hook refuses (orderly lock) and calls the drop hook on removal', async () => {
    const events: string[] = [];
    const hooks: QueueOwnershipHooks = {
      beforeAdd: async (queue) => {
        events.push(`lock ${queue.queueId}`);
        return queue.queueId !== 3;
      },
      afterDrop: async (queue) => {
        events.push(`unlock ${queue.queueId}`);
      },
    };
    const t = setup({}, hooks);
    await t.rebalancer.rebalance();
    expect(t.held()).toEqual(['T#2']);
    await t.rebalancer.stopPulling();
    await t.rebalancer.releaseAll();
    expect(events).toEqual(['lock 2', 'lock 3', 'unlock 2']);
    expect(t.held()).toEqual([]);
  });

  it('resetQueue replaces a dropped ProcessQueue and restarts at the given offset', async () => {
    const t = setup();
    await t.rebalancer.rebalance();
    const old = t.rebalancer.heldQueues()[0];
    if (old === undefined) throw new Error('nothing held');
    old.processQueue.dropped = true;
    await t.rebalancer.resetQueue(old.queue, 7);
    const replaced = t.rebalancer.heldQueues().find((h) => h.queue.queueId === old.queue.queueId);
    expect(replaced?.processQueue).not.toBe(old.processQueue);
    expect(replaced?.loop.nextOffset).toBe(7);
  });

  it('a store reset drops the old ProcessQueue at once, before the restart waits its turn', async () => {
    const t = setup();
    await t.rebalancer.rebalance();
    const old = t.rebalancer.heldQueues()[0];
    if (old === undefined) throw new Error('nothing held');
    expect(old.processQueue.dropped).toBe(false);
    const restart = t.rebalancer.resetQueue(old.queue, 3, true);
    // A batch finishing now sees the queue dropped and does not raise the offset in the new generation.
    expect(old.processQueue.dropped).toBe(true);
    await restart;
    const replaced = t.rebalancer.heldQueues().find((h) => h.queue.queueId === old.queue.queueId);
    expect(replaced?.processQueue).not.toBe(old.processQueue);
    expect(replaced?.processQueue.dropped).toBe(false);
    expect(replaced?.loop.nextOffset).toBe(3);
  });
});
