/**
 * The "extra info" of a popped message (Java `ExtraInfoUtil`): its receipt, which ACK_MESSAGE and
 * CHANGE_MESSAGE_INVISIBLETIME send back so the broker finds the checkpoint the pop wrote. Also the
 * per-queue offset lists of a POP_MESSAGE response, and the names of the POP retry topics.
 *
 * ```
 * extraInfo       = ckQueueOffset SP popTime SP invisibleTime SP reviveQid SP retryMark SP brokerName
 *                   SP queueId SP queueOffset
 * retryMark       = "0" (the topic) | "1" (%RETRY%<group>_<topic>) | "2" (%RETRY%<group>+<topic>)
 * startOffsetInfo = entry *(";" entry), entry = retryMark SP queueId SP ckQueueOffset
 * msgOffsetInfo   = entry *(";" entry), entry = retryMark SP queueId SP offset *("," offset)
 * ```
 *
 * A retried message reaches the consumer with the original topic and a receipt the broker already put
 * into its `POP_CK` property; a first delivery has none, and the client builds it from the header.
 */

import { echoedText, echoedValue } from '../util/echoed-value.js';
import { propertyOf } from './decoded-message.js';
import { ProtocolError } from './errors.js';
import type { MessageExt } from './message.js';
import { MessageConst } from './message.js';
import type { AckMessageRequestHeader, PopMessageResponseHeader } from './pop-headers.js';

const RETRY_PREFIX = '%RETRY%';
const SEPARATOR = ' ';

/** Which topic a popped message came from: the topic itself, or one of its POP retry topics. */
export type PopRetryMark = '0' | '1' | '2';

/**
 * The receipt of one popped message.
 */
export interface PopReceipt {
  /** The start offset of the checkpoint the pop wrote. */
  readonly ckQueueOffset: number;
  readonly popTime: number;
  readonly invisibleTime: number;
  readonly reviveQid: number;
  readonly retryMark: PopRetryMark;
  readonly brokerName: string;
  /** The queue the message was popped from (of the retry topic for a retried message). */
  readonly queueId: number;
  /** The message's offset in that queue. */
  readonly queueOffset: number;
}

/**
 * The POP retry topic of a topic and group (`KeyBuilder.buildPopRetryTopic`): `%RETRY%<group>_<topic>`,
 * or `%RETRY%<group>+<topic>` on a broker with `enableRetryTopicV2`.
 */
export function popRetryTopic(topic: string, consumerGroup: string, v2 = false): string {
  return `${RETRY_PREFIX}${consumerGroup}${v2 ? '+' : '_'}${topic}`;
}

/**
 * The retry mark of a stored topic name (`ExtraInfoUtil.getRetry`).
 */
export function popRetryMark(storedTopic: string): PopRetryMark {
  if (!storedTopic.startsWith(RETRY_PREFIX)) return '0';
  return storedTopic.includes('+') ? '2' : '1';
}

/**
 * The topic an ack or change of invisible time names: the requested topic for a first delivery, its POP
 * retry topic for a retried message (`ExtraInfoUtil.getRealTopic`).
 */
export function receiptTopic(receipt: PopReceipt, topic: string, consumerGroup: string): string {
  if (receipt.retryMark === '0') return topic;
  return popRetryTopic(topic, consumerGroup, receipt.retryMark === '2');
}

/**
 * Encodes a receipt as the extra info the broker reads.
 */
export function encodePopReceipt(receipt: PopReceipt): string {
  return [
    receipt.ckQueueOffset,
    receipt.popTime,
    receipt.invisibleTime,
    receipt.reviveQid,
    receipt.retryMark,
    receipt.brokerName,
    receipt.queueId,
    receipt.queueOffset,
  ].join(SEPARATOR);
}

/**
 * Parses an extra info string (a `POP_CK` property, or one of ours). Throws {@link ProtocolError} when it
 * does not have the eight fields or a number is not an integer.
 */
export function parsePopReceipt(extraInfo: string): PopReceipt {
  const fields = extraInfo.split(SEPARATOR);
  if (fields.length !== 8) {
    throw new ProtocolError(`POP extra info ${echoedValue(extraInfo)} has ${fields.length} fields, not 8`);
  }
  const [ck, popTime, invisibleTime, reviveQid, mark, brokerName, queueId, queueOffset] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (mark !== '0' && mark !== '1' && mark !== '2') {
    throw new ProtocolError(`POP extra info ${echoedValue(extraInfo)} has retry mark ${echoedValue(mark)}`);
  }
  const int = (value: string, name: string) => integer(value, `POP extra info ${name}`);
  return {
    ckQueueOffset: int(ck, 'ckQueueOffset'),
    popTime: int(popTime, 'popTime'),
    invisibleTime: int(invisibleTime, 'invisibleTime'),
    reviveQid: int(reviveQid, 'reviveQid'),
    retryMark: mark,
    brokerName,
    queueId: int(queueId, 'queueId'),
    queueOffset: int(queueOffset, 'queueOffset'),
  };
}

/**
 * Parses `startOffsetInfo`: `<retryMark>@<queueId>` -> the checkpoint's start offset. Empty or absent
 * reads as an empty map.
 */
export function parseStartOffsetInfo(info: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of offsetInfoEntries(info, 'startOffsetInfo')) {
    out.set(key, integer(value, 'startOffsetInfo offset'));
  }
  return out;
}

/**
 * Parses `msgOffsetInfo`: `<retryMark>@<queueId>` -> the popped messages' queue offsets, in order.
 */
export function parseMsgOffsetInfo(info: string | undefined): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [key, value] of offsetInfoEntries(info, 'msgOffsetInfo')) {
    out.set(
      key,
      value.split(',').map((offset) => integer(offset, 'msgOffsetInfo offset')),
    );
  }
  return out;
}

/**
 * The receipt of every message of a POP_MESSAGE response, in order (`MQClientAPIImpl.processPopResponse`):
 * a message that carries `POP_CK` (a retried one) keeps the broker's; the others get the checkpoint
 * start of their queue from `startOffsetInfo` and their offset from `msgOffsetInfo`, or, from a broker
 * that sends neither, the first popped offset of their queue as the checkpoint start. Throws
 * {@link ProtocolError} when the header names no checkpoint for a message's queue.
 */
export function assignPopReceipts(
  messages: readonly MessageExt[],
  header: PopMessageResponseHeader,
  brokerName: string,
): PopReceipt[] {
  const starts = parseStartOffsetInfo(header.startOffsetInfo);
  const offsets = parseMsgOffsetInfo(header.msgOffsetInfo);
  const seen = new Map<string, number>();
  const firstOffsets = new Map<string, number>();
  return messages.map((message) => {
    const popCk = propertyOf(message, MessageConst.POP_CK);
    if (popCk !== undefined) return parsePopReceipt(popCk);
    const retryMark = popRetryMark(message.topic);
    const key = `${retryMark}@${message.queueId}`;
    const base = {
      popTime: header.popTime,
      invisibleTime: header.invisibleTime,
      reviveQid: header.reviveQid,
      retryMark,
      brokerName,
      queueId: message.queueId,
    };
    if (starts.size === 0) {
      if (!firstOffsets.has(key)) firstOffsets.set(key, message.queueOffset);
      return {
        ...base,
        ckQueueOffset: firstOffsets.get(key) ?? message.queueOffset,
        queueOffset: message.queueOffset,
      };
    }
    const start = starts.get(key);
    if (start === undefined) {
      throw new ProtocolError(
        `POP_MESSAGE response names no checkpoint for queue ${key} of ${message.topic}`,
      );
    }
    const index = seen.get(key) ?? 0;
    seen.set(key, index + 1);
    // The broker's list is what its checkpoint records; the stored offset is the same unless it misbehaves.
    const queueOffset = offsets.get(key)?.[index] ?? message.queueOffset;
    return { ...base, ckQueueOffset: start, queueOffset };
  });
}

/**
 * The ACK_MESSAGE header of a delivery (also the base of CHANGE_MESSAGE_INVISIBLETIME's): the topic and
 * queue it was popped from, its offset there, its receipt (Java `DefaultMQPushConsumerImpl.ackAsync`).
 * `topic` is the topic the consumer pops.
 */
export function popAckHeader(
  receipt: PopReceipt,
  consumerGroup: string,
  topic: string,
): AckMessageRequestHeader {
  return {
    consumerGroup,
    topic: receiptTopic(receipt, topic, consumerGroup),
    queueId: receipt.queueId,
    offset: receipt.queueOffset,
    extraInfo: encodePopReceipt(receipt),
    bname: receipt.brokerName,
  };
}

function offsetInfoEntries(info: string | undefined, name: string): [string, string][] {
  if (info === undefined || info.length === 0) return [];
  const keys = new Set<string>();
  return info.split(';').map((entry) => {
    const parts = entry.split(SEPARATOR);
    if (parts.length !== 3) throw new ProtocolError(`${name} entry ${echoedValue(entry)} has not 3 fields`);
    const [mark, queueId, value] = parts as [string, string, string];
    const key = `${mark}@${queueId}`;
    if (keys.has(key)) throw new ProtocolError(`${name} names queue ${echoedText(key)} twice`);
    keys.add(key);
    return [key, value];
  });
}

function integer(value: string, what: string): number {
  if (!/^-?\d+$/.test(value)) throw new ProtocolError(`${what} ${echoedValue(value)} is not an integer`);
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed))
    throw new ProtocolError(`${what} ${echoedText(value)} is outside the safe integer range`);
  return parsed;
}
