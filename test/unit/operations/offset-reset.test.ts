/**
 * The offset reset of the operations layer, with a fake broker and in-memory stores: whether a store
 * takes a reset while pollers run is asked of its capabilities (offset-store.ts `canReset`), not of its
 * class, and each refusal is an OperationError of the kind a caller maps to its answer. The apply goes
 * queue by queue: an abort stops it after the queue in flight, the store write is each queue's commit
 * point (a broker copy to lower goes first), and a rerun writes only what is missing.
 */
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import { canReset, type OffsetStore, type StoredOffsetRecord } from '../../../src/offsets/offset-store.js';
import {
  applyOffsetReset,
  checkOffsetResetSafe,
  type OffsetResetTarget,
  planOffsetReset,
} from '../../../src/operations/offset-reset.js';
import { OperationError } from '../../../src/operations/operation-error.js';
import type { TargetMapping } from '../../../src/operations/target.js';
import { messageQueueKey } from '../../../src/protocol/message-queue.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';
import { PermName, type TopicRouteData } from '../../../src/protocol/route-data.js';

const MASTER = '10.0.0.5:10911';
const mapping: TargetMapping = {
  name: 'orders',
  topic: 'Orders',
  consumerGroup: 'orders-fn',
  messageModel: 'CLUSTERING',
  startingPosition: 'TRIM_HORIZON',
  startingPositionTimestampMs: undefined,
  offsetStoreKind: 'file',
  consumeMode: 'PUSH',
};
const route: TopicRouteData = {
  brokerDatas: [{ cluster: 'c', brokerName: 'broker-a', brokerAddrs: new Map([[0, MASTER]]) }],
  queueDatas: [
    {
      brokerName: 'broker-a',
      readQueueNums: 2,
      writeQueueNums: 2,
      perm: PermName.READ | PermName.WRITE,
      topicSysFlag: 0,
    },
  ],
};

/** A store of another class than DynamoDB's that has the reset capability (and remembers its resets). */
class SharedStore extends MemoryOffsetStore {
  readonly resets: [string, number][] = [];
  readonly records = new Map<string, StoredOffsetRecord>();
  /** Throws on the reset of this queue id (a store that refuses, or a process killed there). */
  failOn: number | undefined;
  /** Every write in order, with the broker's (fakeTarget's `writes`). */
  writes: string[] = [];
  async resetOffset(queue: { topic: string; brokerName: string; queueId: number }, offset: number) {
    if (queue.queueId === this.failOn) throw new Error('store unavailable');
    this.resets.push([messageQueueKey(queue), offset]);
    this.writes.push(`store ${queue.queueId} -> ${offset}`);
    const generation = (this.records.get(messageQueueKey(queue))?.generation ?? -1) + 1;
    this.records.set(messageQueueKey(queue), {
      offset,
      generation,
      holder: undefined,
      released: true,
      updatedAtMs: undefined,
    });
    return undefined;
  }
  async listRecords(): Promise<Map<string, StoredOffsetRecord>> {
    return new Map(this.records);
  }
  commit(queueId: number, offset: number): void {
    this.records.set(messageQueueKey({ topic: 'Orders', brokerName: 'broker-a', queueId }), {
      offset,
      generation: 0,
      holder: undefined,
      released: true,
      updatedAtMs: undefined,
    });
  }
}

function fakeTarget(
  store: OffsetStore,
  pollers: readonly string[] = [],
  options: { queues?: number; brokerOffsets?: Map<number, number>; onUpdate?: () => void } = {},
) {
  const brokerCopies: [number, number][] = [];
  const brokerOffsets = options.brokerOffsets ?? new Map<number, number>();
  const queueRoute: TopicRouteData =
    options.queues === undefined
      ? route
      : {
          ...route,
          queueDatas: route.queueDatas.map((q) => ({
            ...q,
            readQueueNums: options.queues as number,
            writeQueueNums: options.queues as number,
          })),
        };
  const target: OffsetResetTarget = {
    client: {
      nameServer: { getRoute: async () => queueRoute },
      broker: {
        pullMessage: async () => Promise.reject(new Error('not read here')),
        getMinOffset: async () => 3,
        getMaxOffset: async () => 120,
        firstOffsetAtOrAfter: async () => 50,
        updateConsumerOffset: async (_address, header) => {
          brokerCopies.push([header.queueId, header.commitOffset]);
          brokerOffsets.set(header.queueId, header.commitOffset);
          if (store instanceof SharedStore)
            store.writes.push(`broker ${header.queueId} -> ${header.commitOffset}`);
          options.onUpdate?.();
        },
        queryConsumerOffsetAnswer: async (_address, header) => ({
          offset: brokerOffsets.get(header.queueId),
          brokerVersion: 0,
        }),
        getAllConsumerOffset: async () => Promise.reject(new Error('not asked: no ambiguous 0 here')),
        getConsumerListByGroup: async () => {
          if (pollers.length === 0) {
            throw new BrokerError({
              code: ResponseCode.SYSTEM_ERROR,
              requestCode: 0,
              address: MASTER,
              remark: 'none',
            });
          }
          return [...pollers];
        },
      },
    },
    offsetStore: () => store,
  };
  return { target, brokerCopies, brokerOffsets };
}

describe('offset reset (operations)', () => {
  it('resets through the capability of any store that has it, not through a class check', async () => {
    const store = new SharedStore();
    expect(canReset(store)).toBe(true);
    expect(canReset(new MemoryOffsetStore())).toBe(false);
    const { target, brokerCopies } = fakeTarget(store, ['a running poller']);
    const plan = await planOffsetReset(target, mapping, { kind: 'earliest' });
    expect(plan.steps.map((step) => step.after)).toEqual([3, 3]);
    // A store shared by the pollers takes the reset under them: no running-poller check refuses it.
    await checkOffsetResetSafe(target, plan);
    const result = await applyOffsetReset(target, plan);
    expect(store.resets).toEqual([
      ['Orders@broker-a@0', 3],
      ['Orders@broker-a@1', 3],
    ]);
    expect(brokerCopies).toEqual([
      [0, 3],
      [1, 3],
    ]);
    expect(result).toMatchObject({ reset: 2, adoptedByRunningPollers: true, brokerFailures: [] });
  });

  it('refuses a store without the capability while a poller of the group runs', async () => {
    const { target } = fakeTarget(new MemoryOffsetStore(), ['10.0.0.7@1#abc']);
    const plan = await planOffsetReset(
      target,
      mapping,
      { kind: 'offset', offset: 40 },
      { brokerName: undefined, queueId: 1 },
    );
    expect(plan.steps.map((step) => [step.queue.queueId, step.after])).toEqual([[1, 40]]);
    const refusal = await checkOffsetResetSafe(target, plan).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(OperationError);
    expect(refusal).toMatchObject({ kind: 'refused', message: expect.stringContaining('10.0.0.7@1#abc') });
  });

  it('corrects a store without the capability when no poller runs', async () => {
    const store = new MemoryOffsetStore();
    const { target } = fakeTarget(store);
    const plan = await planOffsetReset(target, mapping, { kind: 'time', timestampMs: 0 });
    await checkOffsetResetSafe(target, plan);
    const result = await applyOffsetReset(target, plan);
    expect(result).toMatchObject({ reset: 2, adoptedByRunningPollers: false, brokerFailures: [] });
    expect(await store.readOffset({ topic: 'Orders', brokerName: 'broker-a', queueId: 0 }, 'MEMORY')).toBe(
      50,
    );
  });

  it('says which kind of error each refusal is', async () => {
    const { target } = fakeTarget(new MemoryOffsetStore());
    const pop = await planOffsetReset(target, { ...mapping, consumeMode: 'POP' }, { kind: 'latest' }).catch(
      (error: unknown) => error,
    );
    expect(pop).toMatchObject({ kind: 'refused', message: expect.stringContaining('consumeMode POP') });
    const noQueue = await planOffsetReset(
      target,
      mapping,
      { kind: 'latest' },
      { brokerName: 'broker-b', queueId: 0 },
    ).catch((error: unknown) => error);
    expect(noQueue).toMatchObject({
      kind: 'invalid',
      message: 'no queue broker-b:0 in topic Orders; its queues: broker-a:0, broker-a:1',
    });
  });
});

describe('offset reset (operations): counting, interruption and reruns', () => {
  it('counts from the broker copy when it is ahead of the store, and from the starting position without either', async () => {
    const store = new SharedStore();
    store.commit(0, 100);
    const { target } = fakeTarget(store, [], { brokerOffsets: new Map([[0, 110]]) });
    const plan = await planOffsetReset(
      target,
      { ...mapping, startingPosition: 'LATEST' },
      { kind: 'offset', offset: 105 },
    );
    expect(
      plan.steps.map((s) => [
        s.queue.queueId,
        s.committed,
        s.brokerCommitted,
        s.from,
        s.redelivered,
        s.skipped,
      ]),
    ).toEqual([
      [0, 100, 110, 110, 5, 0],
      // Nothing committed, LATEST: a poller would start at the max offset (120).
      [1, undefined, undefined, 120, 15, 0],
    ]);
    const trim = await planOffsetReset(
      target,
      mapping,
      { kind: 'offset', offset: 105 },
      { brokerName: undefined, queueId: 1 },
    );
    // TRIM_HORIZON: from the min offset (3): moving to 105 skips 102.
    expect(trim.steps.map((s) => [s.from, s.skipped])).toEqual([[3, 102]]);
  });

  it('an abort stops after the queue in flight; a rerun reports moved queues already there and moves the rest', async () => {
    const store = new SharedStore();
    for (const id of [0, 1, 2, 3]) store.commit(id, 100);
    const controller = new AbortController();
    let updates = 0;
    const { target, brokerOffsets } = fakeTarget(store, [], {
      queues: 4,
      brokerOffsets: new Map([0, 1, 2, 3].map((id) => [id, 100])),
      // The signal arrives while the second queue is being written.
      onUpdate: () => {
        updates++;
        if (updates === 2) controller.abort();
      },
    });
    const plan = await planOffsetReset(target, mapping, { kind: 'offset', offset: 40 });
    const seen: string[] = [];
    const first = await applyOffsetReset(target, plan, {
      signal: controller.signal,
      onQueue: (o) => seen.push(`${o.queue.queueId} ${o.state}`),
    });
    expect(first.interrupted).toBe(true);
    expect(first.outcomes.map((o) => [o.queue.queueId, o.state])).toEqual([
      [0, 'moved'],
      [1, 'moved'], // finished although the signal came during it
      [2, 'not moved'],
      [3, 'not moved'],
    ]);
    expect(seen).toEqual(['0 moved', '1 moved']);
    // Backwards: each queue's broker copy is lowered before its store write (the commit point).
    expect(store.writes).toEqual(['broker 0 -> 40', 'store 0 -> 40', 'broker 1 -> 40', 'store 1 -> 40']);
    expect([...brokerOffsets.values()]).toEqual([40, 40, 100, 100]);

    const rerunPlan = await planOffsetReset(target, mapping, { kind: 'offset', offset: 40 });
    expect(rerunPlan.steps.map((s) => [s.alreadyThere, s.redelivered])).toEqual([
      [true, 0],
      [true, 0],
      [false, 60],
      [false, 60],
    ]);
    store.writes = [];
    const rerun = await applyOffsetReset(target, rerunPlan);
    expect(rerun).toMatchObject({ reset: 2, alreadyThere: 2, interrupted: false });
    expect(rerun.outcomes.map((o) => o.state)).toEqual(['already there', 'already there', 'moved', 'moved']);
    // No new generation for the queues already there: their pollers are not sent back again.
    expect(store.writes).toEqual(['broker 2 -> 40', 'store 2 -> 40', 'broker 3 -> 40', 'store 3 -> 40']);
    expect([...store.records.values()].map((r) => [r.offset, r.generation])).toEqual([
      [40, 1],
      [40, 1],
      [40, 1],
      [40, 1],
    ]);
  });

  it('a process that dies between the two writes of a queue leaves it resumable: the rerun writes only what is missing', async () => {
    const store = new SharedStore();
    store.commit(0, 100);
    store.commit(1, 100);
    const { target, brokerOffsets } = fakeTarget(store, [], {
      brokerOffsets: new Map([
        [0, 100],
        [1, 100],
      ]),
    });
    // Backwards, killed after the broker copy of queue 1 came down and before its store write.
    store.failOn = 1;
    const plan = await planOffsetReset(target, mapping, { kind: 'earliest' });
    const broken = await applyOffsetReset(target, plan);
    expect(broken.storeFailure).toMatch(/broker-a:1: .*store unavailable/);
    expect(broken.outcomes.map((o) => o.state)).toEqual(['moved', 'not moved']);
    expect(brokerOffsets.get(1)).toBe(3);
    // Queue 1 is where it was for a poller: the store's 100 is the higher offset.
    const between = await planOffsetReset(target, mapping, { kind: 'earliest' });
    expect(between.steps.map((s) => [s.from, s.alreadyThere, s.redelivered])).toEqual([
      [3, true, 0],
      [100, false, 97],
    ]);
    store.failOn = undefined;
    store.writes = [];
    const rerun = await applyOffsetReset(target, between);
    expect(rerun.outcomes.map((o) => o.state)).toEqual(['already there', 'moved']);
    expect(store.writes).toEqual(['store 1 -> 3']);

    // Forwards, the store moved and the broker copy not (killed between them): the store already wins,
    // so the rerun skips nothing more and only moves the broker's copy.
    store.writes = [];
    await store.resetOffset({ topic: 'Orders', brokerName: 'broker-a', queueId: 0 }, 120);
    const forward = await planOffsetReset(target, mapping, { kind: 'latest' });
    expect(forward.steps.map((s) => [s.from, s.skipped, s.alreadyThere])).toEqual([
      [120, 0, false],
      [3, 117, false],
    ]);
    store.writes = [];
    await applyOffsetReset(target, forward);
    // Forwards, the store write comes first and the broker's copy follows.
    expect(store.writes).toEqual(['broker 0 -> 120', 'store 1 -> 120', 'broker 1 -> 120']);
  });
});
