/**
 * An offset store that keeps offsets in memory only: for tests, local runs and throwaway consumers.
 * Offsets are lost when the process ends.
 */
import type { MessageQueue } from '../protocol/message-queue.js';
import { messageQueueKey } from '../protocol/message-queue.js';
import type { OffsetStore, ReadOffsetType } from './offset-store.js';
import { OffsetTable, readOffsetThrough } from './offset-table.js';

/**
 * {@link OffsetStore} over a process-local table. `persist*` only marks offsets as stored; `STORE` reads
 * answer from the table.
 *
 * @example
 * ```ts
 * const store = new MemoryOffsetStore();
 * store.updateOffset({ topic: 'T', brokerName: 'broker-a', queueId: 0 }, 42, true);
 * await store.readOffset({ topic: 'T', brokerName: 'broker-a', queueId: 0 }, 'MEMORY'); // => 42
 * ```
 */
export class MemoryOffsetStore implements OffsetStore {
  readonly #table = new OffsetTable();

  async load(): Promise<void> {
    // Nothing to load: the table lives only in this process.
  }

  readOffset(queue: MessageQueue, type: ReadOffsetType): Promise<number> {
    return readOffsetThrough(this.#table, queue, type, async (key) => this.#table.get(key));
  }

  updateOffset(queue: MessageQueue, offset: number, increaseOnly: boolean): void {
    this.#table.update(messageQueueKey(queue), offset, increaseOnly);
  }

  async persist(queue: MessageQueue): Promise<void> {
    await this.persistAll([queue]);
  }

  async persistAll(queues: readonly MessageQueue[]): Promise<void> {
    for (const [key, offset] of this.#table.dirtyEntries(queues.map(messageQueueKey))) {
      this.#table.markStored(key, offset);
    }
  }

  removeOffset(queue: MessageQueue): void {
    this.#table.remove(messageQueueKey(queue));
  }

  /** Whether `queue` has an offset not yet persisted (for tests and status output). */
  isDirty(queue: MessageQueue): boolean {
    return this.#table.isDirty(messageQueueKey(queue));
  }

  async close(): Promise<void> {
    // Nothing to release.
  }
}
