/**
 * An offset store that keeps offsets in memory only: for tests, local runs and throwaway consumers.
 * Offsets are lost when the process ends.
 */
import type { MessageQueue } from '../protocol/message-queue.js';
import { messageQueueKey } from '../protocol/message-queue.js';
import { componentLogger } from '../util/logger.js';
import type {
  OffsetResetListener,
  OffsetStore,
  OffsetStoreHealth,
  ReadOffsetType,
  StoredOffsetRecord,
} from './offset-store.js';
import { localRecord, OffsetTable, readOffsetThrough, readRecordThrough } from './offset-table.js';
import { StoreObservers } from './store-observers.js';

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
export class MemoryOffsetStore implements OffsetStore {
  readonly #table = new OffsetTable();
  readonly #observers = new StoreObservers((err) => log.error({ err }, 'offset reset listener failed'));

  async load(): Promise<void> {
    // Nothing to load: the table lives only in this process.
  }

  readOffset(queue: MessageQueue, type: ReadOffsetType): Promise<number> {
    return readOffsetThrough(this.#table, queue, type, async (key) => this.#record(key));
  }

  readRecord(queue: MessageQueue): Promise<StoredOffsetRecord | undefined> {
    return readRecordThrough(this.#table, messageQueueKey(queue), async (key) => this.#record(key));
  }

  updateOffset(queue: MessageQueue, offset: number, increaseOnly: boolean): void {
    this.#table.update(messageQueueKey(queue), offset, increaseOnly);
  }

  correctOffset(queue: MessageQueue, offset: number): void {
    this.#table.correct(messageQueueKey(queue), offset);
  }

  async persist(queue: MessageQueue): Promise<void> {
    await this.persistAll([queue]);
  }

  async persistAll(queues: readonly MessageQueue[]): Promise<void> {
    for (const write of this.#table.dirtyWrites(queues.map(messageQueueKey))) {
      this.#table.markStored(write, write.correction ? write.generation + 1 : write.generation);
    }
  }

  /** One poller per store: a claim is a persist. */
  claim(queue: MessageQueue): Promise<void> {
    return this.persistAll([queue]);
  }

  release(queues: readonly MessageQueue[]): Promise<void> {
    return this.persistAll(queues);
  }

  removeOffset(queue: MessageQueue): void {
    this.#table.remove(messageQueueKey(queue));
  }

  onOffsetReset(listener: OffsetResetListener): () => void {
    return this.#observers.onOffsetReset(listener);
  }

  health(): OffsetStoreHealth {
    return this.#observers.health();
  }

  /** Whether `queue` has an offset not yet persisted (for tests and status output). */
  isDirty(queue: MessageQueue): boolean {
    return this.#table.isDirty(messageQueueKey(queue));
  }

  async close(): Promise<void> {
    // Nothing to release.
  }

  #record(key: string): StoredOffsetRecord | undefined {
    return this.#table.has(key) ? localRecord(this.#table.get(key), this.#table.generation(key)) : undefined;
  }
}
