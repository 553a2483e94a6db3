/**
 * Builds batches out of a FIFO of pending items, by count, by bytes and by time: a batch is ready when
 * it is full (`batchSize` items or `maxBatchBytes` bytes waiting), when the oldest waiting item has
 * waited `windowMs`, or at once when `windowMs` is 0. An item larger than `maxBatchBytes` forms a batch
 * of its own. The batcher only says when a batch is ready (`onReady`); the caller takes it when it has
 * room (concurrency), so waiting items back up here.
 */

/** What the batcher needs to know of an item. */
export interface BatchItem {
  /** Bytes the item adds to a batch (the message body length). */
  readonly bytes: number;
}

/** Options of {@link MessageBatcher}. */
export interface MessageBatcherOptions<T extends BatchItem> {
  batchSize: number;
  maxBatchBytes: number;
  windowMs: number;
  /** Called (from a timer) when the window of the oldest item elapsed. */
  onReady: () => void;
  /** Items for which this returns true are skipped when a batch is taken (e.g. their queue was dropped). */
  isStale?: ((item: T) => boolean) | undefined;
  now?: (() => number) | undefined;
}

/**
 * A count/bytes/time batcher.
 */
export class MessageBatcher<T extends BatchItem> {
  private readonly options: MessageBatcherOptions<T>;
  private readonly now: () => number;
  /**
   * The waiting items from `head` on, and beside them when each was added: two arrays rather than an
   * object per item (a buffered item lives long enough to be copied by the young-generation collector;
   * a number in an array of numbers is no object at all).
   */
  private queue: (T | undefined)[] = [];
  private enqueuedAtMs: number[] = [];
  private head = 0;
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerDueMs = 0;

  constructor(options: MessageBatcherOptions<T>) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** Items waiting. */
  get size(): number {
    return this.queue.length - this.head;
  }

  /** Bytes waiting. */
  get pendingBytes(): number {
    return this.bytes;
  }

  /** Appends items (in order). */
  add(items: readonly T[]): void {
    const enqueuedAtMs = this.now();
    for (const item of items) {
      this.queue.push(item);
      this.enqueuedAtMs.push(enqueuedAtMs);
      this.bytes += item.bytes;
    }
  }

  /** True when a batch could be taken now. */
  isReady(nowMs = this.now()): boolean {
    if (this.queue[this.head] === undefined) return false;
    return (
      this.size >= this.options.batchSize ||
      this.bytes >= this.options.maxBatchBytes ||
      this.options.windowMs === 0 ||
      nowMs - (this.enqueuedAtMs[this.head] as number) >= this.options.windowMs
    );
  }

  /**
   * Takes the next batch if one is ready; else arms the window timer and returns undefined. Stale
   * items are dropped on the way (a batch may come out empty-handed: then undefined).
   */
  takeReady(nowMs = this.now()): T[] | undefined {
    this.dropStaleHead();
    if (!this.isReady(nowMs)) {
      this.arm(nowMs);
      return undefined;
    }
    const batch: T[] = [];
    let batchBytes = 0;
    const isStale = this.options.isStale;
    while (this.head < this.queue.length && batch.length < this.options.batchSize) {
      const next = this.queue[this.head] as T;
      if (isStale?.(next)) {
        this.removeHead();
        continue;
      }
      if (batch.length > 0 && batchBytes + next.bytes > this.options.maxBatchBytes) break;
      batch.push(next);
      batchBytes += next.bytes;
      this.removeHead();
    }
    this.compact();
    if (this.size === 0) this.disarm();
    return batch.length === 0 ? undefined : batch;
  }

  /** Arms the window timer for the oldest item unless it is already armed for that time. */
  arm(nowMs = this.now()): void {
    if (this.queue[this.head] === undefined) {
      this.disarm();
      return;
    }
    const dueMs = (this.enqueuedAtMs[this.head] as number) + this.options.windowMs;
    if (this.timer !== undefined && this.timerDueMs === dueMs) return;
    this.disarm();
    this.timerDueMs = dueMs;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.options.onReady();
      },
      Math.max(0, dueMs - nowMs),
    );
  }

  /** Removes and returns every waiting item; stops the timer. */
  drain(): T[] {
    const items: T[] = [];
    for (let i = this.head; i < this.queue.length; i++) {
      const item = this.queue[i];
      if (item !== undefined) items.push(item);
    }
    this.queue = [];
    this.enqueuedAtMs = [];
    this.head = 0;
    this.bytes = 0;
    this.disarm();
    return items;
  }

  /** Stops the timer. */
  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private dropStaleHead(): void {
    const isStale = this.options.isStale;
    if (isStale === undefined) return;
    while (this.head < this.queue.length && isStale(this.queue[this.head] as T)) {
      this.removeHead();
    }
  }

  private removeHead(): void {
    const item = this.queue[this.head];
    if (item !== undefined) this.bytes -= item.bytes;
    this.queue[this.head] = undefined;
    this.head++;
  }

  private compact(): void {
    if (this.head === this.queue.length) {
      this.queue = [];
      this.enqueuedAtMs = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.enqueuedAtMs = this.enqueuedAtMs.slice(this.head);
      this.head = 0;
    }
  }
}
