/**
 * JSON request/response bodies: HeartbeatData, CheckClientRequestBody, lock/unlock bodies, the
 * consumer id list, ConsumerRunningInfo and SubscriptionGroupConfig. Encoders write the Java (fastjson)
 * field names; parsers check shapes and throw {@link ProtocolError}.
 */
import { ProtocolError } from './errors.js';
import type { MessageQueue } from './message-queue.js';

/**
 * One subscription as the broker expects it in a heartbeat (`SubscriptionData`).
 */
export interface HeartbeatSubscription {
  topic: string;
  /** `*` or `TagA || TagB` or an SQL92 expression. */
  subString: string;
  tagsSet: readonly string[];
  /** Java `String.hashCode()` of each tag. */
  codeSet: readonly number[];
  subVersion: number;
  /** `TAG` or `SQL92`. */
  expressionType: string;
  classFilterMode?: boolean | undefined;
}

/**
 * One consumer group in a heartbeat (`ConsumerData`).
 */
export interface ConsumerData {
  groupName: string;
  consumeType: 'CONSUME_ACTIVELY' | 'CONSUME_PASSIVELY' | 'CONSUME_POP';
  messageModel: 'CLUSTERING' | 'BROADCASTING';
  consumeFromWhere: string;
  subscriptionDataSet: readonly HeartbeatSubscription[];
  unitMode?: boolean | undefined;
}

/**
 * One producer group in a heartbeat (`ProducerData`).
 */
export interface ProducerData {
  groupName: string;
}

/**
 * HEART_BEAT (34) body (`HeartbeatData`).
 */
export interface HeartbeatData {
  clientID: string;
  consumerDataSet: readonly ConsumerData[];
  producerDataSet: readonly ProducerData[];
  /** 0 = classic heartbeat. */
  heartbeatFingerprint?: number | undefined;
  withoutSub?: boolean | undefined;
}

/**
 * Encodes a HEART_BEAT body with the exact Java field names and defaults.
 */
export function encodeHeartbeatData(data: HeartbeatData): Buffer {
  const json = {
    clientID: data.clientID,
    consumerDataSet: data.consumerDataSet.map((consumer) => ({
      consumeFromWhere: consumer.consumeFromWhere,
      consumeType: consumer.consumeType,
      groupName: consumer.groupName,
      messageModel: consumer.messageModel,
      subscriptionDataSet: consumer.subscriptionDataSet.map(subscriptionJson),
      unitMode: consumer.unitMode ?? false,
    })),
    heartbeatFingerprint: data.heartbeatFingerprint ?? 0,
    producerDataSet: data.producerDataSet.map((producer) => ({ groupName: producer.groupName })),
    withoutSub: data.withoutSub ?? false,
  };
  return Buffer.from(JSON.stringify(json), 'utf8');
}

/**
 * CHECK_CLIENT_CONFIG (46) body (`CheckClientRequestBody`): the broker compiles the subscription's
 * expression when it is not a TAG one.
 */
export interface CheckClientRequestBody {
  clientId: string;
  group: string;
  subscriptionData: HeartbeatSubscription;
  namespace?: string | undefined;
}

/**
 * Encodes a CHECK_CLIENT_CONFIG body with the Java field names.
 */
export function encodeCheckClientRequestBody(body: CheckClientRequestBody): Buffer {
  return Buffer.from(
    JSON.stringify({
      clientId: body.clientId,
      group: body.group,
      ...(body.namespace === undefined ? {} : { namespace: body.namespace }),
      subscriptionData: subscriptionJson(body.subscriptionData),
    }),
    'utf8',
  );
}

/**
 * LOCK_BATCH_MQ (41) / UNLOCK_BATCH_MQ (42) body.
 */
export interface LockBatchRequestBody {
  consumerGroup: string;
  clientId: string;
  onlyThisBroker?: boolean | undefined;
  mqSet: readonly MessageQueue[];
}

/**
 * Encodes a LOCK_BATCH_MQ or UNLOCK_BATCH_MQ body (both have the same shape).
 */
export function encodeLockBatchRequestBody(body: LockBatchRequestBody): Buffer {
  return Buffer.from(
    JSON.stringify({
      clientId: body.clientId,
      consumerGroup: body.consumerGroup,
      mqSet: body.mqSet.map(queueJson),
      onlyThisBroker: body.onlyThisBroker ?? false,
    }),
    'utf8',
  );
}

/**
 * Parses a LOCK_BATCH_MQ response body (`{"lockOKMQSet":[...]}`) into the queues actually locked.
 * An absent body means nothing was locked.
 */
export function parseLockBatchResponseBody(body: Buffer | undefined): MessageQueue[] {
  if (body === undefined || body.length === 0) return [];
  const json = parseJsonObject(body, 'LOCK_BATCH_MQ response body');
  const set = json.lockOKMQSet;
  if (set === undefined || set === null) return [];
  if (!Array.isArray(set)) throw new ProtocolError('LOCK_BATCH_MQ response lockOKMQSet is not an array');
  return set.map((entry, index) => parseQueue(entry, `LOCK_BATCH_MQ response lockOKMQSet[${index}]`));
}

/**
 * Parses a GET_CONSUMER_LIST_BY_GROUP response body (`{"consumerIdList":[...]}`).
 */
export function parseConsumerListBody(body: Buffer | undefined): string[] {
  if (body === undefined || body.length === 0) return [];
  const json = parseJsonObject(body, 'GET_CONSUMER_LIST_BY_GROUP response body');
  const list = json.consumerIdList;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list) || !list.every((id): id is string => typeof id === 'string')) {
    throw new ProtocolError('GET_CONSUMER_LIST_BY_GROUP response consumerIdList is not a list of strings');
  }
  return list;
}

/**
 * Per-queue state reported in ConsumerRunningInfo (`ProcessQueueInfo` field names).
 */
export type ProcessQueueInfo = Record<string, number | boolean>;

/**
 * Body of our answer to GET_CONSUMER_RUNNING_INFO (307) (`ConsumerRunningInfo`).
 */
export interface ConsumerRunningInfo {
  /** Java `Properties`: PROP_CONSUME_TYPE, PROP_CLIENT_VERSION, PROP_CONSUMER_START_TIMESTAMP, ... */
  properties: Record<string, string>;
  subscriptionSet: readonly HeartbeatSubscription[];
  mqTable: readonly { queue: MessageQueue; info: ProcessQueueInfo }[];
  /** Per-topic consume statistics (`ConsumeStatus` field names). */
  statusTable?: Record<string, Record<string, number>> | undefined;
  userConsumerInfo?: Record<string, string> | undefined;
  jstack?: string | undefined;
}

/**
 * Encodes ConsumerRunningInfo the way fastjson writes it: `mqTable` is keyed by MessageQueue **objects**
 * (`{{"brokerName":..,"queueId":..,"topic":..}:{...}}`), which is what `mqadmin consumerStatus` parses.
 * Not standard JSON; parse it back with {@link parseConsumerRunningInfo}.
 */
export function encodeConsumerRunningInfo(info: ConsumerRunningInfo): Buffer {
  const mqEntries = info.mqTable.map(
    ({ queue, info: queueInfo }) => `${JSON.stringify(queueJson(queue))}:${JSON.stringify(queueInfo)}`,
  );
  const parts = [
    `"jstack":${JSON.stringify(info.jstack ?? '')}`,
    `"mqPopTable":{}`,
    `"mqTable":{${mqEntries.join(',')}}`,
    `"properties":${JSON.stringify(info.properties)}`,
    `"statusTable":${JSON.stringify(info.statusTable ?? {})}`,
    `"subscriptionSet":${JSON.stringify(info.subscriptionSet.map(subscriptionJson))}`,
    `"userConsumerInfo":${JSON.stringify(info.userConsumerInfo ?? {})}`,
  ];
  return Buffer.from(`{${parts.join(',')}}`, 'utf8');
}

/**
 * Parses a ConsumerRunningInfo body (ours or Java's): `properties`, `subscriptionSet`, the queues of
 * `mqTable` with their info objects and `userConsumerInfo` (our pollers say what they are there). Object
 * keys of `mqTable` are read with a small scanner.
 */
export function parseConsumerRunningInfo(body: Buffer | undefined): {
  properties: Record<string, string>;
  subscriptionSet: unknown[];
  mqTable: { queue: MessageQueue; info: unknown }[];
  userConsumerInfo: Record<string, string>;
} {
  if (body === undefined || body.length === 0) throw new ProtocolError('ConsumerRunningInfo body is empty');
  const text = body.toString('utf8');
  const mqTableText = extractObjectMember(text, 'mqTable');
  const rest = mqTableText === undefined ? text : text.replace(mqTableText.raw, '{}');
  const json = parseJsonObject(Buffer.from(rest, 'utf8'), 'ConsumerRunningInfo body');
  const properties: Record<string, string> = {};
  if (typeof json.properties === 'object' && json.properties !== null) {
    for (const [key, value] of Object.entries(json.properties)) properties[key] = String(value);
  }
  const subscriptionSet = Array.isArray(json.subscriptionSet) ? json.subscriptionSet : [];
  const userConsumerInfo: Record<string, string> = {};
  if (typeof json.userConsumerInfo === 'object' && json.userConsumerInfo !== null) {
    for (const [key, value] of Object.entries(json.userConsumerInfo)) userConsumerInfo[key] = String(value);
  }
  const mqTable: { queue: MessageQueue; info: unknown }[] = [];
  if (mqTableText !== undefined) {
    // The object-keyed map becomes a standard array of [key, value] pairs once `{k}:{v}` is rewritten.
    const inner = mqTableText.raw.slice(1, -1).trim();
    if (inner.length > 0) {
      let pairs: unknown;
      try {
        pairs = JSON.parse(`[${inner.replace(/\}\s*:\s*\{/g, '},{')}]`);
      } catch (cause) {
        throw new ProtocolError('ConsumerRunningInfo mqTable is not object-keyed JSON', { cause });
      }
      if (!Array.isArray(pairs) || pairs.length % 2 !== 0) {
        throw new ProtocolError('ConsumerRunningInfo mqTable has an odd number of keys and values');
      }
      for (let i = 0; i < pairs.length; i += 2) {
        mqTable.push({
          queue: parseQueue(pairs[i], `ConsumerRunningInfo mqTable key ${i / 2}`),
          info: pairs[i + 1],
        });
      }
    }
  }
  return { properties, subscriptionSet, mqTable, userConsumerInfo };
}

/**
 * Body of UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200) (`SubscriptionGroupConfig`).
 */
export interface SubscriptionGroupConfig {
  groupName: string;
  consumeEnable?: boolean | undefined;
  consumeFromMinEnable?: boolean | undefined;
  consumeBroadcastEnable?: boolean | undefined;
  consumeMessageOrderly?: boolean | undefined;
  retryQueueNums?: number | undefined;
  retryMaxTimes?: number | undefined;
  brokerId?: number | undefined;
  whichBrokerWhenConsumeSlowly?: number | undefined;
  notifyConsumerIdsChangedEnable?: boolean | undefined;
  groupSysFlag?: number | undefined;
  consumeTimeoutMinute?: number | undefined;
  attributes?: Record<string, string> | undefined;
}

/**
 * Encodes a SubscriptionGroupConfig with the broker's defaults filled in.
 */
export function encodeSubscriptionGroupConfig(config: SubscriptionGroupConfig): Buffer {
  return Buffer.from(
    JSON.stringify({
      attributes: config.attributes ?? {},
      brokerId: config.brokerId ?? 0,
      consumeBroadcastEnable: config.consumeBroadcastEnable ?? true,
      consumeEnable: config.consumeEnable ?? true,
      consumeFromMinEnable: config.consumeFromMinEnable ?? true,
      consumeMessageOrderly: config.consumeMessageOrderly ?? false,
      consumeTimeoutMinute: config.consumeTimeoutMinute ?? 15,
      groupName: config.groupName,
      groupSysFlag: config.groupSysFlag ?? 0,
      notifyConsumerIdsChangedEnable: config.notifyConsumerIdsChangedEnable ?? true,
      retryMaxTimes: config.retryMaxTimes ?? 16,
      retryQueueNums: config.retryQueueNums ?? 1,
      whichBrokerWhenConsumeSlowly: config.whichBrokerWhenConsumeSlowly ?? 1,
    }),
    'utf8',
  );
}

/** A subscription with its fields in fastjson's (alphabetical) order and Java's defaults filled in. */
function subscriptionJson(sub: HeartbeatSubscription): Record<string, unknown> {
  return {
    classFilterMode: sub.classFilterMode ?? false,
    codeSet: [...sub.codeSet],
    expressionType: sub.expressionType,
    subString: sub.subString,
    subVersion: sub.subVersion,
    tagsSet: [...sub.tagsSet],
    topic: sub.topic,
  };
}

function queueJson(queue: MessageQueue): { brokerName: string; queueId: number; topic: string } {
  return { brokerName: queue.brokerName, queueId: queue.queueId, topic: queue.topic };
}

function parseJsonObject(body: Buffer, context: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (cause) {
    throw new ProtocolError(`${context} is not valid JSON`, { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ProtocolError(`${context} is not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

function parseQueue(value: unknown, context: string): MessageQueue {
  if (typeof value !== 'object' || value === null) throw new ProtocolError(`${context} is not an object`);
  const { topic, brokerName, queueId } = value as Record<string, unknown>;
  if (typeof topic !== 'string' || typeof brokerName !== 'string' || !Number.isInteger(queueId)) {
    throw new ProtocolError(`${context} is not a MessageQueue {topic, brokerName, queueId}`);
  }
  return { topic, brokerName, queueId: queueId as number };
}

/** Finds `"name":{...}` at any depth-1 position and returns the raw balanced object text. */
function extractObjectMember(text: string, name: string): { raw: string } | undefined {
  const marker = `"${name}":`;
  const at = text.indexOf(marker);
  if (at < 0) return undefined;
  let i = at + marker.length;
  while (i < text.length && /\s/.test(text.charAt(i))) i++;
  if (text.charAt(i) !== '{') return undefined;
  const start = i;
  let depth = 0;
  let inString = false;
  for (; i < text.length; i++) {
    const ch = text.charAt(i);
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return { raw: text.slice(start, i + 1) };
    }
  }
  throw new ProtocolError(`ConsumerRunningInfo member ${name} is not a balanced object`);
}
