/**
 * RocketMQ messages: the shape a producer sends ({@link Message}), the shape a consumer receives
 * ({@link MessageExt}), and the property keys with a meaning to RocketMQ ({@link MessageConst}).
 */

/**
 * A message to send: what SEND_MESSAGE and SEND_BATCH_MESSAGE carry besides the header.
 *
 * @example
 * ```ts
 * const message: Message = { topic: 'orders', body: Buffer.from('{}'), properties: { TAGS: 'created' } };
 * ```
 */
export interface Message {
  topic: string;
  body: Buffer;
  /** User flag (an int the broker stores and returns unchanged). Default 0. */
  flag?: number;
  /** System and user properties, e.g. `UNIQ_KEY`, `TAGS`, `KEYS`, `WAIT`. */
  properties: Record<string, string>;
}

/**
 * A stored message as decoded from a PULL body (Java `MessageExt` / `MessageClientExt`). Offsets and
 * timestamps are safe integers (the decoder rejects anything else). The decoder returns
 * `DecodedMessage`s (decoded-message.ts), which read their properties, ids, tags, keys and hosts on
 * first use: `{ ...m }` copies only the eagerly read fields; `toPlainMessage(m)` gives plain data that
 * is safe to spread, clone or serialize (`JSON.stringify(m)` is safe as it is).
 *
 * @example
 * ```ts
 * const { messages } = decodeMessages(pullBody);
 * for (const m of messages) console.log(m.msgId, m.queueOffset, m.tags, m.body.toString());
 * ```
 */
export interface MessageExt {
  /** The stored topic (for retried messages `%RETRY%<group>`; the original is `properties.RETRY_TOPIC`). */
  topic: string;
  queueId: number;
  queueOffset: number;
  /** Commit-log offset (PHYSICALOFFSET). */
  physicalOffset: number;
  /** SYSFLAG, with the COMPRESSED bit cleared once the body was decompressed (as Java does). */
  sysFlag: number;
  /** User flag. */
  flag: number;
  /** Milliseconds since the epoch. */
  bornTimestamp: number;
  /** `ip:port`, IPv6 as `[ip]:port`. */
  bornHost: string;
  /** Milliseconds since the epoch. */
  storeTimestamp: number;
  /** `ip:port`, IPv6 as `[ip]:port`. */
  storeHost: string;
  reconsumeTimes: number;
  preparedTransactionOffset: number;
  /** BODYCRC as stored (CRC32 of the stored, possibly compressed, body & 0x7FFFFFFF). */
  bodyCrc: number;
  /** TOTALSIZE of the record (for an inner-batch message: the size of its batch entry). */
  storeSize: number;
  /** The body, decompressed; a view of the pull buffer when it was not compressed. */
  body: Buffer;
  /** All properties (system and user). */
  properties: Record<string, string>;
  /** Broker id: hex of store host IP, port and physical offset (32 hex chars for IPv4, 56 for IPv6). */
  offsetMsgId: string;
  /** `UNIQ_KEY` when present, else {@link offsetMsgId} (Java `MessageClientExt.getMsgId`). */
  msgId: string;
  /** `TAGS` property. */
  tags: string | undefined;
  /** `KEYS` property split on spaces, empty pieces dropped. */
  keys: string[];
}

/**
 * Property keys RocketMQ itself reads or writes (Java `MessageConst`).
 */
export const MessageConst = {
  KEYS: 'KEYS',
  TAGS: 'TAGS',
  WAIT: 'WAIT',
  DELAY: 'DELAY',
  RETRY_TOPIC: 'RETRY_TOPIC',
  REAL_TOPIC: 'REAL_TOPIC',
  REAL_QID: 'REAL_QID',
  TRAN_MSG: 'TRAN_MSG',
  PGROUP: 'PGROUP',
  MIN_OFFSET: 'MIN_OFFSET',
  MAX_OFFSET: 'MAX_OFFSET',
  BUYER_ID: 'BUYER_ID',
  ORIGIN_MESSAGE_ID: 'ORIGIN_MESSAGE_ID',
  TRANSFER_FLAG: 'TRANSFER_FLAG',
  CORRECTION_FLAG: 'CORRECTION_FLAG',
  MQ2_FLAG: 'MQ2_FLAG',
  RECONSUME_TIME: 'RECONSUME_TIME',
  MSG_REGION: 'MSG_REGION',
  TRACE_ON: 'TRACE_ON',
  UNIQ_KEY: 'UNIQ_KEY',
  EXTEND_UNIQ_INFO: 'EXTEND_UNIQ_INFO',
  MAX_RECONSUME_TIMES: 'MAX_RECONSUME_TIMES',
  CONSUME_START_TIME: 'CONSUME_START_TIME',
  INNER_NUM: 'INNER_NUM',
  INNER_BASE: 'INNER_BASE',
  DUP_INFO: 'DUP_INFO',
  CHECK_IMMUNITY_TIME_IN_SECONDS: 'CHECK_IMMUNITY_TIME_IN_SECONDS',
  TRAN_PREPARED_QUEUE_OFFSET: 'TRAN_PREPARED_QUEUE_OFFSET',
  TRANSACTION_ID: '__transactionId__',
  TRANSACTION_CHECK_TIMES: 'TRANSACTION_CHECK_TIMES',
  INSTANCE_ID: 'INSTANCE_ID',
  CORRELATION_ID: 'CORRELATION_ID',
  REPLY_TO_CLIENT: 'REPLY_TO_CLIENT',
  TTL: 'TTL',
  ARRIVE_TIME: 'ARRIVE_TIME',
  PUSH_REPLY_TIME: 'PUSH_REPLY_TIME',
  CLUSTER: 'CLUSTER',
  MSG_TYPE: 'MSG_TYPE',
  POP_CK: 'POP_CK',
  POP_CK_OFFSET: 'POP_CK_OFFSET',
  FIRST_POP_TIME: '1ST_POP_TIME',
  SHARDING_KEY: '__SHARDINGKEY',
  FORWARD_QUEUE_ID: 'PROPERTY_FORWARD_QUEUE_ID',
  REDIRECT: 'REDIRECT',
  INNER_MULTI_DISPATCH: 'INNER_MULTI_DISPATCH',
  INNER_MULTI_QUEUE_OFFSET: 'INNER_MULTI_QUEUE_OFFSET',
  TRACE_CONTEXT: 'TRACE_CONTEXT',
  TIMER_DELAY_SEC: 'TIMER_DELAY_SEC',
  TIMER_DELIVER_MS: 'TIMER_DELIVER_MS',
  TIMER_ENQUEUE_MS: 'TIMER_ENQUEUE_MS',
  TIMER_DEQUEUE_MS: 'TIMER_DEQUEUE_MS',
  TIMER_ROLL_TIMES: 'TIMER_ROLL_TIMES',
  TIMER_OUT_MS: 'TIMER_OUT_MS',
  TIMER_DEL_UNIQKEY: 'TIMER_DEL_UNIQKEY',
  TIMER_DELAY_LEVEL: 'TIMER_DELAY_LEVEL',
  TIMER_DELAY_MS: 'TIMER_DELAY_MS',
  BORN_HOST: '__BORNHOST',
  BORN_TIMESTAMP: 'BORN_TIMESTAMP',
  CRC32: '__CRC32#',
  DLQ_ORIGIN_TOPIC: 'DLQ_ORIGIN_TOPIC',
  DLQ_ORIGIN_MESSAGE_ID: 'DLQ_ORIGIN_MESSAGE_ID',
} as const;
export type MessageConstKey = (typeof MessageConst)[keyof typeof MessageConst];

/**
 * Prefix of transient properties the broker never stores (e.g. `__RMQ.TRANSIENT.TOPIC_SYS_FLAG`).
 */
export const TRANSIENT_PROPERTY_PREFIX = '__RMQ.TRANSIENT.';

/**
 * Keys that are not user properties: every {@link MessageConst} value (Java reserves most of them
 * for `putUserProperty`; the rest are set by brokers, timers, transactions or the client).
 * Also see {@link isSystemProperty}, which adds the transient prefix.
 */
export const SYSTEM_PROPERTY_KEYS: ReadonlySet<string> = new Set<string>(Object.values(MessageConst));

/**
 * True for keys that are not user properties ({@link SYSTEM_PROPERTY_KEYS} or transient keys).
 */
export function isSystemProperty(key: string): boolean {
  return SYSTEM_PROPERTY_KEYS.has(key) || key.startsWith(TRANSIENT_PROPERTY_PREFIX);
}

/**
 * The user properties of a message: every property that {@link isSystemProperty} rejects.
 */
export function userProperties(properties: Readonly<Record<string, string>>): Record<string, string> {
  const result: Record<string, string> = Object.create(null);
  for (const key of Object.keys(properties)) {
    const value = properties[key];
    if (value !== undefined && !isSystemProperty(key)) result[key] = value;
  }
  return result;
}
