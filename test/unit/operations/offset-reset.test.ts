/**
 * The offset reset of the operations layer, with a fake broker and in-memory stores: whether a store
 * takes a reset while pollers run is asked of its capabilities (offset-store.ts `canReset`), not of its
 * class, and each refusal is an OperationError of the kind a caller maps to its answer.
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

/** A store of another class than DynamoDB's that has the reset capability. */
class SharedStore extends MemoryOffsetStore {
  readonly resets: [string, number][] = [];
  async resetOffset(queue: { topic: string; brokerName: string; queueId: number }, offset: number) {
    this.resets.push([messageQueueKey(queue), offset]);
    return undefined;
  }
  async listRecords(): Promise<Map<string, StoredOffsetRecord>> {
    return new Map();
  }
}

function fakeTarget(store: OffsetStore, pollers: readonly string[] = []) {
  const brokerCopies: [number, number][] = [];
  const target: OffsetResetTarget = {
    client: {
      nameServer: { getRoute: async () => route },
      broker: {
        pullMessage: async () => Promise.reject(new Error('not read here')),
        getMinOffset: async () => 3,
        getMaxOffset: async () => 120,
        firstOffsetAtOrAfter: async () => 50,
        updateConsumerOffset: async (_address, header) => {
          brokerCopies.push([header.queueId, header.commitOffset]);
        },
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
  return { target, brokerCopies };
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
    expect(result).toEqual({ reset: 2, adoptedByRunningPollers: true, brokerFailures: [] });
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
    expect(result).toEqual({ reset: 2, adoptedByRunningPollers: false, brokerFailures: [] });
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
