/**
 * What every offset store tells the consumer besides offsets: whether its writes are failing (since when,
 * why), for health checks, and the offset resets its writes discovered (see offset-store.ts), for the
 * consumer to restart a queue where the store now says.
 */
import type { MessageQueue } from '../protocol/message-queue.js';
import type { OffsetResetListener, OffsetStoreHealth, StoredOffsetRecord } from './offset-store.js';

/**
 * Write health and reset listeners of one store.
 */
export class StoreObservers {
  readonly #listeners = new Set<OffsetResetListener>();
  readonly #now: () => number;
  #failingSinceMs: number | undefined;
  #lastError: unknown;

  constructor(
    private readonly onListenerError: (error: unknown) => void,
    now: () => number = Date.now,
  ) {
    this.#now = now;
  }

  /** A write reached the backing store: writes are healthy again. */
  writeSucceeded(): void {
    this.#failingSinceMs = undefined;
    this.#lastError = undefined;
  }

  /** A write failed after its retries. */
  writeFailed(error: unknown): void {
    this.#failingSinceMs ??= this.#now();
    this.#lastError = error;
  }

  health(): OffsetStoreHealth {
    return { failingSinceMs: this.#failingSinceMs, lastError: this.#lastError };
  }

  onOffsetReset(listener: OffsetResetListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Tells every listener that `queue` was reset in the store to `record`. */
  resetFound(queue: MessageQueue, record: StoredOffsetRecord): void {
    for (const listener of this.#listeners) {
      try {
        listener(queue, record);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
