/**
 * The in-memory offset table every store is built on: per queue key, the current offset, the offset
 * last known to be in the backing store, and the offset generation (see offset-store.ts). A queue is
 * dirty while the two offsets differ or a correction waits to be written, so an unchanged (or
 * changed-and-changed-back) offset is never written again.
 */
import type { MessageQueue } from '../protocol/message-queue.js';
import { messageQueueKey } from '../protocol/message-queue.js';
import type { ReadOffsetType, StoredOffsetRecord } from './offset-store.js';
import { NO_OFFSET } from './offset-store.js';
import { assertValidOffset } from './offset-store-error.js';

interface OffsetEntry {
  /** The offset consumption has reached. */
  value: number;
  /** What the backing store holds as far as we know, or undefined when nothing was written or read. */
  stored: number | undefined;
  /** The generation of `stored` (0 until the store says otherwise). */
  generation: number;
  /** Counts corrections; a correction is pending while it differs from `correctionWritten`. */
  corrections: number;
  correctionWritten: number;
}

/**
 * A dirty entry as a store writes it: the offset, the generation it belongs to, and whether the write
 * must start a new generation (a correction). Pass it back to {@link OffsetTable.markStored}.
 */
export interface PendingWrite {
  readonly key: string;
  readonly offset: number;
  readonly generation: number;
  readonly correction: boolean;
  /** Identifies the correction being written (internal to the table). */
  readonly correctionSeq: number;
}

/**
 * Offsets by queue key (`topic@brokerName@queueId`), with increase-only updates and dirty tracking.
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
      this.#entries.set(key, newEntry(offset, undefined, 0));
      return true;
    }
    if (entry.value === offset || (increaseOnly && offset < entry.value)) return false;
    entry.value = offset;
    return true;
  }

  /**
   * Moves `key` to `offset` as a correction: replaces the current value, and the next write of the key
   * starts a new generation (it may go below the stored offset).
   */
  correct(key: string, offset: number): void {
    assertValidOffset(offset, key);
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      const created = newEntry(offset, undefined, 0);
      created.corrections = 1;
      this.#entries.set(key, created);
      return;
    }
    entry.value = offset;
    entry.corrections++;
  }

  /**
   * Records an offset read from (or loaded out of) the backing store: current and stored become `offset`,
   * of `generation`; a pending correction is dropped (the store's record is newer knowledge).
   */
  setFromStore(key: string, offset: number, generation = 0): void {
    assertValidOffset(offset, key);
    this.#entries.set(key, newEntry(offset, offset, generation));
  }

  /** The generation of `key` as far as the table knows (0 when unknown). */
  generation(key: string): number {
    return this.#entries.get(key)?.generation ?? 0;
  }

  /**
   * Records that `write` is now in the backing store, as generation `generation` (the write's own, or
   * one more for a correction). A queue whose offset moved on meanwhile stays dirty; a queue removed
   * meanwhile stays removed.
   */
  markStored(write: PendingWrite, generation: number = write.generation): void {
    const entry = this.#entries.get(write.key);
    if (entry === undefined) return;
    entry.stored = write.offset;
    entry.generation = generation;
    if (write.correction && entry.corrections === write.correctionSeq) {
      entry.correctionWritten = write.correctionSeq;
    }
  }

  /** Whether the offset of `key` differs from what the backing store holds (or a correction waits). */
  isDirty(key: string): boolean {
    const entry = this.#entries.get(key);
    return entry !== undefined && isDirtyEntry(entry);
  }

  /** The write `key` needs now, or undefined when it is clean or unknown. */
  pendingWrite(key: string): PendingWrite | undefined {
    const entry = this.#entries.get(key);
    return entry === undefined || !isDirtyEntry(entry) ? undefined : writeOf(key, entry);
  }

  /** The write of `key` whatever its state (for a final release), or undefined when unknown. */
  currentWrite(key: string): PendingWrite | undefined {
    const entry = this.#entries.get(key);
    return entry === undefined ? undefined : writeOf(key, entry);
  }

  /** Every dirty queue's pending write, restricted to `keys` when given. */
  dirtyWrites(keys?: Iterable<string>): PendingWrite[] {
    const dirty: PendingWrite[] = [];
    const candidates = keys ?? this.#entries.keys();
    for (const key of new Set(candidates)) {
      const entry = this.#entries.get(key);
      if (entry !== undefined && isDirtyEntry(entry)) dirty.push(writeOf(key, entry));
    }
    return dirty;
  }

  /** `[key, offset]` of every dirty queue, restricted to `keys` when given. */
  dirtyEntries(keys?: Iterable<string>): Array<[string, number]> {
    return this.dirtyWrites(keys).map((write) => [write.key, write.offset]);
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

function newEntry(value: number, stored: number | undefined, generation: number): OffsetEntry {
  return { value, stored, generation, corrections: 0, correctionWritten: 0 };
}

function isDirtyEntry(entry: OffsetEntry): boolean {
  return entry.value !== entry.stored || entry.corrections !== entry.correctionWritten;
}

function writeOf(key: string, entry: OffsetEntry): PendingWrite {
  return {
    key,
    offset: entry.value,
    generation: entry.generation,
    correction: entry.corrections !== entry.correctionWritten,
    correctionSeq: entry.corrections,
  };
}

/**
 * Implements {@link OffsetStore.readOffset} over a table and a store reader: `MEMORY` answers from the
 * table, `STORE` reads the store and caches a found record, `MEMORY_THEN_STORE` reads the store only when
 * the table knows nothing.
 */
export async function readOffsetThrough(
  table: OffsetTable,
  queue: MessageQueue,
  type: ReadOffsetType,
  readStore: (key: string) => Promise<StoredOffsetRecord | undefined>,
): Promise<number> {
  const key = messageQueueKey(queue);
  if (type === 'MEMORY' || (type === 'MEMORY_THEN_STORE' && table.has(key))) return table.get(key);
  const record = await readRecordThrough(table, key, readStore);
  return record?.offset ?? NO_OFFSET;
}

/**
 * Implements {@link OffsetStore.readRecord}: reads the store's record of `key` and caches its offset and
 * generation in the table.
 */
export async function readRecordThrough(
  table: OffsetTable,
  key: string,
  readStore: (key: string) => Promise<StoredOffsetRecord | undefined>,
): Promise<StoredOffsetRecord | undefined> {
  const record = await readStore(key);
  if (record !== undefined) table.setFromStore(key, record.offset, record.generation);
  return record;
}

/**
 * The record of a store local to one poller: no holders, always released, generation as the table knows.
 */
export function localRecord(offset: number, generation: number): StoredOffsetRecord {
  return { offset, generation, holder: undefined, released: true, updatedAtMs: undefined };
}
