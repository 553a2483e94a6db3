import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConsumeConcurrentlyService } from '../../../../../src/consumer/consume/concurrently/consume-concurrently-service.js';
import { failedIndexes } from '../../../../../src/consumer/consume/failed-indexes.js';
import type {
  ConsumedMessage,
  ConsumeResult,
  MessageListener,
} from '../../../../../src/consumer/message-listener.js';
import { ProcessQueue } from '../../../../../src/consumer/pull/process-queue.js';
import { MessageConst } from '../../../../../src/protocol/message.js';
import { decodeMessages } from '../../../../../src/protocol/message-decoder.js';
import { encodeStoredMessages } from '../../../../../src/protocol/message-encoder.js';
import { ControlledListener, fakeClient, msg, msgs, queueA, queueB, serviceContext } from '../../fakes.js';

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

async function stop(service: ConsumeConcurrentlyService): Promise<void> {
  const stopped = service.stop(0);
  await vi.advanceTimersByTimeAsync(1);
  await stopped;
}

function setup(overrides: Parameters<typeof serviceContext>[0] = {}, client = fakeClient()) {
  const listener = new ControlledListener();
  const pqA = new ProcessQueue(queueA);
  const pqB = new ProcessQueue(queueB);
  const ctx = serviceContext({ maximumBatchingWindowMs: 0, ...overrides }, listener, client, [pqA, pqB]);
  const service = new ConsumeConcurrentlyService(ctx.context);
  const put = (pq: ProcessQueue, list: ReturnType<typeof msgs>) =>
    service.submit(pq.putMessages(list).added, pq, false);
  return { ...ctx, listener, pqA, pqB, service, put };
}

describe('ConsumeConcurrentlyService', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('batches across queues up to batchSize and caps batches in flight at maxConcurrency', async () => {
    const { listener, pqA, pqB, service, put } = setup({
      batchSize: 3,
      maxConcurrency: 2,
      maximumBatchingWindowMs: 1000,
    });
    put(pqA, msgs(0, 4));
    put(pqB, msgs(0, 4));
    expect(listener.calls.map((c) => c.messages.map((m) => m.queueOffset))).toEqual([
      [0, 1, 2],
      [3, 0, 1],
    ]);
    expect(service.inFlightBatches()).toBe(2);
    expect(service.pendingMessages()).toBe(2);
    listener.calls[0]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(listener.calls).toHaveLength(2); // a slot is free, but 2 < batchSize and the window is open
    await vi.advanceTimersByTimeAsync(1000);
    expect(listener.calls.map((c) => c.messages.length)).toEqual([3, 3, 2]);
    await stop(service);
  });

  it('waits for the batching window before dispatching a partial batch', async () => {
    const { listener, pqA, service, put } = setup({ batchSize: 10, maximumBatchingWindowMs: 500 });
    put(pqA, msgs(0, 3));
    expect(listener.calls).toHaveLength(0);
    vi.advanceTimersByTime(499);
    expect(listener.calls).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(listener.calls.map((c) => c.messages.length)).toEqual([3]);
    await stop(service);
  });

  it('gives the listener its messages with their queue and topic, and nothing of its own', async () => {
    const { listener, pqA, service, put } = setup({ batchSize: 2 });
    put(pqA, msgs(0, 2));
    const consumed = listener.calls[0]?.consumed ?? [];
    expect(consumed).toHaveLength(2);
    for (const [i, view] of consumed.entries()) {
      expect(Object.keys(view)).toEqual(['message', 'queue', 'topic']);
      expect(view).toMatchObject({ queue: pqA.messageQueue, topic: queueA.topic });
      expect(view.message.queueOffset).toBe(i);
      // A listener that logs its messages serializes no process queue (nor fails on one).
      expect(JSON.parse(JSON.stringify(view))).toHaveProperty('queue', { ...pqA.messageQueue });
    }
    await stop(service);
  });

  it('empties the batch array it lent the listener once the result is applied, and only then', async () => {
    const lent: (readonly ConsumedMessage[])[] = [];
    const results: Array<(result: ConsumeResult) => void> = [];
    const listener: MessageListener = {
      consume(messages) {
        lent.push(messages);
        return new Promise((resolve) => results.push(resolve));
      },
    };
    const pqA = new ProcessQueue(queueA);
    const { context, offsetStore } = serviceContext(
      { maximumBatchingWindowMs: 0, batchSize: 2 },
      listener,
      fakeClient(),
      [pqA],
    );
    const service = new ConsumeConcurrentlyService(context);
    service.submit(pqA.putMessages(msgs(0, 2)).added, pqA, false);
    const batch = lent[0] ?? [];
    const kept = [...batch];
    expect(batch.map((item) => item.message.queueOffset)).toEqual([0, 1]);
    await flush();
    expect(batch).toHaveLength(2); // the listener is still working on it
    results[0]?.({ status: 'SUCCESS' });
    await flush();
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(2);
    expect(batch).toHaveLength(0);
    // The messages themselves are untouched: a listener that keeps them copies the list.
    expect(kept.map((item) => item.message.queueOffset)).toEqual([0, 1]);
    await stop(service);
  });

  it('caps a batch by body bytes', async () => {
    const { listener, pqA, service, put } = setup({ batchSize: 100, maxBatchBytes: 25 });
    put(pqA, msgs(0, 5));
    expect(listener.calls.map((c) => c.messages.length)).toEqual([2, 2, 1]);
    await stop(service);
  });

  it('commits succeeded messages and moves the offset increase-only', async () => {
    const { listener, pqA, service, put, offsetStore } = setup({ batchSize: 2 });
    put(pqA, msgs(0, 4));
    listener.calls[1]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(0); // 0 and 1 still in flight
    listener.calls[0]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(4);
    expect(pqA.messageCount).toBe(0);
    await stop(service);
  });

  it('sends failed messages back (PARTIAL: exactly the failed ones) with the real topic', async () => {
    const client = fakeClient();
    const { listener, pqA, service, put, offsetStore, context } = setup(
      { batchSize: 3, retryDelayLevel: 2 },
      client,
    );
    put(pqA, msgs(0, 3));
    listener.calls[0]?.resolve({ status: 'PARTIAL', failedIndexes: [1], reason: 'x' });
    await flush();
    expect(client.sendBacks).toEqual([
      { address: '127.0.0.1:10911', offset: 1001, delayLevel: 2, originTopic: 'T', maxReconsumeTimes: 16 },
    ]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(3);
    expect(context.counters).toMatchObject({ consumedOk: 2, consumedFailed: 1, sentBack: 1 });
    await stop(service);
  });

  it('keeps messages whose send-back failed and consumes them again after 5 s with reconsumeTimes + 1', async () => {
    let failSendBack = true;
    const client = fakeClient({
      consumerSendMsgBack: async () => {
        if (failSendBack) throw new Error('broker down');
      },
    });
    const { listener, pqA, service, put, offsetStore, context } = setup({ batchSize: 3 }, client);
    put(pqA, msgs(0, 3));
    listener.calls[0]?.resolve({ status: 'PARTIAL', failedIndexes: [0], reason: 'x' });
    await flush();
    expect(pqA.messageCount).toBe(1);
    // offsets 1 and 2 are done, but 0 is not: the offset cannot pass it
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(0);
    expect(context.counters.sendBackFailures).toBe(1);
    vi.advanceTimersByTime(4999);
    expect(listener.calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(listener.calls).toHaveLength(2);
    expect(listener.calls[1]?.messages.map((m) => [m.queueOffset, m.reconsumeTimes])).toEqual([[0, 1]]);
    failSendBack = false;
    listener.calls[1]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(3);
    await stop(service);
  });

  it('a decoded message consumed again locally keeps its id, properties, keys and hosts', async () => {
    // Messages as the decoder returns them (some fields computed on first read), not plain fakes: the
    // local retry must hand the listener the whole message, not a copy that lost those fields.
    const { messages } = decodeMessages(
      encodeStoredMessages(
        [0, 1].map((queueOffset) => ({
          topic: 'T',
          queueOffset,
          body: Buffer.from(`body ${queueOffset}`),
          properties: {
            [MessageConst.UNIQ_KEY]: `ID${queueOffset}`,
            [MessageConst.TAGS]: 'tagA',
            [MessageConst.KEYS]: 'k1 k2',
            color: 'blue',
          },
          storeHost: '10.0.0.9:10911',
        })),
      ),
    );
    let failSendBack = true;
    const client = fakeClient({
      consumerSendMsgBack: async () => {
        if (failSendBack) throw new Error('broker down');
      },
    });
    const { listener, pqA, service, put } = setup({ batchSize: 2 }, client);
    put(pqA, messages);
    listener.calls[0]?.resolve({ status: 'PARTIAL', failedIndexes: [1], reason: 'x' });
    await flush();
    vi.advanceTimersByTime(5000);
    const again = listener.calls[1]?.messages[0];
    expect(again).toBeDefined();
    expect({
      msgId: again?.msgId,
      offsetMsgId: again?.offsetMsgId,
      tags: again?.tags,
      keys: again?.keys,
      color: again?.properties.color,
      storeHost: again?.storeHost,
      reconsumeTimes: again?.reconsumeTimes,
      body: again?.body.toString(),
    }).toEqual({
      msgId: 'ID1',
      offsetMsgId: messages[1]?.offsetMsgId,
      tags: 'tagA',
      keys: ['k1', 'k2'],
      color: 'blue',
      storeHost: '10.0.0.9:10911',
      reconsumeTimes: 1,
      body: 'body 1',
    });
    expect(messages[1]?.offsetMsgId).toMatch(/^0A000009/);
    failSendBack = false;
    listener.calls[1]?.resolve({ status: 'SUCCESS' });
    await flush();
    await stop(service);
  });

  it('treats a thrown error as FAILED and a PARTIAL with a foreign index as whole-batch failure', async () => {
    const client = fakeClient();
    const { listener, pqA, service, put } = setup({ batchSize: 2 }, client);
    put(pqA, msgs(0, 4));
    listener.calls[0]?.reject(new Error('boom'));
    listener.calls[1]?.resolve({ status: 'PARTIAL', failedIndexes: [7], reason: 'x' });
    await flush();
    expect(client.sendBacks.map((s) => s.offset).sort()).toEqual([1000, 1001, 1002, 1003]);
    await stop(service);
  });

  it('broadcasting drops failures without send-back', async () => {
    const client = fakeClient();
    const { listener, pqA, service, put, offsetStore, context } = setup(
      { batchSize: 2, messageModel: 'BROADCASTING' },
      client,
    );
    put(pqA, msgs(0, 2));
    listener.calls[0]?.resolve({ status: 'FAILED', reason: 'x' });
    await flush();
    expect(client.sendBacks).toEqual([]);
    expect(context.counters.droppedFailures).toBe(2);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(2);
    await stop(service);
  });

  it('gives retry-topic messages their real topic', async () => {
    const { listener, pqA, service } = setup();
    const retried = msg(0, { topic: '%RETRY%G', properties: { RETRY_TOPIC: 'Orders' } });
    service.submit(pqA.putMessages([retried]).added, pqA, false);
    expect(listener.calls[0]?.topics).toEqual(['Orders']);
    await stop(service);
  });

  it('does not move the offset of a dropped queue', async () => {
    const { listener, pqA, service, put, offsetStore } = setup({ batchSize: 2 });
    put(pqA, msgs(0, 2));
    pqA.dropped = true;
    listener.calls[0]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(-1);
    await stop(service);
  });

  it('a fatal listener error halts dispatching and leaves the batch unconsumed', async () => {
    const { listener, pqA, service, put, fatal } = setup({ batchSize: 1, maxConcurrency: 1 });
    put(pqA, msgs(0, 3));
    listener.calls[0]?.reject(Object.assign(new Error('no such function'), { fatal: true }));
    await flush();
    expect(fatal).toHaveLength(1);
    expect(listener.calls).toHaveLength(1);
    expect(pqA.messageCount).toBe(3);
    await stop(service);
  });

  it('stop() waits for in-flight batches, then aborts them; aborted results do not move offsets', async () => {
    const { listener, pqA, service, put, offsetStore, context } = setup({ batchSize: 1 });
    put(pqA, msgs(0, 2));
    listener.calls[0]?.resolve({ status: 'SUCCESS' });
    const stopped = service.stop(1000);
    await flush();
    vi.advanceTimersByTime(1000);
    await stopped;
    expect(listener.calls[1]?.signal.aborted).toBe(true);
    listener.calls[1]?.resolve({ status: 'SUCCESS' });
    await flush();
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(1);
    expect(context.counters.discardedResults).toBe(1);
  });

  it('sends back expired messages (delay level 3) and removes them', async () => {
    const client = fakeClient();
    const { pqA, service, put, context } = setup({ batchSize: 1, consumeTimeoutMs: 1000 }, client);
    service.start();
    put(pqA, msgs(0, 2));
    await vi.advanceTimersByTimeAsync(2100);
    expect(client.sendBacks.map((s) => [s.offset, s.delayLevel])).toEqual([
      [1000, 3],
      [1001, 3],
    ]);
    expect(pqA.messageCount).toBe(0);
    expect(context.counters.expiredMessages).toBe(2);
    await stop(service);
  });
});

describe('failedIndexes', () => {
  it('maps results to failed indexes', () => {
    expect(failedIndexes({ status: 'SUCCESS' }, 3)).toEqual(new Set());
    expect(failedIndexes({ status: 'FAILED', reason: '' }, 2)).toEqual(new Set([0, 1]));
    expect(failedIndexes({ status: 'PARTIAL', failedIndexes: [2, 2], reason: '' }, 3)).toEqual(new Set([2]));
    expect(failedIndexes({ status: 'PARTIAL', failedIndexes: [-1], reason: '' }, 3)).toBeUndefined();
  });
});
