/**
 * The hooks the metrics hang on in the lower layers: the function listener tells its observer how each
 * invoke ended and of each throttle (through the invoke request's `onThrottle`, which the Lambda invoker
 * calls for every 429 over HTTP), and a ProcessQueue snapshot carries the store time of its oldest message.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PullResult } from '../../../src/client/pull-result.js';
import { newConsumerCounters } from '../../../src/consumer/consumer-counters.js';
import type { PullObservation } from '../../../src/consumer/consumer-observer.js';
import { ProcessQueue } from '../../../src/consumer/pull/process-queue.js';
import { PullLoop } from '../../../src/consumer/pull/pull-loop.js';
import { FunctionMessageListener } from '../../../src/invoke/function-listener.js';
import { InvokeError } from '../../../src/invoke/invoke-error.js';
import type { InvokeObservation } from '../../../src/invoke/invoke-observer.js';
import type { InvokeOutcome, InvokeRequest, Invoker } from '../../../src/invoke/invoker.js';
import { LambdaInvoker } from '../../../src/invoke/lambda-invoker.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import { buildSubscriptionData } from '../../../src/protocol/subscription.js';
import { rootLogger } from '../../../src/util/logger.js';
import { LambdaApiServer } from '../../support/lambda-api-server.js';
import { msg, options, queueA } from '../consumer/fakes.js';
import { batchOf } from '../invoke/consumed-message.js';

const context = { consumerGroup: 'orders-fn', orderly: false, signal: new AbortController().signal };

function observed(invoker: Invoker) {
  const invokes: InvokeObservation[] = [];
  let throttles = 0;
  const listener = new FunctionMessageListener({
    invoker,
    functionRef: 'orders',
    consumerGroup: 'orders-fn',
    observer: {
      invoked: (invoke) => invokes.push(invoke),
      throttled: () => {
        throttles++;
      },
    },
  });
  return { listener, invokes, throttles: () => throttles };
}

/** An invoker answering from a script, calling `onThrottle` as many times as asked first. */
function scripted(...steps: { throttles?: number; outcome: InvokeOutcome | Error }[]): Invoker {
  return {
    async invoke(request: InvokeRequest) {
      const step = steps.shift();
      if (step === undefined) throw new Error('no more steps');
      for (let i = 0; i < (step.throttles ?? 0); i++) request.onThrottle?.();
      if (step.outcome instanceof Error) throw step.outcome;
      return step.outcome;
    },
    close: async () => undefined,
  };
}

describe('FunctionMessageListener observer', () => {
  it('tells each invoke outcome with its size and duration, and every throttle', async () => {
    const { listener, invokes, throttles } = observed(
      scripted(
        { throttles: 2, outcome: { ok: true, payload: Buffer.from('null') } },
        { outcome: { ok: false, kind: 'function-error', message: '{"errorType":"Error"}' } },
        { outcome: new InvokeError('gone', { functionRef: 'orders', fatal: true }) },
      ),
    );
    await listener.consume(batchOf(3), context);
    await listener.consume(batchOf(2), context);
    await expect(listener.consume(batchOf(1), context)).rejects.toThrow('gone');
    expect(invokes.map(({ kind, messages }) => [kind, messages])).toEqual([
      ['success', 3],
      ['function-error', 2],
      ['invoker-error', 1],
    ]);
    expect(invokes.every(({ durationMs }) => durationMs >= 0)).toBe(true);
    expect(throttles()).toBe(2);
  });

  it('a throwing observer does not fail the batch', async () => {
    const listener = new FunctionMessageListener({
      invoker: scripted({ outcome: { ok: true, payload: Buffer.from('null') } }),
      functionRef: 'orders',
      consumerGroup: 'orders-fn',
      observer: {
        invoked: () => {
          throw new Error('observer bug');
        },
      },
    });
    expect((await listener.consume(batchOf(1), context)).status).toBe('SUCCESS');
  });
});

describe('LambdaInvoker onThrottle', () => {
  let server: LambdaApiServer;
  beforeAll(async () => {
    server = await LambdaApiServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('is called for every 429 the Invoke API answers, before the invoke succeeds', async () => {
    server.register('orders', () => null);
    server.injectFaults('orders', { kind: 'throttle' }, { kind: 'throttle' }, { kind: 'throttle' });
    const invoker = new LambdaInvoker({
      ...server.clientOptions(),
      throttleInitialDelayMs: 1,
      throttleMaxDelayMs: 5,
    });
    const { listener, invokes, throttles } = observed(invoker);
    await listener.consume(batchOf(2), context);
    await invoker.close();
    expect(throttles()).toBe(3);
    expect(invokes.map(({ kind }) => kind)).toEqual(['success']);
    expect(server.calls('orders').map((call) => call.status)).toEqual([429, 429, 429, 200]);
  });
});

describe('ProcessQueue snapshot', () => {
  it('carries the store time of the oldest held message, waiting or in flight', () => {
    const pq = new ProcessQueue({ topic: 'T', brokerName: 'broker-a', queueId: 0 });
    expect(pq.snapshot().oldestStoreTimestampMs).toBeUndefined();
    pq.putMessages([msg(5, { storeTimestamp: 5000 }), msg(6, { storeTimestamp: 6000 })]);
    expect(pq.snapshot().oldestStoreTimestampMs).toBe(5000);
    pq.takeMessages(1); // orderly: offset 5 in flight
    expect(pq.snapshot().oldestStoreTimestampMs).toBe(5000);
    pq.commit();
    expect(pq.snapshot().oldestStoreTimestampMs).toBe(6000);
    pq.removeMessages([{ queueOffset: 6 }]);
    expect(pq.snapshot().oldestStoreTimestampMs).toBeUndefined();
  });
});

describe('PullLoop observer', () => {
  it('is told how long each pull took and whether it was answered', async () => {
    const steps: (PullResult | Error)[] = [
      {
        status: 'FOUND',
        messages: [msg(10)],
        nextBeginOffset: 11,
        minOffset: 0,
        maxOffset: 11,
        suggestWhichBrokerId: 0,
      },
      new Error('connection reset'),
    ];
    const pulls: PullObservation[] = [];
    const loop = new PullLoop(
      {
        processQueue: new ProcessQueue(queueA),
        broker: {
          pullMessage: () => {
            const step = steps.shift();
            if (step === undefined) return new Promise<PullResult>(() => undefined);
            return step instanceof Error ? Promise.reject(step) : Promise.resolve(step);
          },
        },
        routes: {
          pullTarget: () => ({ address: 'master:10911', brokerId: 0 }),
          refreshSoon: async () => undefined,
        },
        offsetStore: new MemoryOffsetStore(),
        consumeService: { submit: () => undefined },
        subscription: buildSubscriptionData('T', '*'),
        options: options({ pullDelayOnErrorMs: 10 }),
        counters: newConsumerCounters(),
        log: rootLogger,
        onOffsetIllegal: () => undefined,
        onNeedsRebalance: () => undefined,
        resolveStartOffset: async () => 10,
        observer: { pullCompleted: (pull) => pulls.push(pull) },
      },
      10,
    );
    loop.start();
    await vi.waitFor(() => expect(pulls).toHaveLength(2));
    await loop.stop();
    expect(pulls.map(({ queue, answered }) => [queue, answered])).toEqual([
      [queueA, true],
      [queueA, false],
    ]);
    expect(pulls.every(({ durationMs }) => durationMs >= 0)).toBe(true);
  });
});
