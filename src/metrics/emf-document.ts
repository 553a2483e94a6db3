/**
 * CloudWatch Embedded Metric Format documents: one JSON object per line whose `_aws` member tells
 * CloudWatch Logs which of its top-level members are metrics (namespace, dimension sets, names and
 * units), so that a log line becomes metric data with no API call and no permission
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html).
 */
import { LAG_METRIC } from './lag-metric.js';
import { DEAD_LETTER_DEPTH_INTERVAL_MS } from './metric-catalog.js';

/** The specification's limit of metrics per directive. */
export const EMF_MAX_METRICS_PER_DIRECTIVE = 100;

/**
 * The EMF metrics of a poller, per consumer group (dimension `ConsumerGroup`): names and units. The
 * deploy templates' scaling policy, alarms and dashboard read them by these names.
 */
export const EMF_METRICS = {
  consumerLag: {
    name: LAG_METRIC.metricName,
    unit: 'Count',
    description:
      "The lag this task answers for (`rocketmq_lambda_lag_share` summed over the group's mappings): its held queues' lag, or for POP its share of the group's backlog (0 when it holds none; left out while none can be measured). The scaling policy reads its Average.",
  },
  oldestMessageAge: {
    name: 'OldestMessageAge',
    unit: 'Seconds',
    description: 'Age of the oldest unconsumed message, the largest over the held queues.',
  },
  invocations: { name: 'Invocations', unit: 'Count', description: 'Invokes since the previous line.' },
  invokeErrors: {
    name: 'InvokeErrors',
    unit: 'Count',
    description:
      'Invokes that failed since the previous line: function error, timeout, network and every other failure but throttles and shutdown aborts.',
  },
  throttles: {
    name: 'Throttles',
    unit: 'Count',
    description: 'Throttled invoke attempts since the previous line.',
  },
  sentBack: {
    name: 'SentBack',
    unit: 'Count',
    description: 'Messages sent back for a later retry since the previous line.',
  },
  deadLettered: {
    name: 'DeadLettered',
    unit: 'Count',
    description: 'Messages that went to `%DLQ%<group>` since the previous line.',
  },
  filteredOut: {
    name: 'FilteredOut',
    unit: 'Count',
    description:
      "Messages the mapping's filter criteria (`filters`) dropped before the invoke since the previous line.",
  },
  traceRecordsWritten: {
    name: 'TraceRecordsWritten',
    unit: 'Count',
    description:
      'Message trace records written to the trace topic since the previous line (only on lines of groups with `messageTrace`, once it has written or dropped one).',
  },
  traceRecordsDropped: {
    name: 'TraceRecordsDropped',
    unit: 'Count',
    description:
      'Message trace records dropped since the previous line: queue full, trace topic missing, send failed (consumption went on).',
  },
  deadLetterDepth: {
    name: 'DeadLetterDepth',
    unit: 'Count',
    description: `Dead letters stored in \`%DLQ%<group>\` (\`rocketmq_lambda_dead_letter_depth\`: read from the brokers every ${DEAD_LETTER_DEPTH_INTERVAL_MS / 1000} s, redriven ones included); left out until the first read succeeds. Every task reports the same value: read its Maximum.`,
  },
  unhealthy: {
    name: 'Unhealthy',
    unit: 'Count',
    description:
      "1 when this task's consumer of the group is unhealthy (the health check's verdict), else 0.",
  },
  cannotConsume: {
    name: 'CannotConsume',
    unit: 'Count',
    description:
      '1 when a mapping of the group on this task cannot consume (`rocketmq_lambda_mapping_state` is topic_missing, group_missing, subscription_refused or unassigned), else 0; a waiting standby is 0. Set at once, before `Unhealthy` turns.',
  },
} as const;

/**
 * One metric value of a document.
 */
export interface EmfValue {
  readonly name: string;
  readonly unit: string;
  readonly value: number;
}

/**
 * The EMF document of one consumer group: one directive, one dimension set `[["ConsumerGroup"]]`, the
 * values as top-level members. Throws when there are more values than a directive may hold.
 */
export function emfDocument(input: {
  readonly namespace: string;
  readonly consumerGroup: string;
  readonly timestampMs: number;
  readonly values: readonly EmfValue[];
}): Record<string, unknown> {
  if (input.values.length > EMF_MAX_METRICS_PER_DIRECTIVE) {
    throw new RangeError(`an EMF directive holds at most ${EMF_MAX_METRICS_PER_DIRECTIVE} metrics`);
  }
  const document: Record<string, unknown> = {
    _aws: {
      Timestamp: Math.round(input.timestampMs),
      CloudWatchMetrics: [
        {
          Namespace: input.namespace,
          Dimensions: [[LAG_METRIC.dimension]],
          Metrics: input.values.map(({ name, unit }) => ({ Name: name, Unit: unit })),
        },
      ],
    },
    [LAG_METRIC.dimension]: input.consumerGroup,
  };
  for (const { name, value } of input.values) document[name] = value;
  return document;
}
