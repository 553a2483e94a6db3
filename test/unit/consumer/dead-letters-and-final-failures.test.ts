/**
 * The dead-letter side of a listener result in both consume services: `deadLetter` entries go straight to the DLQ
 * (delay level −1, no retry, the hand-off retried until the broker takes it), and messages that failed
 * for good are reported to the listener's optional `notifyFinalFailure`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConsumeConcurrentlyService } from '../../../src/consumer/consume/concurrently/consume-concurrently-service.js';
import { DeadLetterHandOff } from '../../../src/consumer/consume/concurrently/dead-letter-hand-off.js';
import { notifyFinalFailure } from '../../../src/consumer/consume/final-failure.js';
import { ConsumeOrderlyService } from '../../../src/consumer/consume/orderly/consume-orderly-service.js';
import { newConsumerCounters } from '../../../src/consumer/consumer-counters.js';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import { ProcessQueue } from '../../../src/consumer/pull/process-queue.js';
import { rootLogger } from '../../../src/util/logger.js';
import { ControlledListener, fakeClient, msg, msgs, queueA, serviceContext } from './fakes.js';

/** A ControlledListener that also records final-failure notifications. */
class NotifiedListener extends ControlledListener {
  readonly finalFailures: { offsets: number[]; reason: string }[] = [];
  notifyFailure: Error | undefined;

  async notifyFinalFailure(messages: readonly ConsumedMessage[], reason: string): Promise<void> {
    this.finalFailures.push({ offsets: messages.map((m) => m.message.queueOffset), reason });
    if (this.notifyFailure !== undefined) throw this.notifyFailure;
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** A broker whose send-backs fail while `failing` is positive (counting down), recorded either way. */
function flakyClient() {
  const state = { failing: 0 };
  const client = fakeClient();
  const record = client.broker.consumerSendMsgBack;
  client.broker.consumerSendMsgBack = async (address, header) => {
    await record(address, header);
    if (state.failing > 0) {
      state.failing--;
      throw new Error('broker busy');
    }
  };
  return { client, state };
}

function concurrent(overrides: Parameters<typeof serviceContext>[0] = {}) {
  const { client, state } = flakyClient();
  const listener = new NotifiedListener();
  const pq = new ProcessQueue(queueA);
  const ctx = serviceContext({ maximumBatchingWindowMs: 0, batchSize: 3, ...overrides }, listener, client, [
    pq,
  ]);
  const service = new ConsumeConcurrentlyService(ctx.context);
  const put = (list: ReturnType<typeof msgs>) => service.submit(pq.putMessages(list).added, pq, false);
  return { ...ctx, client, state, listener, pq, service, put };
}

function orderly(overrides: Parameters<typeof serviceContext>[0] = {}) {
  const { client, state } = flakyClient();
  client.broker.lockBatchMQ = async (_address, body) => [...body.mqSet];
  client.broker.unlockBatchMQ = async () => undefined;
  client.broker.unlockBatchMQOneway = async () => undefined;
  const listener = new NotifiedListener();
  const pq = new ProcessQueue(queueA);
  const ctx = serviceContext({ orderly: true, batchSize: 3, ...overrides }, listener, client, [pq]);
  const service = new ConsumeOrderlyService(ctx.context, { masterAddress: () => '127.0.0.1:10911' });
  const put = (list: ReturnType<typeof msgs>) => {
    const { added, dispatchToConsume } = pq.putMessages(list);
    service.submit(added, pq, dispatchToConsume);
  };
  const add = () => service.queueHooks.beforeAdd(pq.messageQueue, pq);
  return { ...ctx, client, state, listener, pq, service, put, add };
}

async function stopService(service: { stop(timeoutMs: number): Promise<void> }): Promise<void> {
  const stopped = service.stop(0);
  await vi.advanceTimersByTimeAsync(1);
  await stopped;
}

describe('concurrent: deadLetter and final failures', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('dead-lettered messages go to the DLQ (delay level -1) at once, the rest as the result says', async () => {
    const { listener, put, service, client, offsetStore, context } = concurrent({ retryDelayLevel: 2 });
    put(msgs(0, 3));
    listener.calls[0]?.resolve({
      status: 'PARTIAL',
      failedIndexes: [0, 2],
      reason: 'x',
      deadLetter: [{ index: 2, reason: 'record too large' }],
    });
    await flush();
    expect(client.sendBacks.map((s) => [s.offset, s.delayLevel]).sort()).toEqual([
      [1000, 2],
      [1002, -1],
    ]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(3);
    expect(context.counters).toMatchObject({
      consumedOk: 1,
      consumedFailed: 2,
      sentBack: 2,
      deadLettered: 1,
    });
    expect(listener.calls).toHaveLength(1);
    // Its own dead letters were reported by the listener itself; offset 0 is not at its limit yet.
    expect(listener.finalFailures).toEqual([]);
    await stopService(service);
  });

  it('a failed DLQ hand-off is tried again (not consumed again) and the offset waits for it', async () => {
    const { listener, put, service, client, state, offsetStore, context } = concurrent({
      localRetryDelayMs: 1000,
    });
    state.failing = 2;
    put(msgs(0, 2));
    listener.calls[0]?.resolve({
      status: 'FAILED',
      reason: 'x',
      deadLetter: [
        { index: 0, reason: 'too old' },
        { index: 1, reason: 'too old' },
      ],
    });
    await flush();
    expect(context.counters.sendBackFailures).toBe(2);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(-1); // never moved
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.sendBacks.map((s) => [s.offset, s.delayLevel])).toEqual([
      [1000, -1],
      [1001, -1],
      [1000, -1],
      [1001, -1],
    ]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(2);
    expect(listener.calls).toHaveLength(1);
    expect(context.counters.localRetries).toBe(0);
    await stopService(service);
  });

  it('stop() cancels a waiting hand-off retry: the message stays unconsumed, never dropped', async () => {
    const { listener, put, service, state, offsetStore, pq } = concurrent({ localRetryDelayMs: 1000 });
    state.failing = 1;
    put(msgs(0, 1));
    listener.calls[0]?.resolve({
      status: 'FAILED',
      reason: 'x',
      deadLetter: [{ index: 0, reason: 'too old' }],
    });
    await flush();
    await stopService(service);
    await vi.advanceTimersByTimeAsync(5000);
    expect(pq.messageCount).toBe(1);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(-1); // never moved
  });

  it('failed messages sent back at reconsumeTimes >= maxReconsumeTimes are reported as final failures', async () => {
    const { listener, put, service, context } = concurrent({ maxReconsumeTimes: 2 });
    put([msg(0, { reconsumeTimes: 2 }), msg(1, { reconsumeTimes: 1 }), msg(2, { reconsumeTimes: 3 })]);
    listener.calls[0]?.resolve({ status: 'FAILED', reason: 'invoke failed (timeout)' });
    await flush();
    expect(listener.finalFailures).toEqual([{ offsets: [0, 2], reason: 'invoke failed (timeout)' }]);
    // The broker moves the two at the limit to the DLQ: dead-lettered, and among the sent back.
    expect(context.counters).toMatchObject({ sentBack: 3, deadLettered: 2 });
    await stopService(service);
  });

  it('no final failure when the send-back failed (the message is retried locally), nor in broadcasting', async () => {
    const flaky = concurrent({ maxReconsumeTimes: 0 });
    flaky.state.failing = 1;
    flaky.put(msgs(0, 1));
    flaky.listener.calls[0]?.resolve({ status: 'FAILED', reason: 'x' });
    await flush();
    expect(flaky.listener.finalFailures).toEqual([]);
    await stopService(flaky.service);

    const broadcast = concurrent({ maxReconsumeTimes: 0, messageModel: 'BROADCASTING' });
    broadcast.put(msgs(0, 1));
    broadcast.listener.calls[0]?.resolve({
      status: 'FAILED',
      reason: 'x',
      deadLetter: [{ index: 0, reason: 'too large' }],
    });
    await flush();
    expect(broadcast.client.sendBacks).toEqual([]);
    expect(broadcast.listener.finalFailures).toEqual([]);
    expect(await broadcast.offsetStore.readOffset(queueA, 'MEMORY')).toBe(1);
    await stopService(broadcast.service);
  });
});

describe('orderly: final failures', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("'skip': a record skipped at the limit is reported once the DLQ took it; dead letters are not", async () => {
    const { add, put, listener, service, client, context } = orderly({
      batchSize: 2,
      maxReconsumeTimes: 0,
      orderlyFailure: 'skip',
    });
    await add();
    put(msgs(0, 2));
    listener.calls[0]?.resolve({
      status: 'FAILED',
      reason: 'invoke failed (function-error)',
      deadLetter: [{ index: 1, reason: 'record too large' }],
    });
    await flush();
    expect(client.sendBacks.map((s) => [s.offset, s.delayLevel])).toEqual([
      [1000, -1],
      [1001, -1],
    ]);
    expect(listener.finalFailures).toEqual([{ offsets: [0], reason: 'invoke failed (function-error)' }]);
    expect(context.counters.deadLettered).toBe(2);
    await stopService(service);
  });

  it("'skip': no report while the DLQ hand-off fails; 'block' never reports", async () => {
    const skip = orderly({ batchSize: 1, maxReconsumeTimes: 0, orderlyFailure: 'skip' });
    skip.state.failing = 1;
    await skip.add();
    skip.put(msgs(0, 1));
    skip.listener.calls[0]?.resolve({ status: 'FAILED', reason: 'x' });
    await flush();
    expect(skip.listener.finalFailures).toEqual([]);
    await stopService(skip.service);

    const block = orderly({ batchSize: 1, maxReconsumeTimes: 0, orderlyFailure: 'block' });
    await block.add();
    block.put(msgs(0, 1));
    block.listener.calls[0]?.resolve({ status: 'FAILED', reason: 'x' });
    await flush();
    expect(block.client.sendBacks).toEqual([]);
    expect(block.listener.finalFailures).toEqual([]);
    await stopService(block.service);
  });
});

describe('notifyFinalFailure and DeadLetterHandOff', () => {
  it('a rejecting listener is logged, not thrown; listeners without the method are skipped', async () => {
    const listener = new NotifiedListener();
    listener.notifyFailure = new Error('SQS down');
    const view = { message: msg(0), queue: queueA, topic: 'T' };
    await expect(notifyFinalFailure(listener, [view], 'x', rootLogger)).resolves.toBeUndefined();
    expect(listener.finalFailures).toHaveLength(1);
    await expect(
      notifyFinalFailure(new ControlledListener(), [view], 'x', rootLogger),
    ).resolves.toBeUndefined();
    await notifyFinalFailure(listener, [], 'x', rootLogger);
    expect(listener.finalFailures).toHaveLength(1);
  });

  it('does not retry entries of a dropped queue', async () => {
    vi.useFakeTimers();
    try {
      const sent: number[] = [];
      const handedOff: string[] = [];
      const pq = new ProcessQueue(queueA);
      const handOff = new DeadLetterHandOff<string>({
        sendBack: {
          sendBack: async (message) => {
            sent.push(message.queueOffset);
          },
        },
        counters: newConsumerCounters(),
        log: rootLogger,
        retryDelayMs: 100,
        onHandedOff: (items) => handedOff.push(...items),
      });
      const entry = { item: 'a', message: msg(0), processQueue: pq, topic: 'T', reason: 'r' };
      handOff.retryLater([entry]);
      expect(handOff.pending).toBe(1);
      await vi.advanceTimersByTimeAsync(100);
      expect(handedOff).toEqual(['a']);
      pq.dropped = true;
      handOff.retryLater([{ ...entry, item: 'b' }]);
      await vi.advanceTimersByTimeAsync(100);
      expect(handedOff).toEqual(['a']);
      expect(sent).toEqual([0]);
      await handOff.stop();
      expect(handOff.pending).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
