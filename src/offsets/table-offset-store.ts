/**
 * What the memory, file and DynamoDB offset stores share: the in-process {@link OffsetTable} that answers
 * MEMORY reads and collects updates between persists, and the {@link StoreObservers} behind `health()` and
 * `onOffsetReset`. A store adds where its offsets live: how a stored record is read, and how the table's
 * writes reach the backing store (`persist*`, `claim`, `release`).
 */
import { type MessageQueue, messageQueueKey } from '../protocol/message-queue.js';
import type { Logger } from '../util/logger.js';
import type {
  OffsetResetListener,
  OffsetStore,
  OffsetStoreHealth,
  ReadOffsetType,
  StoredOffsetRecord,
} from './offset-store.js';
import { OffsetTable, readOffsetThrough, readRecordThrough } from './offset-table.js';
import { StoreObservers } from './store-observers.js';

/** The table-backed part of every {@link OffsetStore}. */
export abstract class TableOffsetStore implements OffsetStore {
  protected readonly table = new OffsetTable();
  protected readonly observers: StoreObservers;

  protected constructor(log: Logger) {
    this.observers = new StoreObservers((err) => log.error({ err }, 'offset reset listener failed'));
  }

  abstract load(): Promise<void>;
  abstract persist(queue: MessageQueue): Promise<void>;
  abstract persistAll(queues: readonly MessageQueue[]): Promise<void>;
  abstract claim(queue: MessageQueue): Promise<void>;
  abstract release(queues: readonly MessageQueue[]): Promise<void>;
  abstract close(): Promise<void>;

  /** The record the backing store holds for a queue key (undefined when it holds none). */
  protected abstract readStoredRecord(key: string): Promise<StoredOffsetRecord | undefined>;

  readOffset(queue: MessageQueue, type: ReadOffsetType): Promise<number> {
    return readOffsetThrough(this.table, queue, type, (key) => this.readStoredRecord(key));
  }

  readRecord(queue: MessageQueue): Promise<StoredOffsetRecord | undefined> {
    return readRecordThrough(this.table, messageQueueKey(queue), (key) => this.readStoredRecord(key));
  }

  updateOffset(queue: MessageQueue, offset: number, increaseOnly: boolean): void {
    this.table.update(messageQueueKey(queue), offset, increaseOnly);
  }

  /** A correction is persisted with the next write as a new offset generation (see offset-table.ts). */
  correctOffset(queue: MessageQueue, offset: number): void {
    this.table.correct(messageQueueKey(queue), offset);
  }

  removeOffset(queue: MessageQueue): void {
    this.table.remove(messageQueueKey(queue));
  }

  onOffsetReset(listener: OffsetResetListener): () => void {
    return this.observers.onOffsetReset(listener);
  }

  health(): OffsetStoreHealth {
    return this.observers.health();
  }
}
