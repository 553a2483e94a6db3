/**
 * The in-memory offset table every store is built on: per queue key, the current offset and the offset
 * last known to be in the backing store. A queue is dirty while the two differ, so an unchanged (or
 * changed-and-changed-back) offset is never written again.
 */
import type { MessageQueue } from '../protocol/message-queue.js';
import { messageQueueKey } from '../protocol/message-queue.js';
import type { ReadOffsetType } from './offset-store.js';
import { NO_OFFSET } from './offset-store.js';
import { assertValidOffset } from './offset-store-error.js';

interface OffsetEntry {
  /** The offset consumption has reached. */
  value: number;
  /** What the backing store holds as far as we know, or undefined when nothing was written or read. */
  stored: number | undefined;
}

/**
 * Offsets by queue key (`topic@brokerName@queueId`), with increase-only updates and dirty tracking.
 *
 * @example
 * ```ts
 * const table = new OffsetTable();
 * table.update('T@broker-a@0', 10, true);
 * table.update('T@broker-a@0', 7, true);   // ignored: smaller
 * table.dirtyEntries();                     // => [['T@broker-a@0', 10]]
 * table.markStored('T@broker-a@0', 10);
 * table.dirtyEntries();                     // => []
 * ```
 */
export class OffsetTable {
  readonly #entries = new Map<string, OffsetEntry>();

  /** The current offset of `key`, or {@link NO_OFFSET}. */
  get(key: string): number {
    return this.#entries.get(key)?.value ?? NO_OFFSET;
  }

  /** Whether an offset is known for `key`. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /**
   * Sets the offset of `key`. With `increaseOnly` a value not above the current one is ignored. Throws
   * {@link OffsetStoreError} when `offset` is not a non-negative safe integer. Returns whether it changed.
   */
  update(key: string, offset: number, increaseOnly: boolean): boolean {
    assertValidOffset(offset, key);
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.#entries.set(key, { value: offset, stored: undefined });
      return true;
    }
    if (entry.value === offset || (increaseOnly && offset < entry.value)) return false;
    entry.value = offset;
    return true;
  }

  /** Records an offset read from (or loaded out of) the backing store: current and stored become `offset`. */
  setFromStore(key: string, offset: number): void {
    assertValidOffset(offset, key);
    this.#entries.set(key, { value: offset, stored: offset });
  }

  /**
   * Records that `offset` of `key` is now in the backing store. A queue whose offset moved on meanwhile
   * stays dirty; a queue removed meanwhile stays removed.
   */
  markStored(key: string, offset: number): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) entry.stored = offset;
  }

  /** Whether the offset of `key` differs from what the backing store holds. */
  isDirty(key: string): boolean {
    const entry = this.#entries.get(key);
    return entry !== undefined && entry.value !== entry.stored;
  }

  /** `[key, offset]` of every dirty queue, restricted to `keys` when given. */
  dirtyEntries(keys?: Iterable<string>): Array<[string, number]> {
    const dirty: Array<[string, number]> = [];
    const candidates = keys ?? this.#entries.keys();
    for (const key of new Set(candidates)) {
      const entry = this.#entries.get(key);
      if (entry !== undefined && entry.value !== entry.stored) dirty.push([key, entry.value]);
    }
    return dirty;
  }

  /** `[key, offset]` of every queue. */
  entries(): Array<[string, number]> {
    return Array.from(this.#entries, ([key, entry]) => [key, entry.value]);
  }

  /** Forgets `key`. */
  remove(key: string): void {
    this.#entries.delete(key);
  }

  /** Number of queues held. */
  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Implements {@link OffsetStore.readOffset} over a table and a store reader: `MEMORY` answers from the
 * table, `STORE` reads the store and caches a found offset, `MEMORY_THEN_STORE` reads the store only when
 * the table knows nothing.
 *
 * @example
 * ```ts
 * const offset = await readOffsetThrough(table, queue, 'MEMORY_THEN_STORE', (key) => fetchFromDisk(key));
 * ```
 */
export async function readOffsetThrough(
  table: OffsetTable,
  queue: MessageQueue,
  type: ReadOffsetType,
  readStore: (key: string) => Promise<number>,
): Promise<number> {
  const key = messageQueueKey(queue);
  if (type === 'MEMORY' || (type === 'MEMORY_THEN_STORE' && table.has(key))) return table.get(key);
  const stored = await readStore(key);
  if (stored !== NO_OFFSET) table.setFromStore(key, stored);
  return stored;
}
