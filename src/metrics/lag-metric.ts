/**
 * The lag metric: the contract between the pollers, which publish it ({@link CloudWatchLagPublisher}),
 * and the autoscaling of the poller service (the Serverless plugin's and infra/'s target tracking policy).
 */

/**
 * The metric contract between the pollers and the scaling policy. Every poller task publishes, at least
 * once a minute, for every consumer group it serves: `ConsumerLag` in namespace `RocketMQLambda`, one
 * dimension `ConsumerGroup`, unit `Count`, value = the lag of the queues the task holds (sum over them of
 * the broker's max offset minus the consumed offset; 0 when it holds none). The policy reads the
 * `Average` over a minute: the lag per task.
 *
 * @example
 * ```ts
 * await cloudwatch.send(new PutMetricDataCommand({ Namespace: LAG_METRIC.namespace, MetricData: [{
 *   MetricName: LAG_METRIC.metricName, Unit: 'Count', Value: lag,
 *   Dimensions: [{ Name: LAG_METRIC.dimension, Value: consumerGroup }] }] }));
 * ```
 */
export const LAG_METRIC = {
  namespace: 'RocketMQLambda',
  metricName: 'ConsumerLag',
  dimension: 'ConsumerGroup',
  statistic: 'Average',
  unit: 'Count',
} as const;
