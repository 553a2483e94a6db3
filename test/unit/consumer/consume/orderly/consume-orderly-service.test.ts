import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadLetterIndexes } from '../../../../../src/consumer/consume/dead-letter-indexes.js';
import { failedIndexes } from '../../../../../src/consumer/consume/failed-indexes.js';
import {
  ConsumeOrderlyService,
  MAX_TIME_CONSUME_CONTINUOUSLY_MS,
} from '../../../../../src/consumer/consume/orderly/consume-orderly-service.js';
import { clampSuspendTimeMs } from '../../../../../src/consumer/consume/orderly/orderly-result.js';
import type { ConsumerClient } from '../../../../../src/consumer/consumer-client.js';
import { ProcessQueue } from '../../../../../src/consumer/pull/process-queue.js';
import type { MessageQueue } from '../../../../../src/protocol/message-queue.js';
import { ControlledListener, fakeClient, msgs, queueA, queueB, serviceContext } from '../../fakes.js';

type Broker = ConsumerClient['broker'];

async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** A broker fake that grants locks unless the queue id is in `refused`. */
function lockingClient(overrides: Partial<Broker> = {}) {
  const refused = new Set<number>();
  const lockCalls: MessageQueue[][] = [];
  const unlockCalls: { oneway: boolean; mqSet: MessageQueue[] }[] = [];
  const client = fakeClient({
    lockBatchMQ: async (_address, body) => {
      lockCalls.push([...body.mqSet]);
      return body.mqSet.filter((mq) => !refused.has(mq.queueId));
    },
    unlockBatchMQ: async (_address, body) => {
      unlockCalls.push({ oneway: false, mqSet: [...body.mqSet] });
    },
    unlockBatchMQOneway: async (_address, body) => {
      unlockCalls.push({ oneway: true, mqSet: [...body.mqSet] });
    },
    ...overrides,
  });
  return { client, refused, lockCalls, unlockCalls };
}

function setup(overrides: Parameters<typeof serviceContext>[0] = {}, broker: Partial<Broker> = {}) {
  const { client, refused, lockCalls, unlockCalls } = lockingClient(broker);
  const listener = new ControlledListener();
  const pqA = new ProcessQueue(queueA);
  const pqB = new ProcessQueue(queueB);
  const ctx = serviceContext({ orderly: true, batchSize: 3, ...overrides }, listener, client, [pqA, pqB]);
  const service = new ConsumeOrderlyService(ctx.context, { masterAddress: () => '127.0.0.1:10911' });
  const put = (pq: ProcessQueue, list: ReturnType<typeof msgs>) => {
    const { added, dispatchToConsume } = pq.putMessages(list);
    service.submit(added, pq, dispatchToConsume);
  };
  const add = (pq: ProcessQueue) => service.queueHooks.beforeAdd(pq.messageQueue, pq);
  const offsets = (calls = listener.calls) => calls.map((c) => c.messages.map((m) => m.queueOffset));
  return { ...ctx, client, refused, lockCalls, unlockCalls, listener, pqA, pqB, service, put, add, offsets };
}

async function stop(service: ConsumeOrderlyService): Promise<void> {
  const stopped = service.stop(0);
  await vi.advanceTimersByTimeAsync(1);
  await stopped;
}

describe('orderly result helpers', () => {
  it('blames the named records of a PARTIAL, all of a FAILED, all for an invalid PARTIAL', () => {
    expect(failedIndexes({ status: 'SUCCESS' }, 3)).toEqual(new Set());
    expect(failedIndexes({ status: 'FAILED', reason: 'x' }, 3)).toEqual(new Set([0, 1, 2]));
    expect(failedIndexes({ status: 'PARTIAL', failedIndexes: [2, 1], reason: 'x' }, 3)).toEqual(
      new Set([1, 2]),
    );
    expect(failedIndexes({ status: 'PARTIAL', failedIndexes: [1, 7], reason: 'x' }, 3)).toBeUndefined();
  });

  it('keeps only dead-letter entries that name a failed record of the batch', () => {
    const deadLetter = [
      { index: 0, reason: 'a' },
      { index: 2, reason: 'b' },
      { index: 9, reason: 'c' },
    ];
    expect(deadLetterIndexes({ status: 'PARTIAL', failedIndexes: [2], reason: 'x', deadLetter }, 3)).toEqual(
      new Map([[2, 'b']]),
    );
    expect(deadLetterIndexes({ status: 'FAILED', reason: 'x', deadLetter }, 3)).toEqual(
      new Map([
        [0, 'a'],
        [2, 'b'],
      ]),
    );
  });

  it('clamps the suspend time to 10..30000 ms', () => {
    expect([clampSuspendTimeMs(1), clampSuspendTimeMs(500), clampSuspendTimeMs(99_000)]).toEqual([
      10, 500, 30_000,
    ]);
  });
});

describe('ConsumeOrderlyService', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('locks a queue on assignment and skips it when the broker refuses', async () => {
    const { add, pqA, pqB, refused, lockCalls, context, service } = setup();
    refused.add(1);
    expect(await add(pqA)).toBe(true);
    expect(await add(pqB)).toBe(false);
    expect(lockCalls).toEqual([[queueA], [queueB]]);
    expect(pqA.locked).toBe(true);
    expect(pqB.locked).toBe(false);
    expect(context.counters.lockFailures).toBe(1);
    await stop(service);
  });

  it('consumes one batch per queue at a time, in order, and commits with overwrite', async () => {
    const { add, put, pqA, listener, offsets, offsetStore, service } = setup();
    await add(pqA);
    put(pqA, msgs(0, 5));
    put(pqA, msgs(5, 6));
    expect(offsets()).toEqual([[0, 1, 2]]);
    expect(service.inFlightBatches()).toBe(1);
    expect(service.pendingMessages()).toBe(3);
    const spy = vi.spyOn(offsetStore, 'updateOffset');
    listener.calls[0]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(offsets()).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    expect(spy).toHaveBeenCalledWith(queueA, 3, false);
    listener.calls[1]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(6);
    expect(service.inFlightBatches()).toBe(0);
    put(pqA, msgs(6, 7));
    expect(offsets()[2]).toEqual([6]);
    expect(listener.calls[0]?.topics).toEqual(['T', 'T', 'T']);
    await stop(service);
  });

  it('runs at most maxConcurrency queues at once', async () => {
    const { add, put, pqA, pqB, listener, offsets, service } = setup({ maxConcurrency: 1 });
    await add(pqA);
    await add(pqB);
    put(pqA, msgs(0, 2));
    put(pqB, msgs(0, 2));
    expect(listener.calls).toHaveLength(1);
    listener.calls[0]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(offsets()).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(listener.calls[1]?.messages).toHaveLength(2);
    await stop(service);
  });

  it('PARTIAL commits the records before the first failure and retries from it with reconsumeTimes + 1', async () => {
    const { add, put, pqA, listener, offsets, offsetStore, context, service } = setup({
      suspendCurrentQueueTimeMs: 500,
    });
    await add(pqA);
    put(pqA, msgs(0, 4));
    listener.calls[0]?.resolve({ status: 'PARTIAL', failedIndexes: [2, 1], reason: 'x' });
    await flush();
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(1);
    expect(listener.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(499);
    expect(listener.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(offsets()[1]).toEqual([1, 2, 3]);
    expect(listener.calls[1]?.messages.map((m) => m.reconsumeTimes)).toEqual([1, 1, 0]);
    expect(context.counters).toMatchObject({ consumedOk: 1, consumedFailed: 2, localRetries: 2 });
    listener.calls[1]?.reject(new Error('boom')); // a thrown error is a FAILED batch
    await vi.advanceTimersByTimeAsync(500);
    expect(listener.calls[2]?.messages.map((m) => m.reconsumeTimes)).toEqual([2, 2, 1]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(1);
    await stop(service);
  });

  it("'skip': past maxReconsumeTimes the message goes to the DLQ (delay level -1) and the queue moves on", async () => {
    const { add, put, pqA, listener, offsets, offsetStore, client, context, service } = setup({
      batchSize: 1,
      maxReconsumeTimes: 1,
      orderlyFailure: 'skip',
    });
    await add(pqA);
    put(pqA, msgs(0, 2));
    listener.calls[0]?.resolve({ status: 'FAILED', reason: 'x' });
    await vi.advanceTimersByTimeAsync(1000);
    listener.calls[1]?.resolve({ status: 'FAILED', reason: 'x' });
    await flush();
    expect(client.sendBacks).toEqual([
      { address: '127.0.0.1:10911', offset: 1000, delayLevel: -1, originTopic: 'T', maxReconsumeTimes: 1 },
    ]);
    expect(offsets()).toEqual([[0], [0], [1]]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(1);
    expect(context.counters).toMatchObject({ sentBack: 1, blockedRetries: 0 });
    await stop(service);
  });

  it("'skip': a PARTIAL naming only the poison sends only it to the DLQ; records behind it are not blamed", async () => {
    const { add, put, pqA, listener, offsets, offsetStore, client, context, service } = setup({
      maxReconsumeTimes: 1,
      orderlyFailure: 'skip',
    });
    await add(pqA);
    put(pqA, msgs(0, 5));
    listener.calls[0]?.resolve({ status: 'PARTIAL', failedIndexes: [1], reason: 'x' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(offsets()[1]).toEqual([1, 2, 3]);
    expect(listener.calls[1]?.messages.map((m) => m.reconsumeTimes)).toEqual([1, 1, 0]);
    // 2 failed once as well; 1 failed its second time and is past the limit of 1.
    listener.calls[1]?.resolve({ status: 'PARTIAL', failedIndexes: [0, 1], reason: 'x' });
    await flush();
    expect(client.sendBacks.map((b) => [b.offset, b.delayLevel])).toEqual([[1001, -1]]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(offsets()[2]).toEqual([2, 3, 4]);
    expect(listener.calls[2]?.messages.map((m) => m.reconsumeTimes)).toEqual([2, 1, 0]);
    // 2 failed once before; it is not past the limit until it fails again here.
    listener.calls[2]?.resolve({ status: 'PARTIAL', failedIndexes: [1], reason: 'x' });
    await flush();
    expect(client.sendBacks.map((b) => b.offset)).toEqual([1001]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(3);
    expect(context.counters).toMatchObject({ consumedOk: 2, consumedFailed: 4, sentBack: 1 });
    await stop(service);
  });

  it("'skip': after the DLQ took a record, the records behind it that succeeded are committed", async () => {
    const { add, put, pqA, listener, offsets, offsetStore, client, service } = setup({
      maxReconsumeTimes: 0,
      orderlyFailure: 'skip',
    });
    await add(pqA);
    put(pqA, msgs(0, 4));
    listener.calls[0]?.resolve({ status: 'PARTIAL', failedIndexes: [1], reason: 'x' });
    await flush();
    expect(client.sendBacks.map((b) => b.offset)).toEqual([1001]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(3);
    expect(offsets()[1]).toEqual([3]);
    await stop(service);
  });

  it("dead-lettered records go to the DLQ at once with 'skip' and are retried with 'block'", async () => {
    const deadLetter = [{ index: 0, reason: 'record too large' }];
    const skip = setup({ orderlyFailure: 'skip' });
    await skip.add(skip.pqA);
    skip.put(skip.pqA, msgs(0, 2));
    skip.listener.calls[0]?.resolve({ status: 'PARTIAL', failedIndexes: [0], reason: 'x', deadLetter });
    await flush();
    expect(skip.client.sendBacks.map((b) => [b.offset, b.delayLevel])).toEqual([[1000, -1]]);
    expect(await skip.offsetStore.readOffset(queueA, 'MEMORY')).toBe(2);
    await stop(skip.service);
    const block = setup({ orderlyFailure: 'block' });
    await block.add(block.pqA);
    block.put(block.pqA, msgs(0, 2));
    block.listener.calls[0]?.resolve({ status: 'PARTIAL', failedIndexes: [0], reason: 'x', deadLetter });
    await vi.advanceTimersByTimeAsync(1000);
    expect(block.client.sendBacks).toEqual([]);
    expect(block.offsets()[1]).toEqual([0, 1]);
    await stop(block.service);
  });

  it("'skip': a FAILED batch past the limit goes to the DLQ as a whole (RocketMQ's semantics)", async () => {
    const { add, put, pqA, listener, offsetStore, client, service } = setup({
      batchSize: 2,
      maxReconsumeTimes: 0,
      orderlyFailure: 'skip',
    });
    await add(pqA);
    put(pqA, msgs(0, 3));
    listener.calls[0]?.resolve({ status: 'FAILED', reason: 'x' });
    await flush();
    expect(client.sendBacks.map((b) => b.offset)).toEqual([1000, 1001]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(2);
    expect(listener.calls[1]?.messages.map((m) => m.queueOffset)).toEqual([2]);
    await stop(service);
  });

  it("'skip': a failed DLQ hand-off does not commit past the message; it is retried", async () => {
    let failDlq = true;
    const dlq: number[] = [];
    const { add, put, pqA, listener, offsets, offsetStore, context, service } = setup(
      { batchSize: 1, maxReconsumeTimes: 0, orderlyFailure: 'skip' },
      {
        consumerSendMsgBack: async (_address, header) => {
          if (failDlq) throw new Error('broker down');
          dlq.push(header.offset);
        },
      },
    );
    await add(pqA);
    put(pqA, msgs(0, 2));
    listener.calls[0]?.resolve({ status: 'FAILED', reason: 'x' });
    await flush();
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(-1);
    expect(context.counters.sendBackFailures).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(offsets()).toEqual([[0], [0]]);
    failDlq = false;
    listener.calls[1]?.resolve({ status: 'FAILED', reason: 'x' });
    await flush();
    expect(dlq).toEqual([1000]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(1);
    expect(offsets()[2]).toEqual([1]);
    await stop(service);
  });

  it("'block': past maxReconsumeTimes the message is retried forever and later ones wait", async () => {
    const { add, put, pqA, listener, offsets, offsetStore, client, context, service } = setup({
      batchSize: 1,
      maxReconsumeTimes: 1,
      orderlyFailure: 'block',
      suspendCurrentQueueTimeMs: 100,
    });
    await add(pqA);
    put(pqA, msgs(0, 3));
    for (let i = 0; i < 5; i++) {
      listener.calls[i]?.resolve({ status: 'FAILED', reason: 'x' });
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(offsets()).toEqual([[0], [0], [0], [0], [0], [0]]);
    expect(listener.calls.map((c) => c.messages[0]?.reconsumeTimes)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(client.sendBacks).toEqual([]);
    expect(context.counters.blockedRetries).toBe(4);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(-1);
    listener.calls[5]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(offsets()[6]).toEqual([1]);
    await stop(service);
  });

  it('yields a queue after 60 s of continuous work so a waiting queue gets the slot', async () => {
    const { add, put, pqA, pqB, listener, service } = setup({ maxConcurrency: 1, batchSize: 1 });
    await add(pqA);
    await add(pqB);
    service.start(); // keeps the locks fresh (re-lock every 20 s)
    put(pqA, msgs(0, 20));
    put(pqB, msgs(0, 1));
    // Each batch takes 15 s: batches start at 0, 15, 30, 45 and 60 s; after the one ending at 75 s the
    // queue has worked continuously for more than 60 s and yields its only slot to B.
    for (let k = 0; k < 5; k++) {
      await vi.advanceTimersByTimeAsync(15_000);
      listener.calls[k]?.resolve({ status: 'SUCCESS' });
      await flush();
    }
    expect(MAX_TIME_CONSUME_CONTINUOUSLY_MS).toBe(60_000);
    expect(listener.calls.map((c) => c.messages[0]?.queueOffset)).toEqual([0, 1, 2, 3, 4, 0]);
    expect(pqB.snapshot().inFlightOrderlyCount).toBe(1);
    expect(pqA.snapshot().inFlightOrderlyCount).toBe(0);
    listener.calls[5]?.resolve({ status: 'SUCCESS' });
    await vi.advanceTimersByTimeAsync(10);
    expect(listener.calls[6]?.messages[0]?.queueOffset).toBe(5);
    expect(pqA.snapshot().inFlightOrderlyCount).toBe(1);
    await stop(service);
  });

  it('a dropped queue does not commit its in-flight batch; it is unlocked (oneway) after the batch ends', async () => {
    const { add, put, pqA, listener, offsetStore, unlockCalls, context, service } = setup();
    await add(pqA);
    put(pqA, msgs(0, 3));
    pqA.dropped = true;
    let dropped = false;
    const drop = service.queueHooks.afterDrop(queueA, pqA).then(() => {
      dropped = true;
    });
    await flush();
    expect(dropped).toBe(false);
    expect(unlockCalls).toEqual([]);
    listener.calls[0]?.resolve({ status: 'SUCCESS' });
    await drop;
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(-1);
    expect(context.counters.discardedResults).toBe(1);
    expect(unlockCalls).toEqual([{ oneway: true, mqSet: [queueA] }]);
    expect(pqA.locked).toBe(false);
    await stop(service);
  });

  it('an expired lock stops consumption until the queue is locked again', async () => {
    const { add, put, pqA, listener, refused, lockCalls, offsets, service } = setup();
    await add(pqA);
    await vi.advanceTimersByTimeAsync(30_001);
    expect(pqA.isLockExpired()).toBe(true);
    refused.add(0);
    put(pqA, msgs(0, 2));
    expect(listener.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(lockCalls).toHaveLength(2); // assignment + the retry 100 ms later (refused)
    // Java's cadence: a refused lock resubmits the queue after 3 s, which tries to lock 100 ms later.
    await vi.advanceTimersByTimeAsync(3100);
    expect(lockCalls).toHaveLength(3);
    expect(listener.calls).toHaveLength(0);
    refused.delete(0);
    await vi.advanceTimersByTimeAsync(3100);
    expect(lockCalls).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(10);
    expect(offsets()).toEqual([[0, 1]]);
    await stop(service);
  });

  it('re-locks held queues every 20 s in one request per broker; a refused queue loses its lock', async () => {
    const { add, pqA, pqB, refused, lockCalls, service } = setup();
    await add(pqA);
    await add(pqB);
    service.start();
    refused.add(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(lockCalls.at(-1)).toEqual([queueA, queueB]);
    expect(pqA.locked).toBe(true);
    expect(pqB.locked).toBe(false);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(lockCalls).toHaveLength(4);
    await stop(service);
  });

  it('a fatal listener error halts consumption without commit and reports it', async () => {
    const { add, put, pqA, listener, offsetStore, fatal, service } = setup();
    await add(pqA);
    put(pqA, msgs(0, 6));
    listener.calls[0]?.reject(Object.assign(new Error('no such function'), { fatal: true }));
    await flush();
    expect(fatal).toHaveLength(1);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(-1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(listener.calls).toHaveLength(1);
    expect(pqA.messageCount).toBe(6);
    await stop(service);
  });

  it('at shutdown waits for in-flight batches, then unlocks all queues in one sync call per broker', async () => {
    const { add, put, pqA, pqB, listener, unlockCalls, offsetStore, service } = setup();
    await add(pqA);
    await add(pqB);
    put(pqA, msgs(0, 2));
    const stopped = service.stop(5000);
    await flush();
    listener.calls[0]?.resolve({ status: 'SUCCESS' });
    await stopped;
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(2);
    pqA.dropped = true;
    pqB.dropped = true;
    await Promise.all([service.queueHooks.afterDrop(queueA, pqA), service.queueHooks.afterDrop(queueB, pqB)]);
    expect(unlockCalls).toEqual([{ oneway: false, mqSet: [queueA, queueB] }]);
  });

  it('aborts batches still running when the shutdown timeout ends; their results are discarded', async () => {
    const { add, put, pqA, listener, offsetStore, context, service } = setup();
    await add(pqA);
    put(pqA, msgs(0, 2));
    const stopped = service.stop(1000);
    await vi.advanceTimersByTimeAsync(1000);
    await stopped;
    expect(listener.calls[0]?.signal.aborted).toBe(true);
    listener.calls[0]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(-1);
    expect(context.counters.discardedResults).toBe(1);
  });

  it('broadcasting: no broker locks; queues are consumed without lock checks', async () => {
    const { add, put, pqA, listener, lockCalls, service } = setup({ messageModel: 'BROADCASTING' });
    expect(await add(pqA)).toBe(true);
    expect(pqA.locked).toBe(true);
    service.start();
    await vi.advanceTimersByTimeAsync(40_000);
    put(pqA, msgs(0, 2));
    expect(listener.calls).toHaveLength(1);
    expect(lockCalls).toEqual([]);
    await stop(service);
  });

  it('caps a batch by body bytes', async () => {
    const { add, put, pqA, listener, offsets, service } = setup({ batchSize: 10, maxBatchBytes: 25 });
    await add(pqA);
    put(pqA, msgs(0, 5));
    listener.calls[0]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(offsets()).toEqual([
      [0, 1],
      [2, 3],
    ]);
    await stop(service);
  });
});
