/**
 * An offset store that keeps offsets in memory only: for tests, local runs and throwaway consumers.
 * Offsets are lost when the process ends.
 */
import type { MessageQueue } from '../protocol/message-queue.js';
import { messageQueueKey } from '../protocol/message-queue.js';
import { componentLogger } from '../util/logger.js';
import type { OffsetStore, StoredOffsetRecord } from './offset-store.js';
import { localRecord } from './offset-table.js';
import { TableOffsetStore } from './table-offset-store.js';

const log = componentLogger('offsets.memory');

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
export class MemoryOffsetStore extends TableOffsetStore {
  constructor() {
    super(log);
  }

  async load(): Promise<void> {
    // Nothing to load: the table lives only in this process.
  }

  async persist(queue: MessageQueue): Promise<void> {
    await this.persistAll([queue]);
  }

  async persistAll(queues: readonly MessageQueue[]): Promise<void> {
    for (const write of this.table.dirtyWrites(queues.map(messageQueueKey))) {
      this.table.markStored(write, write.correction ? write.generation + 1 : write.generation);
    }
  }

  /** One poller per store: a claim is a persist. */
  claim(queue: MessageQueue): Promise<void> {
    return this.persistAll([queue]);
  }

  release(queues: readonly MessageQueue[]): Promise<void> {
    return this.persistAll(queues);
  }

  /** Whether `queue` has an offset not yet persisted (for tests and status output). */
  isDirty(queue: MessageQueue): boolean {
    return this.table.isDirty(messageQueueKey(queue));
  }

  async close(): Promise<void> {
    // Nothing to release.
  }

  protected async readStoredRecord(key: string): Promise<StoredOffsetRecord | undefined> {
    return this.table.has(key) ? localRecord(this.table.get(key), this.table.generation(key)) : undefined;
  }
}
