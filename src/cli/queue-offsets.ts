/**
 * Where a mapping's consumption stands, queue by queue, as `status` and `offsets show` print it: the
 * broker's min/max offsets, the committed record of the offset store (offset, generation, holder,
 * released, last write), the lag, and how old the oldest unconsumed message is. Read-only: it pulls at
 * most one message per lagging queue (without committing anything) and writes nothing.
 *
 * Failures are reported, not thrown: a mapping whose broker or store cannot be reached comes back with
 * `brokerError` / `storeError` set (the commands exit 1 and say which), and whatever could be read.
 */
import { BrokerError } from '../client/broker-error.js';
import { QueueReader } from '../client/queue-reader.js';
import type { RocketMQClient } from '../client/rocketmq-client.js';
import { retryTopicOf } from '../consumer/consumer-options.js';
import type { OffsetStore, StoredOffsetRecord } from '../offsets/offset-store.js';
import { type MessageQueue, messageQueueKey } from '../protocol/message-queue.js';
import { ResponseCode } from '../protocol/response-code.js';
import { describeError } from '../util/describe-error.js';
import { isResettableStore, type TargetMapping } from './command-target.js';

/**
 * One queue of a mapping.
 *
 * @example
 * ```ts
 * const row: QueueOffsets = { queue: { topic: 'Orders', brokerName: 'broker-a', queueId: 0 }, minOffset: 0,
 *   maxOffset: 120, committed: undefined, resumeOffset: 0, lag: 120, oldestUnconsumedAtMs: 1767225600000 };
 * ```
 */
export interface QueueOffsets {
  readonly queue: MessageQueue;
  /** The smallest offset the broker still stores (undefined when the broker could not be asked). */
  readonly minOffset: number | undefined;
  /** The offset the queue's next message gets. */
  readonly maxOffset: number | undefined;
  /** The store's record: committed offset, generation, holder, released, last write. */
  readonly committed: StoredOffsetRecord | undefined;
  /**
   * Where consumption resumes: the committed offset, else where the mapping starts a queue
   * (TRIM_HORIZON: the min offset; LATEST: the max offset; AT_TIMESTAMP: undefined, the broker decides).
   */
  readonly resumeOffset: number | undefined;
  /** Messages from `resumeOffset` to the max offset (undefined when either is unknown). */
  readonly lag: number | undefined;
  /** The store time of the message at `resumeOffset` when lag > 0 (its age is the oldest unconsumed). */
  readonly oldestUnconsumedAtMs: number | undefined;
}

/**
 * A mapping's queues, and what could not be read.
 *
 * @example
 * ```ts
 * const snapshot = await readMappingOffsets(target.client, mapping, target.offsetStore(mapping));
 * if (snapshot.brokerError) console.error(`broker: ${snapshot.brokerError}`);
 * ```
 */
export interface MappingOffsets {
  readonly mapping: TargetMapping;
  readonly queues: readonly QueueOffsets[];
  /** Why the name server or a broker could not be asked (undefined: all answered). */
  readonly brokerError: string | undefined;
  /** Why the offset store could not be read (undefined: it answered). */
  readonly storeError: string | undefined;
}

/** What {@link readMappingOffsets} reads beyond offsets. */
export interface ReadOffsetsOptions {
  /** Read the message at the resume offset of lagging queues (its age). @default true */
  readonly messageAges?: boolean | undefined;
  /**
   * Also read the group's `%RETRY%<group>` queues (clustering mappings): the messages sent back for a
   * later retry wait there, and a stuck retry queue is as much a backlog as a stuck topic queue. Not for
   * resets, which move the topic's offsets only (as mqadmin's resetOffsetByTime). @default false
   */
  readonly retryQueues?: boolean | undefined;
}

/**
 * Reads the offsets of every queue of `mapping`'s topic: the route and min/max offsets from the brokers,
 * the committed records from `store` (one Query for a DynamoDB store), and the store time of the first
 * unconsumed message of each lagging queue.
 *
 * @example
 * ```ts
 * const { queues } = await readMappingOffsets(target.client, mapping, target.offsetStore(mapping));
 * for (const q of queues) console.log(q.queue.queueId, q.lag);
 * ```
 */
export async function readMappingOffsets(
  client: RocketMQClient,
  mapping: TargetMapping,
  store: OffsetStore,
  options: ReadOffsetsOptions = {},
): Promise<MappingOffsets> {
  const reader = new QueueReader({ client, consumerGroup: mapping.consumerGroup });
  let brokerError: string | undefined;
  let storeError: string | undefined;
  let queues: MessageQueue[] = [];
  try {
    queues = (await reader.queues(mapping.topic)).filter((q) => q.readable).map((q) => q.queue);
  } catch (error) {
    brokerError = `the route of topic ${mapping.topic}: ${describeError(error)}`;
  }
  if (options.retryQueues === true && mapping.messageModel !== 'BROADCASTING') {
    const retryTopic = retryTopicOf(mapping.consumerGroup);
    try {
      queues.push(...(await reader.queues(retryTopic)).filter((q) => q.readable).map((q) => q.queue));
    } catch (error) {
      // The broker creates the retry topic with the group's first send-back: none yet is no backlog.
      const missing = error instanceof BrokerError && error.code === ResponseCode.TOPIC_NOT_EXIST;
      if (!missing) brokerError ??= `the route of topic ${retryTopic}: ${describeError(error)}`;
    }
  }
  let records = new Map<string, StoredOffsetRecord>();
  try {
    records = await readCommittedRecords(store, queues);
  } catch (error) {
    storeError = describeError(error);
  }
  const rows = await Promise.all(
    queues.map(async (queue): Promise<QueueOffsets> => {
      const committed = records.get(messageQueueKey(queue));
      let minOffset: number | undefined;
      let maxOffset: number | undefined;
      try {
        const address = await reader.masterAddress(queue);
        const header = { topic: queue.topic, queueId: queue.queueId, bname: queue.brokerName };
        [minOffset, maxOffset] = await Promise.all([
          client.broker.getMinOffset(address, header),
          client.broker.getMaxOffset(address, header),
        ]);
      } catch (error) {
        brokerError ??= `${queueLabel(queue)}: ${describeError(error)}`;
      }
      const resumeOffset =
        committed?.offset ?? startOffsetOf(mapping, queue.topic !== mapping.topic, minOffset, maxOffset);
      const lag =
        resumeOffset === undefined || maxOffset === undefined
          ? undefined
          : Math.max(0, maxOffset - resumeOffset);
      let oldestUnconsumedAtMs: number | undefined;
      if ((options.messageAges ?? true) && lag !== undefined && lag > 0 && resumeOffset !== undefined) {
        // Below the min offset the first unconsumed message is the oldest still stored.
        const at = Math.max(resumeOffset, minOffset ?? resumeOffset);
        try {
          oldestUnconsumedAtMs = (await reader.readAt(queue, at))?.storeTimestamp;
        } catch (error) {
          brokerError ??= `${queueLabel(queue)}: reading the message at offset ${at}: ${describeError(error)}`;
        }
      }
      return { queue, minOffset, maxOffset, committed, resumeOffset, lag, oldestUnconsumedAtMs };
    }),
  );
  return { mapping, queues: rows, brokerError, storeError };
}

/**
 * How the commands name a queue.
 *
 * @example
 * ```ts
 * queueLabel({ topic: 'Orders', brokerName: 'broker-a', queueId: 0 }); // => 'Orders#broker-a:0'
 * ```
 */
export function queueLabel(queue: MessageQueue): string {
  return `${queue.topic}#${queue.brokerName}:${queue.queueId}`;
}

/**
 * Where the mapping starts a queue that has no committed offset (see start-offset.ts: a retry queue
 * starts at its beginning, except AT_TIMESTAMP, which starts it at its end).
 */
function startOffsetOf(
  mapping: TargetMapping,
  retryQueue: boolean,
  minOffset: number | undefined,
  maxOffset: number | undefined,
): number | undefined {
  switch (mapping.startingPosition) {
    case 'TRIM_HORIZON':
      return minOffset;
    case 'LATEST':
      return retryQueue ? minOffset : maxOffset;
    case 'AT_TIMESTAMP':
      return retryQueue ? maxOffset : undefined;
  }
}

/**
 * The store's committed records of `queues`: one Query for DynamoDB (every queue of the group), one read
 * per queue for local stores (loaded first).
 *
 * @example
 * ```ts
 * const records = await readCommittedRecords(store, queues);
 * records.get('Orders@broker-a@0')?.offset; // => 118
 * ```
 */
export async function readCommittedRecords(
  store: OffsetStore,
  queues: readonly MessageQueue[],
): Promise<Map<string, StoredOffsetRecord>> {
  if (isResettableStore(store)) return store.listRecords();
  await store.load();
  const records = new Map<string, StoredOffsetRecord>();
  for (const queue of queues) {
    const record = await store.readRecord(queue);
    if (record !== undefined) records.set(messageQueueKey(queue), record);
  }
  return records;
}
