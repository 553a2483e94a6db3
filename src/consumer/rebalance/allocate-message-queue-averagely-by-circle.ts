/**
 * Round-robin queue allocation (Java `AllocateMessageQueueAveragelyByCircle`, strategy `AVG_BY_CIRCLE`):
 * the queues are dealt to the sorted clients like cards, so a client's queues are spread over the
 * brokers instead of lying in one contiguous run (with `AVG`, one client may hold all queues of one
 * broker).
 */
import type { MessageQueue } from '../../protocol/message-queue.js';
import type { AllocationStrategy } from './allocation-strategy.js';

/**
 * The queues `clientId` owns among `clientIds`: the queue at index `i` goes to the client at index
 * `i % clientIds.length`. Both lists must already be sorted the same way on every client (see
 * allocation-strategy.ts). A client not in the list gets nothing.
 */
export function allocateMessageQueueAveragelyByCircle<Q = MessageQueue>(
  queues: readonly Q[],
  clientIds: readonly string[],
  clientId: string,
): Q[] {
  const index = clientIds.indexOf(clientId);
  if (index < 0) return [];
  return queues.filter((_queue, i) => i % clientIds.length === index);
}

/** {@link allocateMessageQueueAveragelyByCircle} as an {@link AllocationStrategy} (Java `AVG_BY_CIRCLE`). */
export const averagelyByCircleStrategy: AllocationStrategy = {
  name: 'AVG_BY_CIRCLE',
  allocate: (_consumerGroup, currentClientId, queues, clientIds) =>
    allocateMessageQueueAveragelyByCircle(queues, clientIds, currentClientId),
};
