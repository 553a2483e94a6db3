/**
 * What an S3 `onFailure` destination writes: one JSON object per message that failed for good, holding
 * the record exactly as the function receives it (body included, as base64) with why and how often it
 * failed. SQS and SNS get one {@link FailureRecord} per batch without bodies (256 KB is their limit); an
 * object has no such limit, so it keeps the whole message.
 */
import { randomUUID } from 'node:crypto';
import type { ConsumedMessage } from '../consumer/message-listener.js';
import type { RocketMQRecord } from '../handler/types.js';
import { buildRecord } from './event-builder.js';
import { approximateInvokeCount, type FailureCondition, type FailureRecord } from './failure-record.js';

/**
 * One failed message, as written to S3 (docs/operating.md, "Failures in S3").
 */
export interface S3FailureObject {
  readonly version: '1.0';
  /** ISO-8601 time the message failed for good (that of the batch's failure record). */
  readonly timestamp: string;
  readonly requestContext: {
    /** Unique per object. */
    readonly requestId: string;
    readonly functionArn: string;
    readonly condition: FailureCondition;
    /** Invokes of this message (its `reconsumeTimes` + 1 when it ran out of retries). */
    readonly approximateInvokeCount: number;
  };
  readonly responseContext: {
    /** Why, in words (the last failure's reason). */
    readonly reason: string;
  };
  readonly rocketMQInfo: {
    readonly consumerGroup: string;
    /** The message's real topic. */
    readonly topic: string;
    /** The topic of the queue it was pulled from (`%RETRY%<group>` for redeliveries). */
    readonly queueTopic: string;
    readonly brokerName: string;
    readonly queueId: number;
    readonly queueOffset: number;
    readonly messageId: string;
    readonly reconsumeTimes: number;
    /** ISO-8601 times the producer made the message and the broker stored this copy. */
    readonly bornTime: string;
    readonly storeTime: string;
    /** The body's length in bytes (the record carries it as base64). */
    readonly bodyBytes: number;
  };
  /** The record as the function receives it (src/invoke/event-builder.ts), body as base64. */
  readonly record: RocketMQRecord;
}

/**
 * The object of one message of a failure record (`failure` was built from a batch that holds `consumed`).
 */
export function buildS3FailureObject(failure: FailureRecord, consumed: ConsumedMessage): S3FailureObject {
  const { message, queue } = consumed;
  const { condition } = failure.requestContext;
  return {
    version: '1.0',
    timestamp: failure.timestamp,
    requestContext: {
      requestId: randomUUID(),
      functionArn: failure.requestContext.functionArn,
      condition,
      approximateInvokeCount: approximateInvokeCount(condition, message.reconsumeTimes),
    },
    responseContext: { reason: failure.responseContext.reason },
    rocketMQInfo: {
      consumerGroup: failure.rocketMQBatchInfo.consumerGroup,
      topic: consumed.topic,
      queueTopic: queue.topic,
      brokerName: queue.brokerName,
      queueId: queue.queueId,
      queueOffset: message.queueOffset,
      messageId: message.msgId,
      reconsumeTimes: message.reconsumeTimes,
      bornTime: new Date(message.bornTimestamp).toISOString(),
      storeTime: new Date(message.storeTimestamp).toISOString(),
      bodyBytes: message.body.length,
    },
    record: buildRecord(consumed, 'base64'),
  };
}
