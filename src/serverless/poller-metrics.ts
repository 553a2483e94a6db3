/**
 * The metrics the pollers publish as CloudWatch Embedded Metric Format lines on stdout (run config
 * `metrics: { emf: {} }`, names from {@link EMF_METRICS}), as the alarms and the dashboard read them:
 * namespace and dimension of the lag metric contract ({@link LAG_METRIC}), one line per consumer group
 * per task per minute. CloudWatch Logs extracts them from the task's awslogs stream, so the task role
 * needs no CloudWatch permission.
 */
import { EMF_METRICS } from '../metrics/emf-document.js';
import { LAG_METRIC } from '../metrics/lag-metric.js';

/**
 * Names and units of the pollers' metrics (namespace `RocketMQLambda`, dimension `ConsumerGroup`).
 *
 * @example
 * ```ts
 * const metric = { Namespace: POLLER_METRICS.namespace, MetricName: POLLER_METRICS.deadLettered,
 *   Dimensions: [{ Name: POLLER_METRICS.dimension, Value: 'orders-fn' }] };
 * ```
 */
export const POLLER_METRICS = {
  namespace: LAG_METRIC.namespace,
  dimension: LAG_METRIC.dimension,
  /** Count: the lag of the queues the task holds (the scaling policy reads its Average). */
  consumerLag: EMF_METRICS.consumerLag.name,
  /** Seconds: the age of the oldest unconsumed message, the largest over the task's queues. */
  oldestMessageAge: EMF_METRICS.oldestMessageAge.name,
  /** Count per minute: Lambda invokes. */
  invocations: EMF_METRICS.invocations.name,
  /** Count per minute: invokes that failed (function error, timeout, refusal). */
  invokeErrors: EMF_METRICS.invokeErrors.name,
  /** Count per minute: invokes Lambda throttled. */
  throttles: EMF_METRICS.throttles.name,
  /** Count per minute: messages sent back to the broker for a later retry. */
  sentBack: EMF_METRICS.sentBack.name,
  /** Count per minute: messages that went to the dead-letter queue (`%DLQ%<group>`). */
  deadLettered: EMF_METRICS.deadLettered.name,
  /** Count per minute: messages the event's `filters` dropped before the invoke. */
  filteredOut: EMF_METRICS.filteredOut.name,
  /** Count: 1 when the task's consumer of the group is unhealthy, else 0; in every line a task writes. */
  unhealthy: EMF_METRICS.unhealthy.name,
  /** Count: 1 when a mapping of the group on the task cannot consume (topic or group missing, ...), else 0. */
  cannotConsume: EMF_METRICS.cannotConsume.name,
} as const;
