import { describe, expect, it } from 'vitest';
import { LocalRedeliveries } from '../../../../../src/consumer/consume/orderly/local-redeliveries.js';
import {
  type BatchRecord,
  OrderlyResultApplier,
} from '../../../../../src/consumer/consume/orderly/orderly-result-applier.js';
import type { ConsumerOptions } from '../../../../../src/consumer/consumer-options.js';
import type { ConsumedMessage, ConsumeResult } from '../../../../../src/consumer/message-listener.js';
import { ProcessQueue } from '../../../../../src/consumer/pull/process-queue.js';
import { ControlledListener, fakeClient, msgs, queueA, serviceContext } from '../../fakes.js';

/** A listener that records final-failure notifications. */
class NotifiedListener extends ControlledListener {
  readonly finalFailures: number[][] = [];

  async notifyFinalFailure(messages: readonly ConsumedMessage[]): Promise<void> {
    this.finalFailures.push(messages.map((m) => m.message.queueOffset));
  }
}

/** An applier over one queue whose first `count` messages are in flight, as the service takes them. */
function setup(options: Partial<ConsumerOptions>, count: number, client = fakeClient()) {
  const listener = new NotifiedListener();
  const pq = new ProcessQueue(queueA);
  const ctx = serviceContext({ orderly: true, ...options }, listener, client, [pq]);
  pq.putMessages(msgs(0, count));
  const redeliveries = new LocalRedeliveries();
  const applier = new OrderlyResultApplier(ctx.context, redeliveries);
  const records: BatchRecord[] = pq
    .takeMessages(count)
    .map((message) => ({ message, view: { message, queue: queueA, topic: 'T' } }));
  const apply = (result: ConsumeResult, inFlight = { aborted: false }) =>
    applier.apply(pq, records, result, inFlight);
  return { ...ctx, client, listener, pq, redeliveries, records, apply };
}

describe('OrderlyResultApplier', () => {
  it('SUCCESS commits the whole batch (overwrite) and the queue continues', async () => {
    const { apply, offsetStore, context } = setup({}, 3);
    expect(await apply({ status: 'SUCCESS' })).toBe('continue');
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(3);
    expect(context.counters).toMatchObject({ consumedOk: 3, consumedFailed: 0, localRetries: 0 });
  });

  it("'skip': settles through a dead letter, stops at the first record to retry, blames only failed records", async () => {
    const { apply, offsetStore, client, records, redeliveries, context, pq } = setup(
      { orderlyFailure: 'skip', maxReconsumeTimes: 5 },
      5,
    );
    const result: ConsumeResult = {
      status: 'PARTIAL',
      failedIndexes: [1, 3],
      reason: 'x',
      deadLetter: [{ index: 1, reason: 'too large' }],
    };
    expect(await apply(result)).toBe('suspend');
    expect(client.sendBacks.map((b) => [b.offset, b.delayLevel])).toEqual([[1001, -1]]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(3);
    expect(pq.takeMessages(5).map((m) => m.queueOffset)).toEqual([3, 4]);
    const [failed, behind] = [records[3], records[4]].map((r) => r?.message);
    if (failed === undefined || behind === undefined) throw new Error('no records');
    expect([redeliveries.failuresOf(failed), redeliveries.failuresOf(behind)]).toEqual([1, 0]);
    expect([redeliveries.viewOf(failed), redeliveries.viewOf(behind)].map((m) => m.reconsumeTimes)).toEqual([
      1, 1,
    ]);
    // Records 3 and 4 are consumed again: their successes and failures count then.
    expect(context.counters).toMatchObject({
      consumedOk: 2,
      consumedFailed: 2,
      localRetries: 2,
      sentBack: 1,
    });
  });

  it('a queue dropped during a DLQ hand-off: nothing committed, the skipped record reported, result discarded', async () => {
    const client = fakeClient();
    const { apply, offsetStore, listener, context, pq } = setup(
      { orderlyFailure: 'skip', maxReconsumeTimes: 0 },
      2,
      client,
    );
    const send = client.broker.consumerSendMsgBack;
    client.broker.consumerSendMsgBack = async (address, header) => {
      await send(address, header);
      pq.dropped = true;
    };
    expect(await apply({ status: 'FAILED', reason: 'x' })).toBe('stop');
    expect(client.sendBacks.map((b) => b.offset)).toEqual([1000]);
    expect(listener.finalFailures).toEqual([[0]]);
    expect(await offsetStore.readOffset(queueA, 'MEMORY')).toBe(-1);
    expect(context.counters).toMatchObject({ discardedResults: 1, consumedOk: 0, localRetries: 0 });
  });

  it("'block': a blamed record past the limit is retried, counted and never sent to the DLQ", async () => {
    const { apply, client, context } = setup({ orderlyFailure: 'block', maxReconsumeTimes: 0 }, 2);
    const deadLetter = [{ index: 0, reason: 'too large' }];
    expect(await apply({ status: 'PARTIAL', failedIndexes: [0], reason: 'x', deadLetter })).toBe('suspend');
    expect(client.sendBacks).toEqual([]);
    expect(context.counters).toMatchObject({ blockedRetries: 1, localRetries: 2, consumedOk: 0 });
  });
});
