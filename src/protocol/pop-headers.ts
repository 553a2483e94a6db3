/**
 * Headers of POP consumption (RocketMQ 5.x `PopMessageRequestHeader`, `PopMessageResponseHeader`,
 * `AckMessageRequestHeader`, `ChangeInvisibleTimeRequestHeader`, `ChangeInvisibleTimeResponseHeader`).
 * Field names are the Java fields' names; values travel as strings ({@link toExtFields}). How a popped
 * message is named in an ack (its "extra info") is in pop-extra-info.ts.
 *
 * ```
 * POP_MESSAGE (200050)                  -> SUCCESS + stored messages (the PULL body format)
 *   consumerGroup topic queueId(-1: all)    | POLLING_TIMEOUT (210) / PULL_NOT_FOUND (19): none
 *   maxMsgNums(<=32) invisibleTime pollTime | POLLING_FULL (209): too many long polls held
 *   bornTime initMode(0 MIN, 1 MAX) expType exp order bname
 * response: popTime invisibleTime reviveQid restNum startOffsetInfo msgOffsetInfo orderCountInfo
 * ACK_MESSAGE (200051)                  consumerGroup topic queueId extraInfo offset bname
 * CHANGE_MESSAGE_INVISIBLETIME (200053) consumerGroup topic queueId extraInfo offset invisibleTime bname
 * response: popTime invisibleTime reviveQid
 * ```
 */
import { optionalIntegerField, requireIntegerField } from './header-parsers.js';
import type { BrokerNameHeader } from './headers.js';

/**
 * Where a group starts a queue it has never popped (`ConsumeInitMode`): MIN is the queue's first offset,
 * MAX its last message (a 5.3.3 broker starts at 0 instead while the queue's start is still in memory).
 */
export const PopInitMode = { MIN: 0, MAX: 1 } as const;
export type PopInitMode = (typeof PopInitMode)[keyof typeof PopInitMode];

/** The largest `maxMsgNums` a broker accepts (it answers INVALID_PARAMETER above). */
export const POP_MAX_MESSAGES = 32;

/**
 * The broker answers POLLING_TIMEOUT at once when a request arrives later than `bornTime + pollTime`
 * plus this margin (`PopMessageRequestHeader.isTimeoutTooMuch`).
 */
export const POP_BORN_TIME_MARGIN_MS = 500;

/**
 * POP_MESSAGE (200050).
 */
export interface PopMessageRequestHeader extends BrokerNameHeader {
  consumerGroup: string;
  topic: string;
  /** A queue of the topic, or -1 for any (the broker walks them from a random one). */
  queueId: number;
  /** 1..{@link POP_MAX_MESSAGES}. */
  maxMsgNums: number;
  /** How long the popped messages stay invisible to other pops, ms. */
  invisibleTime: number;
  /** How long the broker may hold the request while nothing is there, ms (0: answer at once). */
  pollTime: number;
  /** When the request was made (client clock), ms since the epoch. */
  bornTime: number;
  initMode: PopInitMode;
  /** `TAG` or `SQL92`. */
  expType?: string | undefined;
  /** The filter expression (`*` for everything). */
  exp?: string | undefined;
  /** Orderly POP (one in-flight message group per queue); not used by this client. */
  order?: boolean | undefined;
  attemptId?: string | undefined;
}

/**
 * Parsed `PopMessageResponseHeader`. The three `*Info` strings name, per queue the messages came from,
 * the checkpoint's start offset and each message's queue offset (pop-extra-info.ts parses them).
 */
export interface PopMessageResponseHeader {
  /** The broker's clock when it popped; invisibility runs from here. */
  popTime: number;
  invisibleTime: number;
  /** The revive queue of the checkpoint (999 for orderly POP). */
  reviveQid: number;
  /** Messages left in the queues looked at (a hint). */
  restNum: number;
  startOffsetInfo?: string | undefined;
  msgOffsetInfo?: string | undefined;
  orderCountInfo?: string | undefined;
}

/**
 * Parses a POP_MESSAGE response header. A broker that found nothing still sends the header; its
 * `popTime` is then 0 or absent, which reads as 0.
 */
export function parsePopMessageResponseHeader(fields: Record<string, string>): PopMessageResponseHeader {
  const context = 'POP_MESSAGE response';
  const header: PopMessageResponseHeader = {
    popTime: optionalIntegerField(fields, 'popTime', context) ?? 0,
    invisibleTime: optionalIntegerField(fields, 'invisibleTime', context) ?? 0,
    reviveQid: optionalIntegerField(fields, 'reviveQid', context) ?? 0,
    restNum: optionalIntegerField(fields, 'restNum', context) ?? 0,
  };
  if (fields.startOffsetInfo !== undefined) header.startOffsetInfo = fields.startOffsetInfo;
  if (fields.msgOffsetInfo !== undefined) header.msgOffsetInfo = fields.msgOffsetInfo;
  if (fields.orderCountInfo !== undefined) header.orderCountInfo = fields.orderCountInfo;
  return header;
}

/**
 * ACK_MESSAGE (200051): `topic` is the topic the message was popped from (the POP retry topic for a
 * retried message), `queueId` and `offset` its queue and queue offset there, `extraInfo` its receipt.
 */
export interface AckMessageRequestHeader extends BrokerNameHeader {
  consumerGroup: string;
  topic: string;
  queueId: number;
  extraInfo: string;
  offset: number;
}

/**
 * CHANGE_MESSAGE_INVISIBLETIME (200053): the message becomes visible again `invisibleTime` ms from now
 * (the broker then redelivers it through the POP retry topic with `reconsumeTimes + 1`).
 */
export interface ChangeInvisibleTimeRequestHeader extends AckMessageRequestHeader {
  invisibleTime: number;
}

/**
 * Parsed `ChangeInvisibleTimeResponseHeader`: the new checkpoint's pop time and invisible time.
 */
export interface ChangeInvisibleTimeResponseHeader {
  popTime: number;
  invisibleTime: number;
  reviveQid: number;
}

/**
 * Parses a CHANGE_MESSAGE_INVISIBLETIME response header.
 */
export function parseChangeInvisibleTimeResponseHeader(
  fields: Record<string, string>,
): ChangeInvisibleTimeResponseHeader {
  const context = 'CHANGE_MESSAGE_INVISIBLETIME response';
  return {
    popTime: requireIntegerField(fields, 'popTime', context),
    invisibleTime: requireIntegerField(fields, 'invisibleTime', context),
    reviveQid: requireIntegerField(fields, 'reviveQid', context),
  };
}
