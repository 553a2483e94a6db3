/**
 * RocketMQ's default queue allocation (`AllocateMessageQueueAveragely`, strategy `AVG`): every client of
 * a group sorts the same queues and the same client ids, and takes one contiguous slice.
 */
import type { MessageQueue } from '../../protocol/message-queue.js';
import type { AllocationStrategy } from './allocation-strategy.js';

/**
 * The queues `clientId` owns among `clientIds`. Both lists must already be sorted the same way on every
 * client (queues with `compareMessageQueues`, ids in Java string order). A client not in the list gets
 * nothing; with more clients than queues the last clients get nothing.
 *
 * `n` queues over `c` clients, `mod = n % c`: the first `mod` clients take `floor(n/c) + 1` queues, the
 * others `floor(n/c)` (when `n <= c`, one each while queues last).
 */
export function allocateMessageQueueAveragely<Q = MessageQueue>(
  queues: readonly Q[],
  clientIds: readonly string[],
  clientId: string,
): Q[] {
  const index = clientIds.indexOf(clientId);
  if (index < 0 || queues.length === 0) return [];
  const n = queues.length;
  const c = clientIds.length;
  const mod = n % c;
  const takesExtra = mod > 0 && index < mod;
  const averageSize = n <= c ? 1 : takesExtra ? Math.floor(n / c) + 1 : Math.floor(n / c);
  const startIndex = takesExtra ? index * averageSize : index * averageSize + mod;
  const range = Math.min(averageSize, n - startIndex);
  return range <= 0 ? [] : queues.slice(startIndex, startIndex + range);
}

/**
 * {@link allocateMessageQueueAveragely} as an {@link AllocationStrategy} (Java `AVG`, the default of
 * Java's push consumer and of ours).
 */
export const averagelyStrategy: AllocationStrategy = {
  name: 'AVG',
  allocate: (_consumerGroup, currentClientId, queues, clientIds) =>
    allocateMessageQueueAveragely(queues, clientIds, currentClientId),
};
