/**
 * Where a consumer group's progress per queue lives. The offset is the next offset to consume: the
 * smallest offset not yet finished in the ProcessQueue, so a crash can only cause redelivery, never loss.
 *
 * The in-memory table is the source of truth between persists; `persist*` writes it out.
 * Implementations: {@link MemoryOffsetStore}, {@link FileOffsetStore} (broadcasting, or one poller),
 * {@link DynamoDbOffsetStore} (clustering, shared by every poller of a group).
 *
 * Offset generations. Writes from consumption only ever raise a stored offset, so a stale owner (a poller
 * that lost the queue but still finishes a batch) can never move it backwards. Some moves must go down:
 * the broker lost its store and recreated the queue (OFFSET_ILLEGAL), or an operator replays a queue. Such
 * a move ({@link OffsetStore.correctOffset}) starts a new generation of the queue's offset: the write
 * that stores it may go below the stored offset, and from then on writes of the older generation are
 * refused whatever their offset. A poller whose write is refused because the store moved to a newer
 * generation learns the new offset through {@link OffsetStore.onOffsetReset} and resumes there.
 */
import type { MessageQueue } from '../protocol/message-queue.js';

/** Returned by {@link OffsetStore.readOffset} when no offset is known for the queue. */
export const NO_OFFSET = -1;

/** Where {@link OffsetStore.readOffset} looks. */
export type ReadOffsetType = 'MEMORY' | 'STORE' | 'MEMORY_THEN_STORE';

/**
 * What the backing store holds for one queue.
 */
export interface StoredOffsetRecord {
  /** The next offset to consume. */
  readonly offset: number;
  /** The offset's generation: 0 at first, one more with every move below the stored offset. */
  readonly generation: number;
  /** The client id of the poller that wrote the offset last; undefined for stores local to one poller. */
  readonly holder: string | undefined;
  /**
   * True once the holder handed the queue over (it dropped the queue after finishing its in-flight work,
   * or stopped gracefully) and will write no more; always true for stores local to one poller.
   */
  readonly released: boolean;
  /** When the offset was last written (ms since epoch), when the store knows. */
  readonly updatedAtMs: number | undefined;
}

/**
 * A store's view of its own writes, for health checks: since when writes have been failing (undefined
 * while the last write succeeded) and why.
 */
export interface OffsetStoreHealth {
  readonly failingSinceMs: number | undefined;
  readonly lastError: unknown;
}

/**
 * Told when a write found the store at a newer offset generation than ours: someone moved the queue's
 * offset (a broker correction by another poller, an operator's reset). The store has already adopted
 * `record` in memory; the consumer should restart the queue at `record.offset`.
 */
export type OffsetResetListener = (queue: MessageQueue, record: StoredOffsetRecord) => void;

export interface OffsetStore {
  /** Loads what a local store keeps (file); checks that a remote store can be used (table exists). */
  load(): Promise<void>;
  /**
   * The stored offset of `queue`, or {@link NO_OFFSET}. `STORE` reads the backing store and caches the
   * result in memory. Rejects (retriable) when the backing store cannot be read: the caller must not guess.
   */
  readOffset(queue: MessageQueue, type: ReadOffsetType): Promise<number>;
  /**
   * Reads the backing store's record of `queue` (undefined when it has none) and caches its offset and
   * generation in memory. Rejects like {@link readOffset}.
   */
  readRecord(queue: MessageQueue): Promise<StoredOffsetRecord | undefined>;
  /**
   * Sets the in-memory offset. With `increaseOnly` a smaller value is ignored (concurrent consumption);
   * without it the value replaces the current one (orderly commits). Either way the backing store only
   * takes it if it is above the stored offset of the same generation.
   */
  updateOffset(queue: MessageQueue, offset: number, increaseOnly: boolean): void;
  /**
   * Moves the offset of `queue` to `offset`, below the stored one if need be, because the broker said
   * the stored position is gone (OFFSET_ILLEGAL). The next persist writes it as a new generation.
   */
  correctOffset(queue: MessageQueue, offset: number): void;
  /** Writes the in-memory offset of `queue` if it changed since the last successful write. */
  persist(queue: MessageQueue): Promise<void>;
  /** Writes every changed in-memory offset of `queues` (at most one write per queue). */
  persistAll(queues: readonly MessageQueue[]): Promise<void>;
  /**
   * The first write of a queue this poller just took: its offset, also when unchanged, naming this
   * poller as the holder, so that a poller taking the queue from us later waits for our hand-over.
   * Rejects like {@link persist}.
   */
  claim(queue: MessageQueue): Promise<void>;
  /**
   * The final write of queues this poller gives up (rebalance, graceful stop), after their in-flight work
   * finished: persists their offsets and marks them handed over, so the next owner need not wait.
   * Rejects like {@link persistAll}.
   */
  release(queues: readonly MessageQueue[]): Promise<void>;
  /** Forgets the in-memory offset of a queue this consumer no longer owns (after persisting it). */
  removeOffset(queue: MessageQueue): void;
  /** Subscribes to offset resets found by writes; returns the unsubscribe function. */
  onOffsetReset(listener: OffsetResetListener): () => void;
  /** Whether writes are failing, since when, and why. */
  health(): OffsetStoreHealth;
  /** Releases resources (clients, handles). Does not persist: the owner persists before closing. */
  close(): Promise<void>;
  /**
   * Capability, present on a store every poller of the group shares (DynamoDB): an operator's reset of
   * `queue` to `offset`, a new offset generation that running pollers adopt (at their next write, or by
   * their reset watch). Resolves with the record it replaced. Absent: the store belongs to one poller
   * (file, memory), and a reset must go through that poller's own offsets (see {@link canReset}).
   */
  resetOffset?(queue: MessageQueue, offset: number): Promise<StoredOffsetRecord | undefined>;
  /**
   * Capability, present with {@link resetOffset}: every stored record of the group, by queue key, in
   * one read (a store of one poller is read queue by queue with {@link readRecord} instead).
   */
  listRecords?(): Promise<Map<string, StoredOffsetRecord>>;
}

/**
 * A store that takes an operator's reset while pollers run (the {@link OffsetStore.resetOffset}
 * capability) and lists its records at once.
 */
export type ResettableOffsetStore = OffsetStore & Required<Pick<OffsetStore, 'resetOffset' | 'listRecords'>>;

/**
 * Whether `store` takes an operator's reset while pollers run: asked of the store's capabilities, not
 * of its class, so that a new shared store (or a wrapper that forwards them) needs no change here.
 */
export function canReset(store: OffsetStore): store is ResettableOffsetStore {
  return typeof store.resetOffset === 'function' && typeof store.listRecords === 'function';
}
