import { describe, expect, it } from 'vitest';
import { newConsumerCounters } from '../../../../src/consumer/consumer-counters.js';
import type { ConsumedMessage } from '../../../../src/consumer/message-listener.js';
import { PopBatchSettler } from '../../../../src/consumer/pop/pop-batch-settler.js';
import { newPopCounters } from '../../../../src/consumer/pop/pop-status.js';
import type { ConsumerSendMsgBackRequestHeader } from '../../../../src/protocol/headers.js';
import type {
  AckMessageRequestHeader,
  ChangeInvisibleTimeRequestHeader,
} from '../../../../src/protocol/pop-headers.js';
import { componentLogger } from '../../../../src/util/logger.js';
import { popDelivery } from './pop-delivery.js';

function setup(options: { sendBackFails?: boolean } = {}) {
  const acks: AckMessageRequestHeader[] = [];
  const changes: ChangeInvisibleTimeRequestHeader[] = [];
  const sendBacks: ConsumerSendMsgBackRequestHeader[] = [];
  const finals: ConsumedMessage[] = [];
  const counters = newConsumerCounters();
  const popCounters = newPopCounters();
  const settler = new PopBatchSettler({
    pop: {
      ackMessage: async (_address, header) => {
        acks.push(header);
        return 'OK';
      },
      changeInvisibleTime: async (_address, header) => {
        changes.push(header);
        return { status: 'GONE' };
      },
    },
    broker: {
      consumerSendMsgBack: async (_address, header) => {
        if (options.sendBackFails) throw new Error('broker down');
        sendBacks.push(header);
      },
    },
    listener: {
      consume: async () => ({ status: 'SUCCESS' }),
      notifyFinalFailure: async (messages) => {
        finals.push(...messages);
      },
    },
    consumerGroup: 'G',
    topic: 'orders',
    maxReconsumeTimes: 2,
    retryDelaysMs: [1000, 5000],
    counters,
    popCounters,
    log: componentLogger('test'),
  });
  return { settler, acks, changes, sendBacks, finals, counters, popCounters };
}

describe('PopBatchSettler', () => {
  it('acks successes, delays failures by reconsumeTimes, dead-letters at the limit and then acks', async () => {
    const s = setup();
    const batch = [popDelivery(0, 0), popDelivery(1, 1), popDelivery(2, 2), popDelivery(3, 0)];
    await s.settler.settle('b:1', batch, {
      status: 'PARTIAL',
      failedIndexes: [1, 2, 3],
      reason: 'boom',
      deadLetter: [{ index: 3, reason: 'too large' }],
    });
    expect(s.changes.map((h) => [h.offset, h.invisibleTime, h.topic])).toEqual([
      [1, 5000, '%RETRY%G_orders'],
    ]);
    expect(s.sendBacks.map((h) => [h.offset, h.delayLevel, h.group]).sort()).toEqual([
      [1002, -1, 'G'],
      [1003, -1, 'G'],
    ]);
    expect(s.acks.map((h) => h.offset).sort()).toEqual([0, 2, 3]);
    // Only the retry-limit failure is a final failure: the listener reported its own dead letter.
    expect(s.finals.map((m) => m.message.msgId)).toEqual(['id-2']);
    expect(s.counters).toMatchObject({ consumedOk: 1, consumedFailed: 3, deadLettered: 2, sentBack: 2 });
    expect(s.popCounters).toMatchObject({ acks: 3, gone: 1 });
  });

  it('leaves a message whose dead-lettering failed unacked (it comes back)', async () => {
    const s = setup({ sendBackFails: true });
    await s.settler.settle('b:1', [popDelivery(0, 2)], { status: 'FAILED', reason: 'boom' });
    expect(s.acks).toEqual([]);
    expect(s.finals).toEqual([]);
    expect(s.counters.sendBackFailures).toBe(1);
  });
});
