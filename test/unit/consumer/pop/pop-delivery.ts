/** POP deliveries for the settler's tests. */
import type { PopDelivery } from '../../../../src/consumer/pop/pop-batch-settler.js';
import { consumed } from '../../invoke/consumed-message.js';

/**
 * The delivery of message `index` of queue 1 on broker-a, consumed `reconsumeTimes` times before: popped
 * from the retry topic (retry mark 1) once it has been retried, as a broker hands it out.
 */
export function popDelivery(index: number, reconsumeTimes: number): PopDelivery {
  return {
    consumed: consumed({
      msgId: `id-${index}`,
      queueOffset: index,
      reconsumeTimes,
      physicalOffset: 1000 + index,
    }),
    receipt: {
      ckQueueOffset: 0,
      popTime: 1,
      invisibleTime: 60_000,
      reviveQid: 0,
      retryMark: reconsumeTimes > 0 ? '1' : '0',
      brokerName: 'broker-a',
      queueId: 1,
      queueOffset: index,
    },
  };
}
