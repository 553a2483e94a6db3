/**
 * Request codes (`RequestCode.java`) used by this client, in both directions.
 */
export const RequestCode = {
  SEND_MESSAGE: 10,
  PULL_MESSAGE: 11,
  QUERY_CONSUMER_OFFSET: 14,
  UPDATE_CONSUMER_OFFSET: 15,
  /** Admin: create or update a topic on one broker. */
  UPDATE_AND_CREATE_TOPIC: 17,
  /** Admin (the local cluster only): every topic config of a broker (what a 4.x slave copies from its master). */
  GET_ALL_TOPIC_CONFIG: 21,
  /** Admin (the local broker only): change a broker's config; `brokerPermission` makes it register at once. */
  UPDATE_BROKER_CONFIG: 25,
  SEARCH_OFFSET_BY_TIMESTAMP: 29,
  GET_MAX_OFFSET: 30,
  GET_MIN_OFFSET: 31,
  HEART_BEAT: 34,
  UNREGISTER_CLIENT: 35,
  CONSUMER_SEND_MSG_BACK: 36,
  GET_CONSUMER_LIST_BY_GROUP: 38,
  CHECK_TRANSACTION_STATE: 39,
  NOTIFY_CONSUMER_IDS_CHANGED: 40,
  LOCK_BATCH_MQ: 41,
  UNLOCK_BATCH_MQ: 42,
  /** Every group's committed offsets of one broker (what a 4.x slave syncs); read-only. */
  GET_ALL_CONSUMER_OFFSET: 43,
  CHECK_CLIENT_CONFIG: 46,
  GET_ROUTEINFO_BY_TOPIC: 105,
  /** Admin: create or update a subscription group on one broker. */
  UPDATE_AND_CREATE_SUBSCRIPTIONGROUP: 200,
  /** Admin (the local cluster only): every subscription group config of a broker. */
  GET_ALL_SUBSCRIPTIONGROUP_CONFIG: 201,
  /** Admin read: the connected clients of a consumer group at one broker (`mqadmin consumerConnection`). */
  GET_CONSUMER_CONNECTION_LIST: 203,
  RESET_CONSUMER_CLIENT_OFFSET: 220,
  GET_CONSUMER_STATUS_FROM_CLIENT: 221,
  GET_CONSUMER_RUNNING_INFO: 307,
  CONSUME_MESSAGE_DIRECTLY: 309,
  SEND_MESSAGE_V2: 310,
  SEND_BATCH_MESSAGE: 320,
  LITE_PULL_MESSAGE: 361,
  /** POP consumption (5.x): take messages from a topic's queues, invisible to others for a while. */
  POP_MESSAGE: 200050,
  /** POP consumption: a popped message is consumed. */
  ACK_MESSAGE: 200051,
  /** POP consumption: make a popped message visible again later (a retry). */
  CHANGE_MESSAGE_INVISIBLETIME: 200053,
  /** POP consumption: several acks in one body (not sent by this client). */
  BATCH_ACK_MESSAGE: 200151,
} as const;
export type RequestCode = (typeof RequestCode)[keyof typeof RequestCode];

const names = new Map<number, string>(Object.entries(RequestCode).map(([name, code]) => [code, name]));

/** The name of a request code, or `CODE_<n>` for codes this client does not know. */
export function requestCodeName(code: number): string {
  return names.get(code) ?? `CODE_${code}`;
}
