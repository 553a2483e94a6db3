/**
 * Every metric of a poller, described once: its Prometheus name, type, labels and meaning. The registry
 * (poller-metrics.ts) is built from it, the EMF lines (emf-publisher.ts) read the registry by these
 * names, and the README's metrics reference (metrics-reference.ts) is rendered from it, so none of the
 * three can drift from the others.
 */

/** Labels of a mapping's series. */
export const MAPPING_LABELS = ['mapping', 'consumer_group'] as const;
/** Labels of a held queue's series (`topic` may be the group's `%RETRY%` topic; `queue` is `<broker>@<id>`). */
export const QUEUE_LABELS = ['mapping', 'consumer_group', 'topic', 'queue'] as const;

/** Buckets of invoke durations (seconds): from a warm no-op function to Lambda's 15-minute limit. */
export const INVOKE_DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900] as const;
/** Buckets of pull durations (seconds): a pull that finds messages, up to a long poll's full wait. */
export const PULL_DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30,
] as const;

/**
 * How often a poller reads each consumer group's dead-letter depth from the brokers (one route lookup and
 * two offset reads per DLQ queue; the depth changes only when messages fail for good).
 */
export const DEAD_LETTER_DEPTH_INTERVAL_MS = 60_000;

/**
 * How an invoke ended, as the `kind` label of {@link METRICS.invokeOutcomes}: the invoke layer's
 * outcome kinds in snake_case, and `throttle` for every throttled attempt.
 */
export type InvokeOutcomeLabel =
  | 'success'
  | 'function_error'
  | 'timeout'
  | 'throttle'
  | 'network'
  | 'server_error'
  | 'rejected'
  | 'payload_too_large'
  | 'malformed_response'
  | 'aborted'
  | 'invoker_error';

/**
 * Every `kind` label value, in the order the reference lists them.
 */
export const INVOKE_OUTCOME_LABELS: readonly InvokeOutcomeLabel[] = [
  'success',
  'function_error',
  'timeout',
  'throttle',
  'network',
  'server_error',
  'rejected',
  'payload_too_large',
  'malformed_response',
  'aborted',
  'invoker_error',
];

/**
 * Outcome kinds that are not invoke errors: successes, throttles (waited out and tried again) and
 * invokes aborted by a shutdown. Every other kind counts in the EMF `InvokeErrors`.
 */
export const NOT_INVOKE_ERRORS: ReadonlySet<InvokeOutcomeLabel> = new Set(['success', 'throttle', 'aborted']);

/**
 * One metric.
 */
export interface MetricDefinition {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly labels: readonly string[];
  /** One sentence for `# HELP`; the README adds {@link MetricDefinition.notes}. */
  readonly help: string;
  /** What the help line has no room for (where the value comes from, edge cases). */
  readonly notes?: string;
  readonly buckets?: readonly number[];
}

/**
 * The poller's metrics, by key.
 */
export const METRICS = {
  buildInfo: {
    name: 'rocketmq_lambda_build_info',
    type: 'gauge',
    labels: ['version', 'node_version'],
    help: 'Always 1: the rocketmq-lambda version and the Node.js version of the process.',
    notes:
      'Count it by version to see the versions a fleet runs (`count by (version) (rocketmq_lambda_build_info)`).',
  },
  up: {
    name: 'rocketmq_lambda_up',
    type: 'gauge',
    labels: [],
    help: '1 while the poller runs, 0 once it is stopping.',
  },
  healthy: {
    name: 'rocketmq_lambda_healthy',
    type: 'gauge',
    labels: [],
    help: "1 when every mapping's consumer runs and is healthy, else 0 (what /readyz answers).",
    notes:
      'The verdict of the health check (no rebalance, pull or offset write stalled; see docs/operating.md).',
  },
  mappingHealthy: {
    name: 'rocketmq_lambda_mapping_healthy',
    type: 'gauge',
    labels: MAPPING_LABELS,
    help: "1 when the mapping's consumer runs and is healthy, else 0.",
    notes: 'EMF `Unhealthy` is 1 minus it.',
  },
  mappingState: {
    name: 'rocketmq_lambda_mapping_state',
    type: 'gauge',
    labels: [...MAPPING_LABELS, 'state'],
    help: "1 for the state the mapping's consumer is in, 0 for every other state (consuming, waiting, topic_missing, group_missing, subscription_refused, unassigned, starting, stopped, failed).",
    notes:
      'Set at once, before the health verdict turns (`readinessGraceMs` later): `waiting` is a healthy standby (more pollers than queues); `topic_missing`, `group_missing`, `subscription_refused` and `unassigned` are states in which the mapping cannot consume (docs/operating.md, "Readiness"). Alert with `rocketmq_lambda_mapping_state{state=~"topic_missing|group_missing|subscription_refused|unassigned"} == 1`. EMF `CannotConsume` is 1 in any of those four.',
  },
  consumerLag: {
    name: 'rocketmq_lambda_consumer_lag',
    type: 'gauge',
    labels: QUEUE_LABELS,
    help: "Messages of a held queue not handled yet: the broker's max offset minus the consumed offset.",
    notes:
      'Buffered and in-flight messages count. Measured at each scrape (one GET_MAX_OFFSET per held queue); a queue that cannot be measured has no sample (see `lag_unknown_queues`). Their sum per mapping is `lag_share`.',
  },
  lagShare: {
    name: 'rocketmq_lambda_lag_share',
    type: 'gauge',
    labels: MAPPING_LABELS,
    help: "The lag this poller answers for: the sum of its held queues' lag, or for a consumeMode POP mapping the group's backlog divided by the group's registered pollers (rounded up).",
    notes:
      'A POP poller holds no queue: every poller pops every queue, so each reports an equal share of what the group has not popped yet (no `consumer_lag` series per queue). No sample while none of the queues can be measured. EMF `ConsumerLag` is its sum per consumer group, and the scaling policy averages that over the tasks.',
  },
  lagUnknownQueues: {
    name: 'rocketmq_lambda_lag_unknown_queues',
    type: 'gauge',
    labels: MAPPING_LABELS,
    help: 'Held queues whose lag could not be measured (broker not answering, start offset not resolved).',
  },
  oldestMessageAge: {
    name: 'rocketmq_lambda_oldest_message_age_seconds',
    type: 'gauge',
    labels: QUEUE_LABELS,
    help: 'Age of the oldest unconsumed message of a held queue (now minus its broker store time).',
    notes:
      'Taken from the oldest message buffered or in flight; 0 when the lag is 0. When the buffer is empty but the lag is not (the next messages are not pulled yet: just assigned, pulls failing), the age is unknown and the queue has no sample; its lag still shows the backlog. EMF `OldestMessageAge` is the largest per consumer group.',
  },
  bufferedMessages: {
    name: 'rocketmq_lambda_buffered_messages',
    type: 'gauge',
    labels: QUEUE_LABELS,
    help: 'Messages pulled and not finished yet (waiting or in flight) in the ProcessQueue of a held queue.',
  },
  bufferedBytes: {
    name: 'rocketmq_lambda_buffered_bytes',
    type: 'gauge',
    labels: QUEUE_LABELS,
    help: 'Body bytes of those messages.',
  },
  queuesHeld: {
    name: 'rocketmq_lambda_queues_held',
    type: 'gauge',
    labels: MAPPING_LABELS,
    help: 'Queues the mapping holds now (retry queues included).',
  },
  rebalances: {
    name: 'rocketmq_lambda_rebalances_total',
    type: 'counter',
    labels: MAPPING_LABELS,
    help: "Rebalances that changed the mapping's queues.",
  },
  pulls: {
    name: 'rocketmq_lambda_pulls_total',
    type: 'counter',
    labels: [...MAPPING_LABELS, 'result'],
    help: 'PULL_MESSAGE requests, by result (`answered` with any status, or `failed`).',
  },
  pullDuration: {
    name: 'rocketmq_lambda_pull_duration_seconds',
    type: 'histogram',
    labels: MAPPING_LABELS,
    help: 'Time from a pull request to its answer or failure.',
    notes: 'A long poll with nothing new waits up to the broker suspend time (15 s by default).',
    buckets: PULL_DURATION_BUCKETS,
  },
  pulledMessages: {
    name: 'rocketmq_lambda_pulled_messages_total',
    type: 'counter',
    labels: MAPPING_LABELS,
    help: 'Messages pulled and accepted (after the client-side tag check).',
  },
  invocations: {
    name: 'rocketmq_lambda_invocations_total',
    type: 'counter',
    labels: MAPPING_LABELS,
    help: 'Invokes of the function (a batch split by payload size or bisected takes several).',
    notes:
      'Throttled attempts are not invokes: they are counted as `invoke_outcomes_total{kind="throttle"}`. EMF `Invocations`.',
  },
  invokeDuration: {
    name: 'rocketmq_lambda_invoke_duration_seconds',
    type: 'histogram',
    labels: MAPPING_LABELS,
    help: 'Time from an invoke request to its outcome, throttle waits included.',
    buckets: INVOKE_DURATION_BUCKETS,
  },
  invokeOutcomes: {
    name: 'rocketmq_lambda_invoke_outcomes_total',
    type: 'counter',
    labels: [...MAPPING_LABELS, 'kind'],
    help: 'How invokes ended, by kind; `throttle` counts each throttled attempt.',
    notes: `Kinds: ${INVOKE_OUTCOME_LABELS.map((kind) => `\`${kind}\``).join(', ')}. \`success\`: the function answered (messages it reported failed are not an invoke failure); \`invoker_error\`: the function could not be invoked at all (the mapping stops). EMF \`Throttles\` is the \`throttle\` count, \`InvokeErrors\` every kind but \`success\`, \`throttle\` and \`aborted\` (a shutdown).`,
  },
  consumedMessages: {
    name: 'rocketmq_lambda_consumed_messages_total',
    type: 'counter',
    labels: [...MAPPING_LABELS, 'result'],
    help: 'Messages whose consume finished, by result (`success` or `failure`).',
  },
  sentBack: {
    name: 'rocketmq_lambda_messages_sent_back_total',
    type: 'counter',
    labels: MAPPING_LABELS,
    help: 'Failed messages sent back to the broker for a later retry (through `%RETRY%<group>`).',
    notes:
      'Messages bound for the DLQ are counted in `messages_dead_lettered_total` instead. EMF `SentBack`.',
  },
  deadLettered: {
    name: 'rocketmq_lambda_messages_dead_lettered_total',
    type: 'counter',
    labels: MAPPING_LABELS,
    help: 'Messages that went to `%DLQ%<group>`.',
    notes:
      'Handed to it (too old, too large, an orderly skip, undecodable) or sent back at `maxReconsumeTimes` (the broker moves those). EMF `DeadLettered`.',
  },
  filteredOut: {
    name: 'rocketmq_lambda_messages_filtered_out_total',
    type: 'counter',
    labels: MAPPING_LABELS,
    help: "Messages the mapping's filter criteria (`filters`) dropped before the invoke: never sent to the function, consumed (their offsets move).",
    notes:
      'Counted in `consumed_messages_total{result="success"}` too. Messages the broker-side `filter` (tags, SQL92) drops never reach the poller and are not counted. EMF `FilteredOut`.',
  },
  deadLetterDepth: {
    name: 'rocketmq_lambda_dead_letter_depth',
    type: 'gauge',
    labels: ['consumer_group'],
    help: 'Dead letters the brokers store for the consumer group: over every queue of `%DLQ%<group>`, its max offset minus its min offset.',
    notes: `Read from the brokers every ${DEAD_LETTER_DEPTH_INTERVAL_MS / 1000} s per consumer group (0 while the topic does not exist: the group never dead-lettered). It counts what is stored, redriven dead letters included (RocketMQ deletes nothing: it falls only when the brokers expire old messages), so alert on its rise (\`delta(...[1h]) > 0\`) rather than its level. No sample until the first read succeeds; a failed read keeps the last value (and is logged). EMF \`DeadLetterDepth\`.`,
  },
  offsetWrites: {
    name: 'rocketmq_lambda_offset_writes_total',
    type: 'counter',
    labels: [...MAPPING_LABELS, 'operation'],
    help: 'Offset store writes that succeeded, by operation (`persist_all`, `persist`, `claim`, `release`).',
    notes: 'One per call: a periodic `persist_all` writes only the queues whose offset moved.',
  },
  offsetWriteFailures: {
    name: 'rocketmq_lambda_offset_write_failures_total',
    type: 'counter',
    labels: [...MAPPING_LABELS, 'operation'],
    help: 'Offset store writes that failed after their retries, by operation.',
  },
  traceRecords: {
    name: 'rocketmq_lambda_message_trace_records_total',
    type: 'counter',
    labels: [...MAPPING_LABELS, 'result'],
    help: 'Message trace records (`SubBefore`, `SubAfter`) of a mapping with `messageTrace`, by result: `written` to the trace topic, or dropped (`queue_full`, `topic_unavailable`, `send_failed`, `too_large`, `closed`).',
    notes:
      'Two records per consumed message. Dropped records never hold back consumption; see docs/message-trace.md. EMF `TraceRecordsWritten`, `TraceRecordsDropped`.',
  },
} as const satisfies Record<string, MetricDefinition>;
