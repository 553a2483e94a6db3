/**
 * Response codes (`RemotingSysResponseCode.java`, `ResponseCode.java`) with the decision flags callers
 * branch on. Code never branches on a code's name or remark text: it asks {@link responseCodeInfo}.
 */
export const ResponseCode = {
  SUCCESS: 0,
  SYSTEM_ERROR: 1,
  SYSTEM_BUSY: 2,
  REQUEST_CODE_NOT_SUPPORTED: 3,
  TRANSACTION_FAILED: 4,
  FLUSH_DISK_TIMEOUT: 10,
  SLAVE_NOT_AVAILABLE: 11,
  FLUSH_SLAVE_TIMEOUT: 12,
  MESSAGE_ILLEGAL: 13,
  SERVICE_NOT_AVAILABLE: 14,
  VERSION_NOT_SUPPORTED: 15,
  NO_PERMISSION: 16,
  TOPIC_NOT_EXIST: 17,
  TOPIC_EXIST_ALREADY: 18,
  PULL_NOT_FOUND: 19,
  PULL_RETRY_IMMEDIATELY: 20,
  PULL_OFFSET_MOVED: 21,
  QUERY_NOT_FOUND: 22,
  SUBSCRIPTION_PARSE_FAILED: 23,
  SUBSCRIPTION_NOT_EXIST: 24,
  SUBSCRIPTION_NOT_LATEST: 25,
  SUBSCRIPTION_GROUP_NOT_EXIST: 26,
  FILTER_DATA_NOT_EXIST: 27,
  FILTER_DATA_NOT_LATEST: 28,
  INVALID_PARAMETER: 29,
  CONSUMER_NOT_ONLINE: 206,
  CONSUME_MSG_TIMEOUT: 207,
  /** ACK / CHANGE_MESSAGE_INVISIBLETIME: the offset is outside the queue (the message is gone). */
  NO_MESSAGE: 208,
  /** POP: the broker holds too many long-polling requests. */
  POLLING_FULL: 209,
  /** POP: the long poll ended without a message. */
  POLLING_TIMEOUT: 210,
  FLOW_CONTROL: 215,
  NOT_LEADER_FOR_QUEUE: 501,
  GO_AWAY: 1500,
} as const;
export type ResponseCode = (typeof ResponseCode)[keyof typeof ResponseCode];

/** What a response code means for the caller. */
export interface ResponseCodeInfo {
  name: string;
  /** The same request may succeed later without any change on our side. */
  retriable: boolean;
  /** Our route or broker address may be out of date: refresh it before retrying. */
  staleRoute: boolean;
  /** Our group membership or subscription is not (yet) known to the broker: heartbeat / rebalance. */
  needsRebalance: boolean;
  /**
   * A refusal that only a change of credentials or permissions cures (see consumer/refusal-watch.ts for
   * why one such answer alone does not stop a consumer).
   */
  permanent: boolean;
}

const flags: Partial<Record<keyof typeof ResponseCode, Partial<ResponseCodeInfo>>> = {
  // Wrong or unknown ACL credentials, an unsigned request to an ACL broker, a denied group or topic; also
  // a broker or topic an operator made unreadable or unwritable.
  NO_PERMISSION: { permanent: true },
  // The broker cannot compile the subscription's filter: the same filter fails the same way.
  SUBSCRIPTION_PARSE_FAILED: { permanent: true },
  SYSTEM_ERROR: { retriable: true },
  SYSTEM_BUSY: { retriable: true },
  FLUSH_DISK_TIMEOUT: { retriable: true },
  SLAVE_NOT_AVAILABLE: { retriable: true },
  FLUSH_SLAVE_TIMEOUT: { retriable: true },
  SERVICE_NOT_AVAILABLE: { retriable: true, staleRoute: true },
  TOPIC_NOT_EXIST: { retriable: true, staleRoute: true },
  PULL_RETRY_IMMEDIATELY: { retriable: true },
  SUBSCRIPTION_NOT_EXIST: { retriable: true, needsRebalance: true },
  SUBSCRIPTION_NOT_LATEST: { retriable: true, needsRebalance: true },
  SUBSCRIPTION_GROUP_NOT_EXIST: { retriable: true, needsRebalance: true },
  FILTER_DATA_NOT_EXIST: { retriable: true, needsRebalance: true },
  FILTER_DATA_NOT_LATEST: { retriable: true, needsRebalance: true },
  CONSUMER_NOT_ONLINE: { retriable: true, needsRebalance: true },
  CONSUME_MSG_TIMEOUT: { retriable: true },
  FLOW_CONTROL: { retriable: true },
  POLLING_FULL: { retriable: true },
  NOT_LEADER_FOR_QUEUE: { retriable: true, staleRoute: true },
  GO_AWAY: { retriable: true, staleRoute: true },
};

const table = new Map<number, ResponseCodeInfo>(
  (Object.entries(ResponseCode) as [keyof typeof ResponseCode, number][]).map(([name, code]) => [
    code,
    { name, retriable: false, staleRoute: false, needsRebalance: false, permanent: false, ...flags[name] },
  ]),
);

/**
 * Flags for a response code. Unknown codes are not retriable.
 */
export function responseCodeInfo(code: number): ResponseCodeInfo {
  return (
    table.get(code) ?? {
      name: `CODE_${code}`,
      retriable: false,
      staleRoute: false,
      needsRebalance: false,
      permanent: false,
    }
  );
}
