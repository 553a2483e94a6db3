/**
 * Where a PUSH mapping's consumption stands, queue by queue (queue-position.ts): the broker's min/max
 * offsets, the committed record of the offset store, the lag, and how old the oldest unconsumed message
 * is. Read-only: it pulls at most one message per lagging queue (without committing anything) and writes
 * nothing. Failures are reported, not thrown (`brokerError`, `storeError`), with whatever could be read.
 */
import { BrokerError } from '../client/broker-error.js';
import { QueueReader } from '../client/queue-reader.js';
import type { RocketMQClient } from '../client/rocketmq-client.js';
import { retryTopicOf } from '../consumer/consumer-options.js';
import { lagBetween } from '../metrics/queue-lag.js';
import type { OffsetStore, StoredOffsetRecord } from '../offsets/offset-store.js';
import { type MessageQueue, messageQueueKey } from '../protocol/message-queue.js';
import { ResponseCode } from '../protocol/response-code.js';
import { describeError } from '../util/describe-error.js';
import { brokerProblemOf } from './broker-problem.js';
import {
  FirstBrokerProblem,
  type MappingPositions,
  oldestUnconsumedAt,
  type QueuePosition,
  queueLabel,
  type ReadPositionsOptions,
} from './queue-position.js';
import type { TargetMapping } from './target.js';

/**
 * Reads the positions of every readable queue of `mapping`'s topic (and, with `retryQueues`, of its
 * group's retry topic): the route and min/max offsets from the brokers, the committed records from
 * `store` (one read for a store that lists its records), the store time of the first unconsumed message
 * of each lagging queue.
 */
export async function readPushQueuePositions(
  client: RocketMQClient,
  mapping: TargetMapping,
  store: OffsetStore,
  options: ReadPositionsOptions = {},
): Promise<MappingPositions> {
  const reader = new QueueReader({ client, consumerGroup: mapping.consumerGroup });
  const problem = new FirstBrokerProblem();
  const group = mapping.consumerGroup;
  let storeError: string | undefined;
  let queues: MessageQueue[] = [];
  try {
    queues = (await reader.queues(mapping.topic)).filter((q) => q.readable).map((q) => q.queue);
  } catch (error) {
    problem.note(
      brokerProblemOf(error, { what: `the route of topic ${mapping.topic}`, topic: mapping.topic }),
    );
  }
  if (options.retryQueues === true && mapping.messageModel !== 'BROADCASTING') {
    const retryTopic = retryTopicOf(mapping.consumerGroup);
    try {
      queues.push(...(await reader.queues(retryTopic)).filter((q) => q.readable).map((q) => q.queue));
    } catch (error) {
      // The broker creates the retry topic with the group's first send-back: none yet is no backlog.
      const missing = error instanceof BrokerError && error.code === ResponseCode.TOPIC_NOT_EXIST;
      if (!missing) problem.note(brokerProblemOf(error, { what: `the route of topic ${retryTopic}` }));
    }
  }
  let records = new Map<string, StoredOffsetRecord>();
  try {
    records = await readCommittedRecords(store, queues);
  } catch (error) {
    storeError = describeError(error);
  }
  const rows = await Promise.all(
    queues.map(async (queue): Promise<QueuePosition> => {
      const committed = records.get(messageQueueKey(queue));
      const retry = queue.topic !== mapping.topic;
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
        problem.note(brokerProblemOf(error, { what: queueLabel(queue), topic: queue.topic, group }));
      }
      const resumeOffset = committed?.offset ?? startOffsetOf(mapping, retry, minOffset, maxOffset);
      const lag = lagBetween(maxOffset, resumeOffset);
      let oldestUnconsumedAtMs: number | undefined;
      if ((options.messageAges ?? true) && lag !== undefined && lag > 0 && resumeOffset !== undefined) {
        const oldest = await oldestUnconsumedAt(reader, queue, resumeOffset, minOffset);
        oldestUnconsumedAtMs = oldest.atMs;
        problem.noteText(oldest.error);
      }
      return { queue, retry, minOffset, maxOffset, committed, resumeOffset, lag, oldestUnconsumedAtMs };
    }),
  );
  return { mapping, queues: rows, ...problem.fields(), storeError };
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
 * The store's committed records of `queues`, by queue key: one read for a store that lists its records
 * (DynamoDB: every queue of the group), one read per queue otherwise (a local store, loaded first).
 */
export async function readCommittedRecords(
  store: OffsetStore,
  queues: readonly MessageQueue[],
): Promise<Map<string, StoredOffsetRecord>> {
  if (store.listRecords !== undefined) return store.listRecords();
  await store.load();
  const records = new Map<string, StoredOffsetRecord>();
  for (const queue of queues) {
    const record = await store.readRecord(queue);
    if (record !== undefined) records.set(messageQueueKey(queue), record);
  }
  return records;
}
