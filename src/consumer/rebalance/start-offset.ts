/**
 * Where a queue starts when it is (re)assigned (Java `RebalancePushImpl.computePullFromWhereWithException`):
 * the stored offset if there is one, else the mapping's starting position. Two additions of ours:
 *
 * - Hand-over: when the store says another poller of the group still holds the queue (it wrote the
 *   offset last, has not released it, and is still in the consumer list), wait until it has finished
 *   its in-flight batches and released the queue (rebalancer.ts), up to `handOverTimeoutMs` plus a
 *   grace. A graceful join or leave then redelivers nothing.
 * - The broker's copy: every pull carries our committed offset to the master (the commit-offset flag),
 *   which keeps it per group; in clustering the start is the higher of the store's offset and the
 *   broker's. After a crash the broker's copy is at most one pull old, while the store may be one
 *   persist interval old: a crashed poller's successor redelivers about what Java's would. A group that
 *   moves over from a Java consumer keeps its position the same way. A 4.x broker answers 0 for a group
 *   that has no offset on a young queue (broker-committed-offset.ts); when the store has no record either,
 *   that 0 is checked against the broker's offset table, so a new group still starts at its starting
 *   position while a committed 0 is kept.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { NoMasterError } from '../../client/no-master-error.js';
import { RocketMQError } from '../../errors.js';
import { NO_OFFSET, type OffsetStore, type StoredOffsetRecord } from '../../offsets/offset-store.js';
import type { ConsumerOffsetTable } from '../../protocol/consumer-offset-table.js';
import type { MessageQueue } from '../../protocol/message-queue.js';
import type { Logger } from '../../util/logger.js';
import type { ConsumerBrokerCalls } from '../consumer-client.js';
import type { StartingPosition } from '../consumer-options.js';
import { readConsumerOffsetAnswer, settleAmbiguousZero } from './broker-committed-offset.js';

/** How often a waiting new owner reads the store during a hand-over. */
export const HAND_OVER_POLL_MS = 200;
/** The new owner waits this much longer than the old owner's own bound. */
export const HAND_OVER_GRACE_MS = 5000;
/**
 * How long one broker's offset table (GET_ALL_CONSUMER_OFFSET, the whole table of the broker) serves
 * the queues of that broker: a new group's first rebalance asks for several queues at once.
 */
export const OFFSET_TABLE_REUSE_MS = 2000;

/**
 * What a start is decided with.
 */
export interface StartOffsetContext {
  /** The group's client ids from the last consumer list: only a holder among them is waited for. */
  members?: ReadonlySet<string> | undefined;
  /** True once waiting no longer makes sense (the consumer stops). */
  cancelled?: (() => boolean) | undefined;
}

/** What {@link StartOffsetResolver} needs. */
export interface StartOffsetResolverOptions {
  offsetStore: Pick<OffsetStore, 'readRecord'>;
  broker: Pick<
    ConsumerBrokerCalls,
    | 'getMaxOffset'
    | 'getMinOffset'
    | 'firstOffsetAtOrAfter'
    | 'queryConsumerOffsetAnswer'
    | 'getAllConsumerOffset'
  >;
  /** This poller's client id (a record it wrote itself is never waited for). */
  clientId: string;
  consumerGroup: string;
  /** Clustering: also ask the broker for the group's committed offset and start at the higher one. */
  brokerOffsets: boolean;
  /** How long the old owner may take to hand over (its own bound; we add a grace). */
  handOverTimeoutMs: number;
  log: Logger;
  /** The master address of a broker group (undefined while unknown). */
  masterAddress: (brokerName: string) => string | undefined;
  startingPosition: StartingPosition;
  startingPositionTimestamp: number | undefined;
  /** `%RETRY%<group>`. */
  retryTopic: string;
  /**
   * True when the subscribed topic did not exist when the consumer started: LATEST means the messages
   * stored after the start, which for such a topic is every message, so its queues start at their
   * beginning (else the messages sent between the topic's creation and the first rebalance that takes
   * its queues would be skipped). @default never
   */
  topicCreatedAfterStart?: (() => boolean) | undefined;
}

/**
 * Computes start offsets. Errors (store unreadable, broker unreachable) propagate: the caller must not
 * guess, it skips the queue and tries again at the next rebalance.
 *
 * | position | stored | none, topic | none, retry topic |
 * |---|---|---|---|
 * | LATEST | stored | GET_MAX_OFFSET (GET_MIN_OFFSET for a topic created after the start) | 0 |
 * | TRIM_HORIZON | stored | GET_MIN_OFFSET | 0 |
 * | AT_TIMESTAMP | stored | first message at or after the time | GET_MAX_OFFSET |
 *
 * AT_TIMESTAMP starts at the first message stored at or after the time on every broker version
 * (`firstOffsetAtOrAfter` in broker-client.ts: a 4.x broker's own search answers the nearest message).
 *
 * TRIM_HORIZON asks for the min offset directly (Java uses 0 and lets the first pull's OFFSET_ILLEGAL
 * correct it): one round trip less, and no backwards-looking correction in the logs.
 */
export class StartOffsetResolver {
  /** Offset tables by master address, with when they were asked for (OFFSET_TABLE_REUSE_MS). */
  private readonly offsetTables = new Map<
    string,
    { askedAtMs: number; table: Promise<ConsumerOffsetTable | undefined> }
  >();

  constructor(private readonly options: StartOffsetResolverOptions) {}

  async startOffset(queue: MessageQueue, context: StartOffsetContext = {}): Promise<number> {
    const record = await this.awaitHandOver(queue, context);
    const stored = record?.offset ?? NO_OFFSET;
    // With a stored record, a 4.x broker's ambiguous 0 cannot win the comparison: no need to settle it.
    const fromBroker = this.options.brokerOffsets
      ? await this.brokerOffset(queue, record === undefined)
      : undefined;
    if (fromBroker !== undefined && fromBroker > stored) {
      this.options.log.info(
        { queue, stored: record === undefined ? null : stored, broker: fromBroker },
        'the broker holds a newer committed offset than the store: starting there',
      );
      return fromBroker;
    }
    if (record !== undefined) return stored;
    const isRetryTopic = queue.topic === this.options.retryTopic;
    switch (this.options.startingPosition) {
      case 'LATEST':
        if (isRetryTopic) return 0;
        return this.options.topicCreatedAfterStart?.() === true
          ? this.minOffset(queue)
          : this.maxOffset(queue);
      case 'TRIM_HORIZON':
        return isRetryTopic ? 0 : this.minOffset(queue);
      case 'AT_TIMESTAMP':
        return isRetryTopic ? this.maxOffset(queue) : this.offsetAt(queue);
    }
  }

  /** The store's record, after waiting for its holder to release it if it must (file comment). */
  private async awaitHandOver(
    queue: MessageQueue,
    context: StartOffsetContext,
  ): Promise<StoredOffsetRecord | undefined> {
    const { offsetStore, handOverTimeoutMs, log } = this.options;
    let record = await offsetStore.readRecord(queue);
    if (record === undefined || !this.heldByAnother(record, context.members)) return record;
    const startedMs = Date.now();
    const deadline = startedMs + handOverTimeoutMs + HAND_OVER_GRACE_MS;
    log.info(
      { queue, holder: record.holder, offset: record.offset },
      'waiting for the previous holder to hand over',
    );
    while (record !== undefined && this.heldByAnother(record, context.members)) {
      if (context.cancelled?.() === true) {
        throw new RocketMQError(`stopped waiting for the hand-over of ${queue.topic}#${queue.queueId}`, {
          retriable: true,
        });
      }
      if (Date.now() >= deadline) {
        log.warn(
          { queue, holder: record.holder, offset: record.offset, waitedMs: Date.now() - startedMs },
          'the previous holder did not hand over in time: starting from its last stored offset (what it handled since is delivered again)',
        );
        return record;
      }
      await sleep(HAND_OVER_POLL_MS);
      record = await offsetStore.readRecord(queue);
    }
    log.info(
      { queue, offset: record?.offset, waitedMs: Date.now() - startedMs },
      'queue handed over by its previous holder',
    );
    return record;
  }

  private heldByAnother(record: StoredOffsetRecord, members: ReadonlySet<string> | undefined): boolean {
    const holder = record.holder;
    return (
      !record.released &&
      holder !== undefined &&
      holder !== this.options.clientId &&
      members?.has(holder) === true
    );
  }

  /**
   * The group's offset as the queue's master keeps it, or undefined (none, or it cannot be asked). A
   * 4.x broker's 0 is checked against its offset table when `settleZero` (file comment).
   */
  private async brokerOffset(queue: MessageQueue, settleZero: boolean): Promise<number | undefined> {
    const address = this.options.masterAddress(queue.brokerName);
    if (address === undefined) return undefined;
    let reading: ReturnType<typeof readConsumerOffsetAnswer>;
    try {
      reading = readConsumerOffsetAnswer(
        await this.options.broker.queryConsumerOffsetAnswer(address, {
          consumerGroup: this.options.consumerGroup,
          topic: queue.topic,
          queueId: queue.queueId,
          setZeroIfNotFound: false,
          bname: queue.brokerName,
        }),
      );
    } catch (error) {
      this.options.log.debug({ err: error, queue }, 'the broker could not tell its committed offset');
      return undefined;
    }
    switch (reading.kind) {
      case 'none':
        return undefined;
      case 'committed':
        return reading.offset;
      case 'ambiguous-zero': {
        if (!settleZero) return 0;
        const offset = settleAmbiguousZero(
          await this.offsetTable(address),
          this.options.consumerGroup,
          queue,
        );
        this.options.log.debug(
          { queue, committed: offset ?? null },
          'a broker before 5.0 answered 0: settled with its offset table',
        );
        return offset;
      }
    }
  }

  /**
   * The broker's offset table, shared for OFFSET_TABLE_REUSE_MS (dropped at the next call after that);
   * undefined when it cannot be read.
   */
  private offsetTable(address: string): Promise<ConsumerOffsetTable | undefined> {
    const nowMs = Date.now();
    // A broker's table can be large: none is kept past its reuse window.
    for (const [key, entry] of this.offsetTables) {
      if (nowMs - entry.askedAtMs >= OFFSET_TABLE_REUSE_MS) this.offsetTables.delete(key);
    }
    const cached = this.offsetTables.get(address);
    if (cached !== undefined) return cached.table;
    const table = this.options.broker.getAllConsumerOffset(address).catch((error: unknown) => {
      this.options.log.warn(
        { err: error, address },
        "the broker's offset table is unreadable: its 0 is taken as a committed offset (a new group may consume young queues from their start)",
      );
      return undefined;
    });
    this.offsetTables.set(address, { askedAtMs: nowMs, table });
    return table;
  }

  private address(queue: MessageQueue): string {
    const address = this.options.masterAddress(queue.brokerName);
    if (address === undefined) {
      throw new NoMasterError(queue.brokerName);
    }
    return address;
  }

  /**
   * The broker's max offset of `queue` (the offset its next message gets), asked at its master; rejects
   * when no master address is known.
   */
  maxOffset(queue: MessageQueue): Promise<number> {
    return this.options.broker.getMaxOffset(this.address(queue), {
      topic: queue.topic,
      queueId: queue.queueId,
      bname: queue.brokerName,
    });
  }

  private minOffset(queue: MessageQueue): Promise<number> {
    return this.options.broker.getMinOffset(this.address(queue), {
      topic: queue.topic,
      queueId: queue.queueId,
      bname: queue.brokerName,
    });
  }

  private offsetAt(queue: MessageQueue): Promise<number> {
    const timestamp = this.options.startingPositionTimestamp;
    if (timestamp === undefined) {
      throw new RocketMQError('startingPosition AT_TIMESTAMP needs startingPositionTimestamp');
    }
    return this.options.broker.firstOffsetAtOrAfter(this.address(queue), {
      consumerGroup: this.options.consumerGroup,
      topic: queue.topic,
      queueId: queue.queueId,
      timestamp,
      bname: queue.brokerName,
    });
  }
}
