import { describe, expect, it } from 'vitest';
import type { QueueOwnershipHooks } from '../../../src/consumer/consume-service.js';
import type { ConsumerOptions } from '../../../src/consumer/consumer-options.js';
import { Rebalancer } from '../../../src/consumer/rebalancer.js';
import { StartOffsetResolver } from '../../../src/consumer/start-offset.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import type { MessageQueue } from '../../../src/protocol/message-queue.js';
import { rootLogger } from '../../../src/util/logger.js';
import { options } from './fakes.js';

const q = (topic: string, queueId: number): MessageQueue => ({ topic, brokerName: 'b', queueId });

function setup(overrides: Partial<ConsumerOptions> = {}, hooks?: QueueOwnershipHooks) {
  let clientIds = ['a', 'me'];
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
    startOffsets: { startOffset: async (queue) => (queue.topic === 'T' ? 100 + queue.queueId : 0) },
    createPullLoop: (pq, offset) => {
      const loop = { offset, stopped: false, queue: pq.messageQueue };
      loops.push(loop);
      return {
        nextOffset: offset,
        start: () => undefined,
        stop: async () => {
          loop.stopped = true;
        },
      };
    },
    hooks,
    log: rootLogger,
  });
  const held = () => rebalancer.heldQueues().map((h) => `${h.queue.topic}#${h.queue.queueId}`);
  return { rebalancer, loops, offsetStore, held, setIds: (ids: string[]) => (clientIds = ids) };
}

describe('Rebalancer', () => {
  it('takes its average share of the topic and of the retry topic, starting at the computed offsets', async () => {
    const t = setup();
    await t.rebalancer.rebalance();
    expect(t.held()).toEqual(['T#2', 'T#3']); // 'a' < 'me': 'me' is second; the retry queue goes to 'a'
    expect(t.loops.map((l) => l.offset)).toEqual([102, 103]);
    expect(await t.offsetStore.readOffset(q('T', 2), 'MEMORY')).toBe(102);
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
});

describe('StartOffsetResolver', () => {
  const broker = {
    getMaxOffset: async () => 50,
    getMinOffset: async () => 5,
    searchOffsetByTimestamp: async (_a: string, h: { timestamp: number }) => h.timestamp / 1000,
  };
  const resolver = (
    startingPosition: 'LATEST' | 'TRIM_HORIZON' | 'AT_TIMESTAMP',
    store = new MemoryOffsetStore(),
  ) =>
    new StartOffsetResolver({
      offsetStore: store,
      broker,
      masterAddress: () => 'm:1',
      startingPosition,
      startingPositionTimestamp: 9000,
      retryTopic: '%RETRY%G',
    });

  it('follows doc 11.6', async () => {
    expect(await resolver('LATEST').startOffset(q('T', 0))).toBe(50);
    expect(await resolver('LATEST').startOffset(q('%RETRY%G', 0))).toBe(0);
    expect(await resolver('TRIM_HORIZON').startOffset(q('T', 0))).toBe(5);
    expect(await resolver('TRIM_HORIZON').startOffset(q('%RETRY%G', 0))).toBe(0);
    expect(await resolver('AT_TIMESTAMP').startOffset(q('T', 0))).toBe(9);
    expect(await resolver('AT_TIMESTAMP').startOffset(q('%RETRY%G', 0))).toBe(50);
  });

  it('prefers the stored offset', async () => {
    const store = new MemoryOffsetStore();
    store.updateOffset(q('T', 0), 33, true);
    expect(await resolver('LATEST', store).startOffset(q('T', 0))).toBe(33);
  });
});
