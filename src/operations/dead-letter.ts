/**
 * What a dead letter says about itself, and the message a redrive sends for it.
 *
 * A 5.3.3 broker writes a dead letter (CONSUMER_SEND_MSG_BACK, or a send to `%RETRY%` past the retries)
 * as a copy of the failed message in `%DLQ%<group>`: the same body, TAGS, KEYS, user properties and
 * UNIQ_KEY (so the same msgId the function saw), plus `RETRY_TOPIC` (the original topic),
 * `ORIGIN_MESSAGE_ID` (the broker's offset id of the original), the reconsume times so far and broker
 * bookkeeping (`DELAY`, `WAIT`, `REAL_TOPIC`, `CLUSTER`, ...). Messages a proxy dead-lettered carry
 * `DLQ_ORIGIN_TOPIC` / `DLQ_ORIGIN_MESSAGE_ID` instead; those win when present.
 *
 * `RETRY_TOPIC` is whatever topic the broker found the message in when it was sent back, unless the
 * message already carried one. A POP group's retried message sits in the POP retry topic
 * `%RETRY%<group>_<topic>` (or `%RETRY%<group>+<topic>`), and the broker's revive copies it there
 * without a `RETRY_TOPIC`, so the dead letter of a message that failed after a retry names that retry
 * topic. It is read back as the original topic (the broker's `KeyBuilder.parseNormalTopic`), so a
 * redrive to the topic reaches the real topic, not a retry topic that only the broker writes.
 *
 * A redriven message keeps the body, tags, keys, flag and user properties and drops every system
 * property, so its reconsume times start at 0 again. A dead letter too large to inflate (a consumer put
 * it there as too large) is resent with its body as stored, still compressed: nothing here inflates it. `retry` sends it to `%RETRY%<group>` with
 * `RETRY_TOPIC` = the original topic: only that group receives it, and its consumer (ours:
 * `realTopicOf`; Java's: `resetRetryAndNamespace`) shows it under the original topic. `topic` sends it to
 * the original topic, where every group subscribed to the topic receives it again.
 */
import type { ProducerMessage } from '../client/producer.js';
import { retryTopicOf } from '../consumer/consumer-options.js';
import { type CompressionType, compressionTypeOf } from '../protocol/compression.js';
import { MessageConst, type MessageExt, userProperties } from '../protocol/message.js';
import type { TooLargeMessage } from '../protocol/message-decoder.js';
import { compressionTypeBits } from '../protocol/message-sys-flag.js';
import { popRetryTopic } from '../protocol/pop-extra-info.js';

/**
 * Where `dlq redrive` sends messages.
 */
export type RedriveTarget = 'retry' | 'topic';

/**
 * A dead letter, decoded for people and JSON.
 */
export interface DeadLetterView {
  /** The message's offset in its DLQ queue. */
  readonly dlqOffset: number;
  /** UNIQ_KEY: the id the function saw. */
  readonly msgId: string;
  /** The broker's id of the dead letter itself. */
  readonly offsetMsgId: string;
  /** The topic the message was consumed from; undefined when the broker recorded none. */
  readonly originalTopic: string | undefined;
  /** The broker's (offset) id of the original message. */
  readonly originalMsgId: string | undefined;
  readonly reconsumeTimes: number;
  /** When the broker wrote the dead letter (ms since the epoch). */
  readonly storeTimestamp: number;
  /** When the original was produced (ms since the epoch). */
  readonly bornTimestamp: number;
  readonly tags: string | undefined;
  readonly keys: readonly string[];
  readonly userProperties: Readonly<Record<string, string>>;
  /** The user flag (an int the broker keeps). */
  readonly flag: number;
  /** The body; empty for a dead letter too large to inflate (`tooLarge`). */
  readonly body: Buffer;
  /**
   * Set for a dead letter whose compressed body would inflate past the reader's limit (a message a
   * consumer dead-lettered as too large): why, and its body as stored, which a redrive resends as is.
   */
  readonly tooLarge?:
    | { readonly reason: string; readonly storedBody: Buffer; readonly compression: CompressionType }
    | undefined;
}

/**
 * Reads what the broker recorded of a dead letter's origin. With the DLQ's `consumerGroup`, a POP retry
 * topic of that group in `RETRY_TOPIC` reads as the topic it retries (see the file header).
 */
export function describeDeadLetter(
  message: MessageExt,
  consumerGroup?: string,
  tooLarge?: TooLargeMessage,
): DeadLetterView {
  const p = message.properties;
  const retryTopic = nonEmpty(p[MessageConst.RETRY_TOPIC]);
  return {
    dlqOffset: message.queueOffset,
    msgId: message.msgId,
    offsetMsgId: message.offsetMsgId,
    originalTopic:
      nonEmpty(p[MessageConst.DLQ_ORIGIN_TOPIC]) ??
      (retryTopic === undefined || consumerGroup === undefined
        ? retryTopic
        : topicOfPopRetryTopic(retryTopic, consumerGroup)),
    originalMsgId:
      nonEmpty(p[MessageConst.DLQ_ORIGIN_MESSAGE_ID]) ?? nonEmpty(p[MessageConst.ORIGIN_MESSAGE_ID]),
    reconsumeTimes: message.reconsumeTimes,
    storeTimestamp: message.storeTimestamp,
    bornTimestamp: message.bornTimestamp,
    tags: message.tags,
    keys: message.keys,
    userProperties: { ...userProperties(p) },
    flag: message.flag,
    body: message.body,
    ...(tooLarge === undefined
      ? {}
      : {
          tooLarge: {
            reason: tooLarge.reason,
            storedBody: tooLarge.storedBody,
            compression: compressionTypeOf(compressionTypeBits(message.sysFlag)),
          },
        }),
  };
}

/**
 * The message that redrives `deadLetter` to `to` for `consumerGroup`. `fallbackTopic` (the mapping's topic)
 * stands in for an original topic the broker did not record.
 */
export function redriveMessageOf(
  deadLetter: DeadLetterView,
  to: RedriveTarget,
  consumerGroup: string,
  fallbackTopic: string,
): ProducerMessage & { topic: string } {
  const originalTopic = deadLetter.originalTopic ?? fallbackTopic;
  const properties: Record<string, string> = { ...deadLetter.userProperties };
  if (to === 'retry') properties[MessageConst.RETRY_TOPIC] = originalTopic;
  return {
    topic: to === 'retry' ? retryTopicOf(consumerGroup) : originalTopic,
    body: deadLetter.body,
    // Too large to inflate here: resent exactly as stored, still compressed.
    ...(deadLetter.tooLarge === undefined
      ? {}
      : {
          compressedBody: {
            bytes: deadLetter.tooLarge.storedBody,
            compression: deadLetter.tooLarge.compression,
          },
        }),
    tags: deadLetter.tags,
    keys: deadLetter.keys.length === 0 ? undefined : [...deadLetter.keys],
    properties,
    ...(deadLetter.flag === 0 ? {} : { flag: deadLetter.flag }),
  };
}

/**
 * The topic a POP retry topic of `consumerGroup` retries (`%RETRY%<group>_<topic>` or
 * `%RETRY%<group>+<topic>`); any other topic as it is.
 */
export function topicOfPopRetryTopic(topic: string, consumerGroup: string): string {
  for (const v2 of [false, true]) {
    const prefix = popRetryTopic('', consumerGroup, v2);
    if (topic.startsWith(prefix) && topic.length > prefix.length) return topic.slice(prefix.length);
  }
  return topic;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
