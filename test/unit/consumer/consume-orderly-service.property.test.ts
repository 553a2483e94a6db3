import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConsumeOrderlyService } from '../../../src/consumer/consume/orderly/consume-orderly-service.js';
import type {
  ConsumedMessage,
  ConsumeResult,
  MessageListener,
} from '../../../src/consumer/message-listener.js';
import { ProcessQueue } from '../../../src/consumer/pull/process-queue.js';
import type { MessageQueue } from '../../../src/protocol/message-queue.js';
import { fakeClient, msg, queueA, queueB, serviceContext } from './fakes.js';

type Decision =
  | { kind: 'success' }
  | { kind: 'failed' }
  | { kind: 'throw' }
  | { kind: 'partial'; at: number; alsoLater: boolean; dead: boolean };

const decision: fc.Arbitrary<Decision> = fc.oneof(
  fc.constant<Decision>({ kind: 'success' }),
  fc.constant<Decision>({ kind: 'failed' }),
  fc.constant<Decision>({ kind: 'throw' }),
  fc.record({
    kind: fc.constant('partial' as const),
    at: fc.nat(9),
    alsoLater: fc.boolean(),
    dead: fc.boolean(),
  }),
);

const scenario = fc.record({
  counts: fc.tuple(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 20 })),
  batchSize: fc.integer({ min: 1, max: 5 }),
  maxConcurrency: fc.integer({ min: 1, max: 2 }),
  orderlyFailure: fc.constantFrom('skip' as const, 'block' as const),
  maxReconsumeTimes: fc.integer({ min: 0, max: 3 }),
  decisions: fc.array(decision, { maxLength: 40 }),
});

/**
 * Per queue, what the service may consider finished: every offset below `settledUpTo`, then the last
 * batch's records in order while each either succeeded or is in the DLQ (the service settles exactly
 * that prefix once it handled the result).
 */
class QueueModel {
  readonly batches: number[][] = [];
  readonly successes: number[];
  readonly inDlq = new Set<number>();
  settledUpTo = 0;
  last: { offsets: number[]; ok: boolean[] } | undefined;
  inFlight = 0;

  constructor(readonly count: number) {
    this.successes = Array.from({ length: count }, () => 0);
  }

  firstUnfinished(): number {
    if (this.last === undefined) return this.settledUpTo;
    let next = this.settledUpTo;
    for (const [i, offset] of this.last.offsets.entries()) {
      if (!this.last.ok[i] && !this.inDlq.has(offset)) break;
      next = offset + 1;
    }
    return next;
  }

  /** Folds the last batch into `settledUpTo` and counts its settled successes. */
  settle(): void {
    const next = this.firstUnfinished();
    if (this.last !== undefined) {
      for (const [i, offset] of this.last.offsets.entries()) {
        if (offset < next && this.last.ok[i]) this.successes[offset] = (this.successes[offset] ?? 0) + 1;
      }
    }
    this.settledUpTo = next;
    this.last = undefined;
  }
}

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

async function runScenario(s: Scenario) {
  const models = [new QueueModel(s.counts[0]), new QueueModel(s.counts[1])];
  const queues: MessageQueue[] = [queueA, queueB];
  const modelOf = (queue: MessageQueue) => models[queue.queueId] as QueueModel;
  const violations: string[] = [];
  let next = 0;
  let running = 0;
  const listener: MessageListener = {
    async consume(messages: readonly ConsumedMessage[]): Promise<ConsumeResult> {
      const first = messages[0] as ConsumedMessage;
      const model = modelOf(first.queue);
      const offsets = messages.map((m) => m.message.queueOffset);
      model.settle();
      const start = model.settledUpTo;
      if (offsets.some((offset, i) => offset !== start + i)) {
        violations.push(`queue ${first.queue.queueId}: batch ${offsets} but first unfinished is ${start}`);
      }
      model.batches.push(offsets);
      model.inFlight++;
      running++;
      if (model.inFlight > 1) violations.push(`queue ${first.queue.queueId}: two batches in flight`);
      if (running > s.maxConcurrency) violations.push(`${running} queues consuming at once`);
      await Promise.resolve();
      model.inFlight--;
      running--;
      const d = s.decisions[next++] ?? { kind: 'success' };
      let failed: number[] = [];
      let result: ConsumeResult = { status: 'SUCCESS' };
      if (d.kind === 'failed' || d.kind === 'throw') {
        failed = offsets.map((_, i) => i);
        result = { status: 'FAILED', reason: 'f' };
      }
      if (d.kind === 'partial') {
        const at = d.at % messages.length;
        failed = [at];
        if (d.alsoLater && at + 1 < messages.length) failed.push(messages.length - 1);
        const deadLetter = d.dead ? [{ index: at, reason: 'dead' }] : undefined;
        result = { status: 'PARTIAL', failedIndexes: failed, reason: 'p', deadLetter };
      }
      model.last = { offsets, ok: offsets.map((_, i) => !failed.includes(i)) };
      if (d.kind === 'throw') throw new Error('handler threw');
      return result;
    },
  };
  const client = fakeClient({
    lockBatchMQ: async (_address, body) => [...body.mqSet],
    unlockBatchMQ: async () => undefined,
    unlockBatchMQOneway: async () => undefined,
    consumerSendMsgBack: async (_address, header) => {
      const queueId = header.offset >= 10_000 ? 1 : 0;
      (models[queueId] as QueueModel).inDlq.add(header.offset % 10_000);
    },
  });
  const pqs = queues.map((queue) => new ProcessQueue(queue));
  const { context, offsetStore } = serviceContext(
    {
      orderly: true,
      batchSize: s.batchSize,
      maxConcurrency: s.maxConcurrency,
      orderlyFailure: s.orderlyFailure,
      maxReconsumeTimes: s.maxReconsumeTimes,
      suspendCurrentQueueTimeMs: 10,
    },
    listener,
    client,
    pqs,
  );
  const update = offsetStore.updateOffset.bind(offsetStore);
  vi.spyOn(offsetStore, 'updateOffset').mockImplementation((queue, offset, increaseOnly) => {
    const limit = modelOf(queue).firstUnfinished();
    if (offset > limit)
      violations.push(`queue ${queue.queueId}: committed ${offset} past unfinished ${limit}`);
    update(queue, offset, increaseOnly);
  });
  const service = new ConsumeOrderlyService(context, { masterAddress: () => '127.0.0.1:10911' });
  for (const pq of pqs) await service.queueHooks.beforeAdd(pq.messageQueue, pq);
  pqs.forEach((pq, queueId) => {
    const count = s.counts[queueId] ?? 0;
    const all = Array.from({ length: count }, (_, offset) =>
      msg(offset, { queueId, physicalOffset: queueId * 10_000 + offset, msgId: `${queueId}-${offset}` }),
    );
    // Two "pulls" per queue.
    for (const part of [all.slice(0, Math.ceil(count / 2)), all.slice(Math.ceil(count / 2))]) {
      const { added, dispatchToConsume } = pq.putMessages(part);
      service.submit(added, pq, dispatchToConsume);
    }
  });
  for (let i = 0; i < 2000 && models.some((m) => m.firstUnfinished() < m.count); i++) {
    await vi.advanceTimersByTimeAsync(50);
  }
  const stopped = service.stop(0);
  await vi.advanceTimersByTimeAsync(1);
  await stopped;
  for (const model of models) model.settle();

  expect(violations).toEqual([]);
  for (const [queueId, model] of models.entries()) {
    const queue = queues[queueId] as MessageQueue;
    expect(model.settledUpTo).toBe(model.count);
    if (model.count > 0) expect(await offsetStore.readOffset(queue, 'MEMORY')).toBe(model.count);
    // Every message succeeded exactly once, or went to the DLQ instead.
    model.successes.forEach((successes, offset) => {
      expect(successes + (model.inDlq.has(offset) ? 1 : 0)).toBe(1);
    });
    // The batches that delivered a message are consecutive batches of its queue.
    for (let offset = 0; offset < model.count; offset++) {
      const seenIn = model.batches.flatMap((batch, index) => (batch.includes(offset) ? [index] : []));
      const firstSeen = seenIn[0] ?? 0;
      expect(seenIn).toEqual(seenIn.map((_, k) => firstSeen + k));
    }
  }
  if (s.orderlyFailure === 'block') {
    for (const model of models) expect(model.successes.every((n) => n === 1)).toBe(true);
  }
}

describe('ConsumeOrderlyService (property)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('under random failures: per-queue offset order, consecutive redeliveries, no commit past unfinished', async () => {
    await fc.assert(fc.asyncProperty(scenario, runScenario), { numRuns: 100 });
  }, 60_000);
});
