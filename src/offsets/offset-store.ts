/**
 * Where a consumer group's progress per queue lives. The offset is the next offset to consume: the
 * smallest offset not yet finished in the ProcessQueue, so a crash can only cause redelivery, never loss.
 *
 * The in-memory table is the source of truth between persists; `persist*` writes it out.
 * Implementations: {@link MemoryOffsetStore}, {@link FileOffsetStore} (broadcasting), {@link DynamoDbOffsetStore}
 * (clustering).
 */
import type { MessageQueue } from '../protocol/message-queue.js';

/** Returned by {@link OffsetStore.readOffset} when no offset is known for the queue. */
export const NO_OFFSET = -1;

/** Where {@link OffsetStore.readOffset} looks. */
export type ReadOffsetType = 'MEMORY' | 'STORE' | 'MEMORY_THEN_STORE';

export interface OffsetStore {
  /** Loads what a local store keeps (file); a no-op for remote stores. */
  load(): Promise<void>;
  /**
   * The stored offset of `queue`, or {@link NO_OFFSET}. `STORE` reads the backing store and caches the
   * result in memory. Rejects (retriable) when the backing store cannot be read: the caller must not guess.
   */
  readOffset(queue: MessageQueue, type: ReadOffsetType): Promise<number>;
  /**
   * Sets the in-memory offset. With `increaseOnly` a smaller value is ignored (concurrent consumption);
   * without it the value replaces the current one (orderly commits, corrections after OFFSET_ILLEGAL).
   */
  updateOffset(queue: MessageQueue, offset: number, increaseOnly: boolean): void;
  /** Writes the in-memory offset of `queue` if it changed since the last successful write. */
  persist(queue: MessageQueue): Promise<void>;
  /** Writes every changed in-memory offset of `queues` (at most one write per queue). */
  persistAll(queues: readonly MessageQueue[]): Promise<void>;
  /** Forgets the in-memory offset of a queue this consumer no longer owns (after persisting it). */
  removeOffset(queue: MessageQueue): void;
  /** Releases resources (clients, handles). Does not persist: the owner persists before closing. */
  close(): Promise<void>;
}
