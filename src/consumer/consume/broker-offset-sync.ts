/**
 * Keeps the broker's copy of the group's committed offsets fresh (clustering): whenever a batch moves a
 * queue's offset, a oneway UPDATE_CONSUMER_OFFSET tells the queue's master, at most once per queue every
 * {@link BROKER_OFFSET_SYNC_INTERVAL_MS}. Pulls also carry the committed offset, but the pull that would
 * carry it is usually already waiting at the broker (long polling) when a batch ends, so without this the
 * broker learns of a batch only with the pull after next. A poller taking a queue after a crash starts
 * at the higher of the store's offset and the broker's (start-offset.ts): the fresher the broker's
 * copy, the less it delivers again. The offset store (DynamoDB) stays the copy that survives a broker
 * that loses its store; this one is the fast one, and it costs no write to the store.
 */
import type { OffsetStore } from '../../offsets/offset-store.js';
import { type MessageQueue, messageQueueKey } from '../../protocol/message-queue.js';
import type { Logger } from '../../util/logger.js';
import { ThrottledLog } from '../../util/throttled-log.js';
import type { ConsumerBrokerCalls } from '../consumer-client.js';

/** At most one update per queue this often: a few frames per second per busy queue. */
export const BROKER_OFFSET_SYNC_INTERVAL_MS = 20;

/** What {@link BrokerOffsetSync} needs. */
export interface BrokerOffsetSyncOptions {
  broker: Pick<ConsumerBrokerCalls, 'updateConsumerOffsetOneway'>;
  /** The master address of a broker group (undefined while unknown). */
  masterAddress: (brokerName: string) => string | undefined;
  offsetStore: Pick<OffsetStore, 'readOffset'>;
  consumerGroup: string;
  log: Logger;
  /** @default BROKER_OFFSET_SYNC_INTERVAL_MS */
  intervalMs?: number | undefined;
}

interface QueueSync {
  readonly queue: MessageQueue;
  lastSent: number;
  lastSentMs: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Sends committed offsets to the brokers as they move.
 */
export class BrokerOffsetSync {
  private readonly queues = new Map<string, QueueSync>();
  private readonly intervalMs: number;
  private readonly warnings: ThrottledLog;
  private stopped = false;

  constructor(private readonly o: BrokerOffsetSyncOptions) {
    this.intervalMs = o.intervalMs ?? BROKER_OFFSET_SYNC_INTERVAL_MS;
    this.warnings = new ThrottledLog(o.log);
  }

  /** The committed offset of `queue` moved: tell its master soon. */
  moved(queue: MessageQueue): void {
    if (this.stopped) return;
    const entry = this.entryOf(queue);
    if (entry.timer === undefined) this.schedule(entry);
  }

  private entryOf(queue: MessageQueue): QueueSync {
    const key = messageQueueKey(queue);
    let entry = this.queues.get(key);
    if (entry === undefined) {
      entry = { queue, lastSent: -1, lastSentMs: 0, timer: undefined };
      this.queues.set(key, entry);
    }
    return entry;
  }

  /** Sends once a whole interval has passed without a frame about the queue (a oneway or a pull). */
  private schedule(entry: QueueSync): void {
    const waitMs = Math.max(0, entry.lastSentMs + this.intervalMs - Date.now());
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (this.stopped) return;
      // A pull carried an offset since this was armed: wait out the interval from that pull.
      if (entry.lastSentMs + this.intervalMs > Date.now()) {
        this.schedule(entry);
        return;
      }
      this.send(entry).catch((error: unknown) =>
        this.warnings.warn('sync', { err: error, queue: entry.queue }, 'offset update to the broker failed'),
      );
    }, waitMs);
    entry.timer.unref();
  }

  /**
   * A pull carried `offset` to the queue's master (the commit-offset flag), which stored it: an update
   * already sent needs no oneway of its own, and the pull counts as this interval's frame about the
   * queue. While a backlog drains, pulls go out faster than the interval and carry every move before
   * the held-back oneway is due, so the oneways (a socket write and a broker request each: ~1 per 6
   * pulls of a drain when only the value counted) stop; once caught up, the pull that waits at the
   * broker was sent before the batch ended and the oneway goes out within the interval as before.
   */
  carried(queue: MessageQueue, offset: number): void {
    if (this.stopped) return;
    const entry = this.entryOf(queue);
    if (offset > entry.lastSent) entry.lastSent = offset;
    entry.lastSentMs = Date.now();
  }

  /** Forgets a queue given up (a pending update is dropped: the new owner tells the broker itself). */
  forget(queue: MessageQueue): void {
    const key = messageQueueKey(queue);
    const entry = this.queues.get(key);
    if (entry?.timer !== undefined) clearTimeout(entry.timer);
    this.queues.delete(key);
  }

  /** Stops sending; pending updates are dropped. */
  stop(): void {
    this.stopped = true;
    for (const entry of this.queues.values()) if (entry.timer !== undefined) clearTimeout(entry.timer);
    this.queues.clear();
  }

  private async send(entry: QueueSync): Promise<void> {
    if (this.stopped) return;
    const { queue } = entry;
    const offset = await this.o.offsetStore.readOffset(queue, 'MEMORY');
    if (offset < 0 || offset === entry.lastSent) return;
    const address = this.o.masterAddress(queue.brokerName);
    if (address === undefined) return;
    entry.lastSent = offset;
    entry.lastSentMs = Date.now();
    await this.o.broker.updateConsumerOffsetOneway(address, {
      consumerGroup: this.o.consumerGroup,
      topic: queue.topic,
      queueId: queue.queueId,
      commitOffset: offset,
      bname: queue.brokerName,
    });
    this.warnings.clear('sync');
  }
}
