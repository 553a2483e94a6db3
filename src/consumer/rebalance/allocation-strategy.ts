/**
 * AllocationStrategy: how a clustering group divides a topic's queues among its clients (Java
 * `AllocateMessageQueueStrategy`). Every client computes its own share independently, so a strategy must
 * be a pure function of its arguments: the same sorted queues and client ids give every client the same
 * partition, and the shares of all clients together hold every queue exactly once. A group mixing our
 * pollers with Java consumers stays consistent only when both run the same strategy with the same
 * semantics (each implementation's file says which Java class it matches).
 */
import type { MessageQueue } from '../../protocol/message-queue.js';

/**
 * A queue allocation strategy. Implementations: `averagelyStrategy` (default), `averagelyByCircleStrategy`,
 * `createConsistentHashStrategy`, `createZoneNearbyStrategy`; `createAllocationStrategy` builds one from
 * configuration values.
 */
export interface AllocationStrategy {
  /** Java's `getName()` of the equivalent strategy (`AVG`, `AVG_BY_CIRCLE`, ...), for logs. */
  readonly name: string;
  /**
   * The queues `currentClientId` owns. `queues` must be sorted with `compareMessageQueues` and
   * `clientIds` in Java string order (`compareJavaStrings`), the same on every client. A client not in
   * `clientIds` gets nothing. Never throws and never mutates its arguments.
   */
  allocate(
    consumerGroup: string,
    currentClientId: string,
    queues: readonly MessageQueue[],
    clientIds: readonly string[],
  ): MessageQueue[];
}
