/**
 * The record an `onFailure` destination receives about messages that failed for good, shaped like the
 * on-failure records of Lambda's own event source mappings: what was invoked, why it failed, and where the
 * messages are (topic, broker, queue, offsets, message ids), never their bodies.
 */

import { randomUUID } from 'node:crypto';
import type { ConsumedMessage } from '../consumer/message-listener.js';
import { RocketMQError } from '../errors.js';

/**
 * Why messages reached the failure destination.
 * - `RetryAttemptsExhausted`: failed `maxReconsumeTimes` redeliveries.
 * - `RecordAgeExceeded`: older than the mapping's `maxRecordAgeSeconds`.
 * - `PayloadSizeExceeded`: too large for any invoke.
 */
export type FailureCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded' | 'PayloadSizeExceeded';

/**
 * The messages of one queue in a failure record.
 */
export interface FailedQueueInfo {
  /** The messages' real topic. */
  readonly topic: string;
  /** The topic of the queue they were pulled from (`%RETRY%<group>` for redeliveries). */
  readonly queueTopic: string;
  readonly brokerName: string;
  readonly queueId: number;
  /** The smallest and largest queue offset of the messages (inclusive). */
  readonly startOffset: number;
  readonly endOffset: number;
  readonly messageIds: readonly string[];
  readonly count: number;
}

/**
 * What the destination receives, as JSON.
 */
export interface FailureRecord {
  readonly version: '1.0';
  /** ISO-8601 time the record was made. */
  readonly timestamp: string;
  readonly requestContext: {
    readonly requestId: string;
    readonly functionArn: string;
    readonly condition: FailureCondition;
    /** Invokes of the messages so far (RocketMQ's reconsumeTimes + 1, the largest of the batch). */
    readonly approximateInvokeCount: number;
  };
  readonly responseContext: {
    /** Why, in words (the last failure's reason). */
    readonly reason: string;
  };
  readonly rocketMQBatchInfo: {
    readonly consumerGroup: string;
    readonly batchSize: number;
    readonly queues: readonly FailedQueueInfo[];
    readonly approximateStoreTimeOfFirstMessage: string;
    readonly approximateStoreTimeOfLastMessage: string;
  };
}

/**
 * Inputs of {@link buildFailureRecord}.
 */
export interface FailureRecordInput {
  readonly condition: FailureCondition;
  readonly reason: string;
  readonly functionArn: string;
  readonly consumerGroup: string;
  /** Non-empty. */
  readonly messages: readonly ConsumedMessage[];
  /** @default new Date() */
  readonly now?: Date | undefined;
}

/**
 * Builds the failure record of some messages, grouped by the queue they were pulled from (queues in order
 * of first appearance, message ids in batch order).
 */
export function buildFailureRecord(input: FailureRecordInput): FailureRecord {
  const { messages } = input;
  if (messages.length === 0) throw new RocketMQError('a failure record needs at least one message');
  const queues = new Map<string, { info: Omit<FailedQueueInfo, 'count'>; ids: string[] }>();
  let firstStore = Number.POSITIVE_INFINITY;
  let lastStore = Number.NEGATIVE_INFINITY;
  let maxReconsumeTimes = 0;
  for (const consumed of messages) {
    const { message, queue } = consumed;
    const key = `${queue.topic}@${queue.brokerName}@${queue.queueId}`;
    let entry = queues.get(key);
    if (entry === undefined) {
      entry = {
        info: {
          topic: consumed.topic,
          queueTopic: queue.topic,
          brokerName: queue.brokerName,
          queueId: queue.queueId,
          startOffset: message.queueOffset,
          endOffset: message.queueOffset,
          messageIds: [],
        },
        ids: [],
      };
      queues.set(key, entry);
    }
    entry.info = {
      ...entry.info,
      startOffset: Math.min(entry.info.startOffset, message.queueOffset),
      endOffset: Math.max(entry.info.endOffset, message.queueOffset),
    };
    entry.ids.push(message.msgId);
    firstStore = Math.min(firstStore, message.storeTimestamp);
    lastStore = Math.max(lastStore, message.storeTimestamp);
    maxReconsumeTimes = Math.max(maxReconsumeTimes, message.reconsumeTimes);
  }
  return {
    version: '1.0',
    timestamp: (input.now ?? new Date()).toISOString(),
    requestContext: {
      requestId: randomUUID(),
      functionArn: input.functionArn,
      condition: input.condition,
      approximateInvokeCount: approximateInvokeCount(input.condition, maxReconsumeTimes),
    },
    responseContext: { reason: input.reason },
    rocketMQBatchInfo: {
      consumerGroup: input.consumerGroup,
      batchSize: messages.length,
      queues: [...queues.values()].map(({ info, ids }) => ({ ...info, messageIds: ids, count: ids.length })),
      approximateStoreTimeOfFirstMessage: new Date(firstStore).toISOString(),
      approximateStoreTimeOfLastMessage: new Date(lastStore).toISOString(),
    },
  };
}

/**
 * How often a message was invoked by the time it failed for good: `reconsumeTimes + 1` when it ran out of
 * retries (the last failure was an invoke too), `reconsumeTimes` when it was dead-lettered uninvoked.
 */
export function approximateInvokeCount(condition: FailureCondition, reconsumeTimes: number): number {
  return condition === 'RetryAttemptsExhausted' ? reconsumeTimes + 1 : reconsumeTimes;
}
