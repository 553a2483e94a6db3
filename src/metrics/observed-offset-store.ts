/**
 * An offset store that tells an observer how each of its writes went, by operation, and otherwise does
 * exactly what the store it wraps does. The poller wraps each mapping's store in one for metrics, so that
 * neither the stores nor the consumer know about metrics.
 */
import type {
  OffsetResetListener,
  OffsetStore,
  OffsetStoreHealth,
  ReadOffsetType,
  StoredOffsetRecord,
} from '../offsets/offset-store.js';
import type { MessageQueue } from '../protocol/message-queue.js';

/**
 * The write operations of an {@link OffsetStore}, as metric labels.
 */
export type OffsetWriteOperation = 'persist' | 'persist_all' | 'claim' | 'release';

/**
 * Told of every write call: which operation, and whether it succeeded.
 */
export type OffsetWriteObserver = (operation: OffsetWriteOperation, ok: boolean) => void;

/**
 * The observing wrapper.
 */
export class ObservedOffsetStore implements OffsetStore {
  readonly #inner: OffsetStore;
  readonly #observe: OffsetWriteObserver;

  constructor(inner: OffsetStore, observe: OffsetWriteObserver) {
    this.#inner = inner;
    this.#observe = observe;
  }

  load(): Promise<void> {
    return this.#inner.load();
  }

  readOffset(queue: MessageQueue, type: ReadOffsetType): Promise<number> {
    return this.#inner.readOffset(queue, type);
  }

  readRecord(queue: MessageQueue): Promise<StoredOffsetRecord | undefined> {
    return this.#inner.readRecord(queue);
  }

  updateOffset(queue: MessageQueue, offset: number, increaseOnly: boolean): void {
    this.#inner.updateOffset(queue, offset, increaseOnly);
  }

  correctOffset(queue: MessageQueue, offset: number): void {
    this.#inner.correctOffset(queue, offset);
  }

  persist(queue: MessageQueue): Promise<void> {
    return this.#write('persist', () => this.#inner.persist(queue));
  }

  persistAll(queues: readonly MessageQueue[]): Promise<void> {
    return this.#write('persist_all', () => this.#inner.persistAll(queues));
  }

  claim(queue: MessageQueue): Promise<void> {
    return this.#write('claim', () => this.#inner.claim(queue));
  }

  release(queues: readonly MessageQueue[]): Promise<void> {
    return this.#write('release', () => this.#inner.release(queues));
  }

  removeOffset(queue: MessageQueue): void {
    this.#inner.removeOffset(queue);
  }

  onOffsetReset(listener: OffsetResetListener): () => void {
    return this.#inner.onOffsetReset(listener);
  }

  health(): OffsetStoreHealth {
    return this.#inner.health();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async #write(operation: OffsetWriteOperation, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.#observe(operation, false);
      throw error;
    }
    this.#observe(operation, true);
  }
}
