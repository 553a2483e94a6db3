/**
 * ProcessQueue: the client-side buffer of one pulled queue (Java `ProcessQueue`). Holds the pulled,
 * unfinished messages by queue offset; its smallest unfinished offset is what may be committed, so a
 * crash or a stale owner can only cause redelivery, never loss. Knows nothing of its consumer: the pull
 * loop, the consume services and the rebalancer read and change it.
 */
import { bodyLengthOf, propertyOf } from '../../protocol/decoded-message.js';
import type { MessageExt } from '../../protocol/message.js';
import { MessageConst } from '../../protocol/message.js';
import type { MessageQueue } from '../../protocol/message-queue.js';
import { OffsetOrderedList } from './offset-ordered-list.js';

/** A client lock older than this is treated as expired (Java `REBALANCE_LOCK_MAX_LIVE_TIME`). */
export const LOCK_MAX_LIVE_TIME_MS = 30_000;
/** A queue not pulled for this long is dropped and re-created at rebalance (`pullMaxIdleTime`). */
export const PULL_MAX_IDLE_TIME_MS = 120_000;

interface Entry {
  readonly message: MessageExt;
  /** When a consume of this message last started (ms since epoch); 0 = not started. */
  consumeStartedAtMs: number;
}

/** What {@link ProcessQueue.putMessages} did. */
export interface PutResult {
  /** The messages that were not in the queue yet, in the given order. */
  added: MessageExt[];
  /** Orderly: true when the queue had no consume task scheduled and now has messages (Java semantics). */
  dispatchToConsume: boolean;
}

/** A point-in-time view of a ProcessQueue, for status and running info. */
export interface ProcessQueueSnapshot {
  cachedMessageCount: number;
  cachedMessageBytes: number;
  cachedMinOffset: number | undefined;
  cachedMaxOffset: number | undefined;
  /** The broker's store time (ms since epoch) of the message at `cachedMinOffset`; undefined when empty. */
  oldestStoreTimestampMs: number | undefined;
  maxSpan: number;
  inFlightOrderlyCount: number;
  dropped: boolean;
  locked: boolean;
  lastLockTimestampMs: number;
  lastPullTimestampMs: number;
  lastConsumeTimestampMs: number;
}

/**
 * The buffer of one queue.
 */
export class ProcessQueue {
  readonly messageQueue: MessageQueue;
  /** Set when the queue is no longer ours: its in-flight work must not move the offset any more. */
  dropped = false;
  /**
   * Set while the queue is being handed over (rebalance, before `dropped`): no new batch of it starts,
   * batches in flight finish and still move the offset, so the next owner starts where we stopped.
   */
  draining = false;
  /** Orderly: the broker lock is held. */
  locked = false;
  lastLockTimestampMs = 0;
  lastPullTimestampMs: number;
  lastConsumeTimestampMs: number;
  /** Orderly: a consume task is scheduled or running for this queue. */
  consuming = false;
  /** Orderly: unlock attempts that found the queue busy. */
  tryUnlockTimes = 0;
  /** How far the broker's max offset was ahead of the last pulled message (Java `msgAccCnt`). */
  msgAccCnt = 0;

  private readonly now: () => number;
  private batchesConsuming = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly ready = new OffsetOrderedList<Entry>();
  private readonly inFlightOrderly = new OffsetOrderedList<Entry>();
  private count = 0;
  private bytes = 0;
  private queueOffsetMax = -1;

  constructor(messageQueue: MessageQueue, options: { now?: () => number } = {}) {
    this.messageQueue = messageQueue;
    this.now = options.now ?? Date.now;
    this.lastPullTimestampMs = this.now();
    this.lastConsumeTimestampMs = this.lastPullTimestampMs;
  }

  /** Messages held, in-flight orderly ones included. */
  get messageCount(): number {
    return this.count;
  }

  /** Body bytes held, in-flight orderly ones included. */
  get messageBytes(): number {
    return this.bytes;
  }

  /** Batches holding messages of this queue that are being consumed now. */
  get batchesInFlight(): number {
    return this.batchesConsuming;
  }

  /** A consume service started a batch holding messages of this queue. */
  batchStarted(): void {
    this.batchesConsuming++;
  }

  /** That batch ended (its result applied, or abandoned). */
  batchFinished(): void {
    this.batchesConsuming = Math.max(0, this.batchesConsuming - 1);
    if (this.batchesConsuming > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Resolves true once no batch of this queue is being consumed, or false after `timeoutMs` (the hand-over
   * does not wait for ever: a longer batch's messages are delivered again by the next owner).
   */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.batchesConsuming === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((waiter) => waiter !== wake);
        resolve(false);
      }, timeoutMs);
      this.idleWaiters.push(wake);
    });
  }

  /** Largest offset ever put (−1 before the first message). */
  get maxOffsetPut(): number {
    return this.queueOffsetMax;
  }

  /** Distance between the largest and the smallest waiting offset (0 when empty); in-flight orderly excluded. */
  get maxSpan(): number {
    const first = this.ready.firstKey();
    const last = this.ready.lastKey();
    return first === undefined || last === undefined ? 0 : last - first;
  }

  /** The smallest waiting offset, if any. */
  firstOffset(): number | undefined {
    return this.ready.firstKey();
  }

  /** Adds pulled messages by queue offset; messages already held are ignored. */
  putMessages(messages: readonly MessageExt[]): PutResult {
    const added: MessageExt[] = [];
    for (const message of messages) {
      const offset = message.queueOffset;
      if (this.ready.has(offset) || this.inFlightOrderly.has(offset)) continue;
      this.ready.set(offset, { message, consumeStartedAtMs: 0 });
      added.push(message);
      this.count++;
      this.bytes += bodyLengthOf(message);
      if (offset > this.queueOffsetMax) this.queueOffsetMax = offset;
    }
    let dispatchToConsume = false;
    if (this.ready.size > 0 && !this.consuming) {
      dispatchToConsume = true;
      this.consuming = true;
    }
    const last = messages[messages.length - 1];
    if (last !== undefined) {
      const maxOffsetProperty = Number(propertyOf(last, MessageConst.MAX_OFFSET));
      if (Number.isSafeInteger(maxOffsetProperty)) {
        this.msgAccCnt = Math.max(0, maxOffsetProperty - last.queueOffset);
      }
    }
    return { added, dispatchToConsume };
  }

  /**
   * Removes finished messages (by their queue offsets) and returns the offset to commit: the smallest
   * offset still held, or one past the largest offset ever put when nothing is left; −1 when the queue
   * was already empty (nothing to commit).
   */
  removeMessages(messages: readonly { readonly queueOffset: number }[]): number {
    if (this.ready.size === 0) return -1;
    this.lastConsumeTimestampMs = this.now();
    for (const { queueOffset } of messages) {
      const removed = this.ready.delete(queueOffset);
      if (removed !== undefined) {
        this.count--;
        this.bytes -= bodyLengthOf(removed.message);
      }
    }
    return this.ready.firstKey() ?? this.queueOffsetMax + 1;
  }

  /** Records that a consume of the message at `queueOffset` starts now (for {@link firstExpiredMessage}). */
  markConsumeStartedAt(queueOffset: number, nowMs = this.now()): void {
    const entry = this.ready.get(queueOffset);
    if (entry !== undefined) entry.consumeStartedAtMs = nowMs;
  }

  /**
   * Concurrent mode: the first waiting message if its consume started more than `consumeTimeoutMs`
   * ago (Java `cleanExpiredMsg` looks only at the first message, repeatedly).
   */
  firstExpiredMessage(consumeTimeoutMs: number, nowMs = this.now()): MessageExt | undefined {
    const first = this.ready.firstValue();
    if (first === undefined || first.consumeStartedAtMs === 0) return undefined;
    return nowMs - first.consumeStartedAtMs > consumeTimeoutMs ? first.message : undefined;
  }

  /** Orderly: moves up to `batchSize` of the smallest waiting messages in flight and returns them. */
  takeMessages(batchSize: number): MessageExt[] {
    const taken: MessageExt[] = [];
    this.lastConsumeTimestampMs = this.now();
    while (taken.length < batchSize) {
      const next = this.ready.shift();
      if (next === undefined) break;
      this.inFlightOrderly.set(next[0], next[1]);
      taken.push(next[1].message);
    }
    if (taken.length === 0) this.consuming = false;
    return taken;
  }

  /** Orderly: true when messages are waiting or in flight. */
  hasMessages(): boolean {
    return this.ready.size > 0 || this.inFlightOrderly.size > 0;
  }

  /**
   * Orderly: the in-flight messages are finished. Returns the offset to commit (one past the largest
   * in-flight offset), or −1 when nothing was in flight.
   */
  commit(): number {
    const last = this.inFlightOrderly.lastKey();
    for (const entry of this.inFlightOrderly.valuesInOrder()) {
      this.count--;
      this.bytes -= bodyLengthOf(entry.message);
    }
    this.inFlightOrderly.clear();
    return last === undefined ? -1 : last + 1;
  }

  /** Orderly: puts every in-flight message back to waiting. */
  rollback(): void {
    for (const [offset, entry] of [...this.inFlightOrderly.entries()]) this.ready.set(offset, entry);
    this.inFlightOrderly.clear();
  }

  /** Orderly: puts the given in-flight messages back to waiting (to be consumed again). */
  makeMessageToConsumeAgain(messages: readonly { readonly queueOffset: number }[]): void {
    for (const { queueOffset } of messages) {
      const entry = this.inFlightOrderly.delete(queueOffset);
      if (entry !== undefined) this.ready.set(queueOffset, entry);
    }
  }

  /** Orderly: the lock was taken (or renewed) now. */
  markLocked(nowMs = this.now()): void {
    this.locked = true;
    this.lastLockTimestampMs = nowMs;
  }

  /** Orderly: the client-side view of the lock is older than {@link LOCK_MAX_LIVE_TIME_MS}. */
  isLockExpired(nowMs = this.now()): boolean {
    return nowMs - this.lastLockTimestampMs > LOCK_MAX_LIVE_TIME_MS;
  }

  /** The queue has not been pulled for {@link PULL_MAX_IDLE_TIME_MS}. */
  isPullExpired(nowMs = this.now()): boolean {
    return nowMs - this.lastPullTimestampMs > PULL_MAX_IDLE_TIME_MS;
  }

  /** A point-in-time view for status reports. */
  snapshot(): ProcessQueueSnapshot {
    const firstInFlight = this.inFlightOrderly.firstKey();
    const firstReady = this.ready.firstKey();
    const min =
      firstInFlight === undefined
        ? firstReady
        : firstReady === undefined
          ? firstInFlight
          : Math.min(firstInFlight, firstReady);
    const oldest = min === undefined ? undefined : (this.inFlightOrderly.get(min) ?? this.ready.get(min));
    const lastInFlight = this.inFlightOrderly.lastKey();
    const lastReady = this.ready.lastKey();
    const max = Math.max(lastInFlight ?? -1, lastReady ?? -1);
    return {
      cachedMessageCount: this.count,
      cachedMessageBytes: this.bytes,
      cachedMinOffset: min,
      cachedMaxOffset: max < 0 ? undefined : max,
      oldestStoreTimestampMs: oldest?.message.storeTimestamp,
      maxSpan: this.maxSpan,
      inFlightOrderlyCount: this.inFlightOrderly.size,
      dropped: this.dropped,
      locked: this.locked,
      lastLockTimestampMs: this.lastLockTimestampMs,
      lastPullTimestampMs: this.lastPullTimestampMs,
      lastConsumeTimestampMs: this.lastConsumeTimestampMs,
    };
  }
}
