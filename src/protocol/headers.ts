/**
 * Typed request headers ("custom headers", sent as string extFields) of the requests this client sends
 * or answers. Field names are the Java header classes' field names; every value travels as its
 * decimal / `true` / `false` string form ({@link toExtFields}). Received headers are parsed in
 * header-parsers.ts.
 */
import { toExtFields } from './remoting-command.js';

/**
 * Fields every broker RPC header may carry (`RpcRequestHeader`/`TopicQueueRequestHeader`).
 */
export interface BrokerNameHeader {
  /** Broker name (`bname`); 5.x Java always sets it on queue-level requests. */
  bname?: string | undefined;
}

/**
 * GET_ROUTEINFO_BY_TOPIC (105), to a name server.
 */
export interface GetRouteInfoRequestHeader {
  topic: string;
  /** Ask for standard JSON (quoted map keys) even from a name server that would not send it by version. */
  acceptStandardJsonOnly?: boolean | undefined;
}

/**
 * UNREGISTER_CLIENT (35). Note the capital `ID` in `clientID`.
 */
export interface UnregisterClientRequestHeader {
  clientID: string;
  producerGroup?: string | undefined;
  consumerGroup?: string | undefined;
}

/**
 * GET_CONSUMER_LIST_BY_GROUP (38).
 */
export interface GetConsumerListByGroupRequestHeader {
  consumerGroup: string;
}

/**
 * PULL_MESSAGE (11).
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
 */
export interface GetMaxOffsetRequestHeader extends BrokerNameHeader {
  topic: string;
  queueId: number;
  /** Java always sends `true`; ignored by 5.3.3. */
  committed?: boolean | undefined;
}

/**
 * GET_MIN_OFFSET (31).
 */
export interface GetMinOffsetRequestHeader extends BrokerNameHeader {
  topic: string;
  queueId: number;
}

/**
 * SEARCH_OFFSET_BY_TIMESTAMP (29).
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
 */
export interface UpdateConsumerOffsetRequestHeader extends BrokerNameHeader {
  consumerGroup: string;
  topic: string;
  queueId: number;
  commitOffset: number;
}

/**
 * SEND_MESSAGE (10) header in its long-name (V1) shape; {@link toSendMessageV2ExtFields} renames it.
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
 */
export interface NotifyConsumerIdsChangedRequestHeader {
  consumerGroup: string;
}

/**
 * GET_CONSUMER_CONNECTION_LIST (203), admin -> broker.
 */
export interface GetConsumerConnectionListRequestHeader {
  consumerGroup: string;
}

/**
 * GET_CONSUMER_RUNNING_INFO (307), broker -> client (and admin -> broker, which forwards it).
 */
export interface GetConsumerRunningInfoRequestHeader {
  consumerGroup: string;
  clientId: string;
  jstackEnable?: boolean | undefined;
}
