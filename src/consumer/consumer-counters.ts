/**
 * The counters one consumer runtime keeps (for status, running info and, later, metrics). Plain
 * mutable numbers: collaborators increment them, {@link snapshotCounters} copies them.
 */

/** Counter names and meanings. */
export interface ConsumerCounters {
  /** PULL_MESSAGE requests answered (any status). */
  pullRequests: number;
  /** Messages pulled and accepted (after the client-side tag re-check). */
  pulledMessages: number;
  /** Messages dropped by the client-side tag re-check. */
  filteredMessages: number;
  /** Pulls that failed (network, broker error). */
  pullErrors: number;
  /** Pull bodies with a record that could not be decoded. */
  decodeErrors: number;
  /** Undecodable records handed to the DLQ by their commit-log offset. */
  undecodableDeadLettered: number;
  /**
   * Of `deadLettered`, messages whose compressed body would inflate past `maxDecompressedBodyBytes`,
   * handed to the DLQ without being inflated.
   */
  tooLargeDeadLettered: number;
  /** Messages too large to inflate that a broadcasting consumer skipped (it keeps no DLQ), told to the listener. */
  tooLargeSkipped: number;
  /** Pulls postponed because a queue held too many messages. */
  flowControlCountPauses: number;
  /** Pulls postponed because a queue held too many body bytes. */
  flowControlBytesPauses: number;
  /** Pulls postponed because a queue's offset span was too wide (concurrent mode). */
  flowControlSpanPauses: number;
  /** Times the broker moved a queue's offset backwards (OFFSET_ILLEGAL/NO_NEW_MSG below ours). */
  offsetMovedBackwards: number;
  /** OFFSET_ILLEGAL answers (any direction). */
  offsetIllegal: number;
  /** Batches handed to the listener. */
  batchesDispatched: number;
  /** Messages the listener reported as succeeded. */
  consumedOk: number;
  /** Messages the listener reported as failed. */
  consumedFailed: number;
  /**
   * Messages the listener dropped by the mapping's filter criteria (`filters`): succeeded without an
   * invoke (an orderly batch's failed tail is consumed, and filtered, again).
   */
  filteredOut: number;
  /** Failed messages sent back to the broker (retry topic / DLQ). */
  sentBack: number;
  /**
   * Of `sentBack`, the messages bound for `%DLQ%<group>`: handed straight to it (a listener's dead-letter
   * decision, an orderly skip) or sent back at the retry limit (the broker moves those to the DLQ).
   * Expired messages (`expiredMessages`) are counted in neither.
   */
  deadLettered: number;
  /** CONSUMER_SEND_MSG_BACK calls that failed (messages then retried locally). */
  sendBackFailures: number;
  /** Messages resubmitted locally after a failed send-back. */
  localRetries: number;
  /** Broadcasting: failed messages logged and dropped. */
  droppedFailures: number;
  /** Messages whose consume exceeded consumeTimeout and were sent back. */
  expiredMessages: number;
  /** Batches whose result was ignored (queue dropped or shutdown abort). */
  discardedResults: number;
  /** Orderly: queue lock requests refused or failed (assignment, re-lock, retry). */
  lockFailures: number;
  /** Orderly `block`: retries of a message that is past maxReconsumeTimes. */
  blockedRetries: number;
}

/**
 * A zeroed counter set.
 */
export function newConsumerCounters(): ConsumerCounters {
  return {
    pullRequests: 0,
    pulledMessages: 0,
    filteredMessages: 0,
    pullErrors: 0,
    decodeErrors: 0,
    undecodableDeadLettered: 0,
    tooLargeDeadLettered: 0,
    tooLargeSkipped: 0,
    flowControlCountPauses: 0,
    flowControlBytesPauses: 0,
    flowControlSpanPauses: 0,
    offsetMovedBackwards: 0,
    offsetIllegal: 0,
    batchesDispatched: 0,
    consumedOk: 0,
    consumedFailed: 0,
    filteredOut: 0,
    sentBack: 0,
    deadLettered: 0,
    sendBackFailures: 0,
    localRetries: 0,
    droppedFailures: 0,
    expiredMessages: 0,
    discardedResults: 0,
    lockFailures: 0,
    blockedRetries: 0,
  };
}

/**
 * A copy of the counters at this moment.
 */
export function snapshotCounters(counters: ConsumerCounters): Readonly<ConsumerCounters> {
  return { ...counters };
}
