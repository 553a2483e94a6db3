/**
 * Typed request headers ("custom headers", sent as string extFields) and response-header parsers for the
 * requests this client sends or answers. Field names are the Java header classes' field names; every
 * value travels as its decimal / `true` / `false` string form ({@link toExtFields}).
 * Response-header parsers throw {@link ProtocolError} naming a missing or malformed field.
 */
import { ProtocolError } from './errors.js';
import { toExtFields } from './remoting-command.js';

/**
 * Fields every broker RPC header may carry (`RpcRequestHeader`/`TopicQueueRequestHeader`).
 *
 * @example
 * ```ts
 * const header: BrokerNameHeader = { bname: 'broker-a' };
 * ```
 */
export interface BrokerNameHeader {
  /** Broker name (`bname`); 5.x Java always sets it on queue-level requests. */
  bname?: string | undefined;
}

/**
 * GET_ROUTEINFO_BY_TOPIC (105), to a name server.
 *
 * @example
 * ```ts
 * toExtFields({ topic: 'T', acceptStandardJsonOnly: true } satisfies GetRouteInfoRequestHeader);
 * ```
 */
export interface GetRouteInfoRequestHeader {
  topic: string;
  /** Ask for standard JSON (quoted map keys) even from a name server that would not send it by version. */
  acceptStandardJsonOnly?: boolean | undefined;
}

/**
 * UNREGISTER_CLIENT (35). Note the capital `ID` in `clientID`.
 *
 * @example
 * ```ts
 * toExtFields({ clientID: clientId, consumerGroup: 'G' } satisfies UnregisterClientRequestHeader);
 * ```
 */
export interface UnregisterClientRequestHeader {
  clientID: string;
  producerGroup?: string | undefined;
  consumerGroup?: string | undefined;
}

/**
 * GET_CONSUMER_LIST_BY_GROUP (38).
 *
 * @example
 * ```ts
 * toExtFields({ consumerGroup: 'G' } satisfies GetConsumerListByGroupRequestHeader);
 * ```
 */
export interface GetConsumerListByGroupRequestHeader {
  consumerGroup: string;
}

/**
 * PULL_MESSAGE (11).
 *
 * @example
 * ```ts
 * const header: PullMessageRequestHeader = { consumerGroup: 'G', topic: 'T', queueId: 0, queueOffset: 0,
 *   maxMsgNums: 32, sysFlag: PullSysFlag.SUSPEND, commitOffset: 0, suspendTimeoutMillis: 15_000, subVersion: 0 };
 * ```
 */
export interface PullMessageRequestHeader extends BrokerNameHeader {
  consumerGroup: string;
  topic: string;
  queueId: number;
  queueOffset: number;
  maxMsgNums: number;
  /** {@link PullSysFlag} bits. */
  sysFlag: number;
  commitOffset: number;
  suspendTimeoutMillis: number;
  /** Sub expression; used by the broker only with the SUBSCRIPTION bit. */
  subscription?: string | undefined;
  subVersion: number;
  /** `TAG` or `SQL92`. */
  expressionType?: string | undefined;
  /** Ignored by 5.3.3 brokers; sent for parity with Java. */
  maxMsgBytes?: number | undefined;
}

/**
 * CONSUMER_SEND_MSG_BACK (36).
 *
 * @example
 * ```ts
 * const header: ConsumerSendMsgBackRequestHeader = { offset: msg.physicalOffset, group: 'G', delayLevel: 0,
 *   originMsgId: msg.msgId, originTopic: 'T', maxReconsumeTimes: 16 };
 * ```
 */
export interface ConsumerSendMsgBackRequestHeader extends BrokerNameHeader {
  /** The message's commit-log (physical) offset. */
  offset: number;
  group: string;
  /** 0 = broker picks (3 + reconsumeTimes); > 0 explicit level; < 0 straight to the DLQ. */
  delayLevel: number;
  originMsgId?: string | undefined;
  originTopic?: string | undefined;
  unitMode?: boolean | undefined;
  maxReconsumeTimes?: number | undefined;
}

/**
 * GET_MAX_OFFSET (30).
 *
 * @example
 * ```ts
 * await broker.getMaxOffset(address, { topic: 'T', queueId: 0 } satisfies GetMaxOffsetRequestHeader);
 * ```
 */
export interface GetMaxOffsetRequestHeader extends BrokerNameHeader {
  topic: string;
  queueId: number;
  /** Java always sends `true`; ignored by 5.3.3. */
  committed?: boolean | undefined;
}

/**
 * GET_MIN_OFFSET (31).
 *
 * @example
 * ```ts
 * await broker.getMinOffset(address, { topic: 'T', queueId: 0 } satisfies GetMinOffsetRequestHeader);
 * ```
 */
export interface GetMinOffsetRequestHeader extends BrokerNameHeader {
  topic: string;
  queueId: number;
}

/**
 * SEARCH_OFFSET_BY_TIMESTAMP (29).
 *
 * @example
 * ```ts
 * const header: SearchOffsetRequestHeader = { topic: 'T', queueId: 0, timestamp: Date.now() - 60_000 };
 * ```
 */
export interface SearchOffsetRequestHeader extends BrokerNameHeader {
  topic: string;
  queueId: number;
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** `LOWER` (default) or `UPPER`. */
  boundaryType?: 'LOWER' | 'UPPER' | undefined;
}

/**
 * QUERY_CONSUMER_OFFSET (14).
 *
 * @example
 * ```ts
 * const header: QueryConsumerOffsetRequestHeader = { consumerGroup: 'G', topic: 'T', queueId: 0, setZeroIfNotFound: false };
 * ```
 */
export interface QueryConsumerOffsetRequestHeader extends BrokerNameHeader {
  consumerGroup: string;
  topic: string;
  queueId: number;
  /** Absent or true: the broker may answer 0 for young queues instead of QUERY_NOT_FOUND. */
  setZeroIfNotFound?: boolean | undefined;
}

/**
 * UPDATE_CONSUMER_OFFSET (15).
 *
 * @example
 * ```ts
 * const header: UpdateConsumerOffsetRequestHeader = { consumerGroup: 'G', topic: 'T', queueId: 0, commitOffset: 42 };
 * ```
 */
export interface UpdateConsumerOffsetRequestHeader extends BrokerNameHeader {
  consumerGroup: string;
  topic: string;
  queueId: number;
  commitOffset: number;
}

/**
 * SEND_MESSAGE (10) header in its long-name (V1) shape; {@link toSendMessageV2ExtFields} renames it.
 *
 * @example
 * ```ts
 * const header: SendMessageRequestHeader = { producerGroup: 'P', topic: 'T', defaultTopic: 'TBW102',
 *   defaultTopicQueueNums: 4, queueId: 0, sysFlag: 0, bornTimestamp: Date.now(), flag: 0 };
 * ```
 */
export interface SendMessageRequestHeader {
  producerGroup: string;
  topic: string;
  /** Auto-create template topic, `TBW102`. */
  defaultTopic: string;
  defaultTopicQueueNums: number;
  /** Target queue; < 0 lets the broker pick. */
  queueId: number;
  /** MessageSysFlag bits. */
  sysFlag: number;
  bornTimestamp: number;
  /** User int flag. */
  flag: number;
  /** Encoded properties string. */
  properties?: string | undefined;
  reconsumeTimes?: number | undefined;
  unitMode?: boolean | undefined;
  maxReconsumeTimes?: number | undefined;
  /** True for SEND_BATCH_MESSAGE: the broker routes on this flag. */
  batch?: boolean | undefined;
  /** Broker name. */
  bname?: string | undefined;
}

/**
 * V1 field name -> SEND_MESSAGE_V2 one-letter alias (`SendMessageRequestHeaderV2`).
 *
 * @example
 * ```ts
 * SEND_MESSAGE_V2_ALIASES.topic; // 'b'
 * ```
 */
export const SEND_MESSAGE_V2_ALIASES = {
  producerGroup: 'a',
  topic: 'b',
  defaultTopic: 'c',
  defaultTopicQueueNums: 'd',
  queueId: 'e',
  sysFlag: 'f',
  bornTimestamp: 'g',
  flag: 'h',
  properties: 'i',
  reconsumeTimes: 'j',
  unitMode: 'k',
  maxReconsumeTimes: 'l',
  batch: 'm',
  bname: 'n',
} as const satisfies Record<keyof SendMessageRequestHeader, string>;

/**
 * The extFields of SEND_MESSAGE_V2 (310) / SEND_BATCH_MESSAGE (320): the V1 header under its short names.
 *
 * @example
 * ```ts
 * toSendMessageV2ExtFields({ producerGroup: 'P', topic: 'T', defaultTopic: 'TBW102', defaultTopicQueueNums: 4,
 *   queueId: 0, sysFlag: 0, bornTimestamp: Date.now(), flag: 0 });
 * // => { a: 'P', b: 'T', c: 'TBW102', d: '4', e: '0', f: '0', g: '17...', h: '0' }
 * ```
 */
export function toSendMessageV2ExtFields(header: SendMessageRequestHeader): Record<string, string> {
  const v1 = toExtFields(header);
  const out: Record<string, string> = {};
  for (const [name, alias] of Object.entries(SEND_MESSAGE_V2_ALIASES)) {
    const value = v1[name];
    if (value !== undefined) out[alias] = value;
  }
  return out;
}

/**
 * UPDATE_AND_CREATE_TOPIC (17), admin (`CreateTopicRequestHeader`).
 *
 * @example
 * ```ts
 * const header: CreateTopicRequestHeader = { topic: 'T', defaultTopic: 'TBW102', readQueueNums: 4,
 *   writeQueueNums: 4, perm: 6, topicFilterType: 'SINGLE_TAG', order: false };
 * ```
 */
export interface CreateTopicRequestHeader {
  topic: string;
  /** Template topic, `TBW102`. */
  defaultTopic: string;
  readQueueNums: number;
  writeQueueNums: number;
  /** PermName bits; 6 = read + write. */
  perm: number;
  /** `SINGLE_TAG` or `MULTI_TAG`. */
  topicFilterType: 'SINGLE_TAG' | 'MULTI_TAG';
  topicSysFlag?: number | undefined;
  order: boolean;
  /** Attribute modifications, e.g. `+message.type=NORMAL`. */
  attributes?: string | undefined;
  force?: boolean | undefined;
}

/**
 * NOTIFY_CONSUMER_IDS_CHANGED (40), broker -> client, oneway.
 *
 * @example
 * ```ts
 * const group = requireStringField(request.extFields, 'consumerGroup', 'NOTIFY_CONSUMER_IDS_CHANGED');
 * ```
 */
export interface NotifyConsumerIdsChangedRequestHeader {
  consumerGroup: string;
}

/**
 * GET_CONSUMER_RUNNING_INFO (307), broker -> client (and admin -> broker, which forwards it).
 *
 * @example
 * ```ts
 * await admin.getConsumerRunningInfo(brokerAddr, { consumerGroup: 'G', clientId } satisfies GetConsumerRunningInfoRequestHeader);
 * ```
 */
export interface GetConsumerRunningInfoRequestHeader {
  consumerGroup: string;
  clientId: string;
  jstackEnable?: boolean | undefined;
}

/**
 * Reads a required string extField, throwing {@link ProtocolError} when it is absent.
 *
 * @example
 * ```ts
 * const group = requireStringField(request.extFields, 'consumerGroup', 'NOTIFY_CONSUMER_IDS_CHANGED');
 * ```
 */
export function requireStringField(fields: Record<string, string>, name: string, context: string): string {
  const value = fields[name];
  if (value === undefined) throw new ProtocolError(`${context} header has no ${name}`);
  return value;
}

/**
 * Reads a required integer extField (a Java int or long) as a safe JS number.
 *
 * @example
 * ```ts
 * const offset = requireIntegerField(response.extFields, 'offset', 'GET_MAX_OFFSET response');
 * ```
 */
export function requireIntegerField(fields: Record<string, string>, name: string, context: string): number {
  const value = fields[name];
  if (value === undefined) throw new ProtocolError(`${context} header has no ${name}`);
  return parseIntegerField(value, name, context);
}

/**
 * Reads an optional integer extField; `undefined` when absent.
 *
 * @example
 * ```ts
 * const delta = optionalIntegerField(response.extFields, 'offsetDelta', 'PULL_MESSAGE response');
 * ```
 */
export function optionalIntegerField(
  fields: Record<string, string>,
  name: string,
  context: string,
): number | undefined {
  const value = fields[name];
  return value === undefined ? undefined : parseIntegerField(value, name, context);
}

function parseIntegerField(value: string, name: string, context: string): number {
  if (!/^-?\d+$/.test(value)) {
    throw new ProtocolError(`${context} header ${name}=${JSON.stringify(value)} is not an integer`);
  }
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) {
    throw new ProtocolError(`${context} header ${name}=${value} is outside the safe integer range`);
  }
  return parsed;
}

/**
 * Parsed `PullMessageResponseHeader`.
 *
 * @example
 * ```ts
 * const { nextBeginOffset }: PullMessageResponseHeader = parsePullMessageResponseHeader(response.extFields);
 * ```
 */
export interface PullMessageResponseHeader {
  suggestWhichBrokerId: number;
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
  /** Static (logical-queue) topics only: add to every message's queue offset. */
  offsetDelta?: number | undefined;
  topicSysFlag?: number | undefined;
  groupSysFlag?: number | undefined;
  forbiddenType?: number | undefined;
}

/**
 * Parses a PULL_MESSAGE response header.
 *
 * @example
 * ```ts
 * const { nextBeginOffset } = parsePullMessageResponseHeader(response.extFields);
 * ```
 */
export function parsePullMessageResponseHeader(fields: Record<string, string>): PullMessageResponseHeader {
  const context = 'PULL_MESSAGE response';
  const header: PullMessageResponseHeader = {
    suggestWhichBrokerId: requireIntegerField(fields, 'suggestWhichBrokerId', context),
    nextBeginOffset: requireIntegerField(fields, 'nextBeginOffset', context),
    minOffset: requireIntegerField(fields, 'minOffset', context),
    maxOffset: requireIntegerField(fields, 'maxOffset', context),
  };
  const offsetDelta = optionalIntegerField(fields, 'offsetDelta', context);
  if (offsetDelta !== undefined) header.offsetDelta = offsetDelta;
  const topicSysFlag = optionalIntegerField(fields, 'topicSysFlag', context);
  if (topicSysFlag !== undefined) header.topicSysFlag = topicSysFlag;
  const groupSysFlag = optionalIntegerField(fields, 'groupSysFlag', context);
  if (groupSysFlag !== undefined) header.groupSysFlag = groupSysFlag;
  const forbiddenType = optionalIntegerField(fields, 'forbiddenType', context);
  if (forbiddenType !== undefined) header.forbiddenType = forbiddenType;
  return header;
}

/**
 * Parsed `SendMessageResponseHeader`.
 *
 * @example
 * ```ts
 * const { msgId, queueOffset }: SendMessageResponseHeader = parseSendMessageResponseHeader(response.extFields);
 * ```
 */
export interface SendMessageResponseHeader {
  /** The broker's offset message id (store host + physical offset). */
  msgId: string;
  queueId: number;
  queueOffset: number;
  transactionId?: string | undefined;
  batchUniqId?: string | undefined;
  /** `MSG_REGION` extField. */
  regionId?: string | undefined;
  /** `TRACE_ON` extField. */
  traceOn?: boolean | undefined;
}

/**
 * Parses a SEND_MESSAGE(_V2) / SEND_BATCH_MESSAGE response header.
 *
 * @example
 * ```ts
 * const { msgId, queueOffset } = parseSendMessageResponseHeader(response.extFields);
 * ```
 */
export function parseSendMessageResponseHeader(fields: Record<string, string>): SendMessageResponseHeader {
  const context = 'SEND_MESSAGE response';
  const header: SendMessageResponseHeader = {
    msgId: requireStringField(fields, 'msgId', context),
    queueId: requireIntegerField(fields, 'queueId', context),
    queueOffset: requireIntegerField(fields, 'queueOffset', context),
  };
  if (fields.transactionId !== undefined) header.transactionId = fields.transactionId;
  if (fields.batchUniqId !== undefined) header.batchUniqId = fields.batchUniqId;
  if (fields.MSG_REGION !== undefined) header.regionId = fields.MSG_REGION;
  if (fields.TRACE_ON !== undefined) header.traceOn = fields.TRACE_ON === 'true';
  return header;
}

/**
 * Parses the `offset` header of GET_MAX_OFFSET, GET_MIN_OFFSET, SEARCH_OFFSET_BY_TIMESTAMP and
 * QUERY_CONSUMER_OFFSET responses.
 *
 * @example
 * ```ts
 * const maxOffset = parseOffsetResponseHeader(response.extFields, 'GET_MAX_OFFSET').offset;
 * ```
 */
export function parseOffsetResponseHeader(
  fields: Record<string, string>,
  requestName = 'offset query',
): { offset: number } {
  return { offset: requireIntegerField(fields, 'offset', `${requestName} response`) };
}
