/**
 * Scaling of the poller service on consumer lag: target tracking of the lag per task that the pollers
 * publish. Scaling out spreads a group's queues over more tasks (RocketMQ's rebalance), so the lag each
 * task holds falls; a group can use at most as many tasks as its topic has queues.
 */
import { LAG_METRIC } from '../metrics/lag-metric.js';
import type { CfnIntrinsic, CfnResource, CfnString } from './cfn-intrinsic.js';

/** Seconds between scale-out steps: quick, lag grows fast. */
const SCALE_OUT_COOLDOWN_SECONDS = 60;
/** Seconds between scale-in steps: slow, every scale-in rebalances the queues. */
const SCALE_IN_COOLDOWN_SECONDS = 300;

/**
 * What scaling needs.
 *
 * @example
 * ```ts
 * const options: LagScalingOptions = { clusterName: { Ref: 'RocketMQPollerCluster' }, serviceLogicalId: 'RocketMQPollerService',
 *   minCount: 1, maxCount: 4, targetLagPerTask: 1000, consumerGroups: ['orders-fn'] };
 * ```
 */
export interface LagScalingOptions {
  readonly clusterName: CfnString;
  readonly serviceLogicalId: string;
  readonly minCount: number;
  readonly maxCount: number;
  readonly targetLagPerTask: number;
  /** The consumer groups of the enabled mappings (at least one). */
  readonly consumerGroups: readonly string[];
}

/**
 * The scalable target and the target tracking policy. With several groups the policy tracks the largest
 * per-task lag among them (metric math `MAX`).
 *
 * @example
 * ```ts
 * const { scalableTarget, scalingPolicy } = lagScaling(options, 'RocketMQPollerScalableTarget');
 * ```
 */
export function lagScaling(
  options: LagScalingOptions,
  scalableTargetLogicalId: string,
): { scalableTarget: CfnResource; scalingPolicy: CfnResource } {
  const resourceId: CfnIntrinsic = {
    'Fn::Join': ['/', ['service', options.clusterName, { 'Fn::GetAtt': [options.serviceLogicalId, 'Name'] }]],
  };
  const scalableTarget: CfnResource = {
    Type: 'AWS::ApplicationAutoScaling::ScalableTarget',
    Properties: {
      ServiceNamespace: 'ecs',
      ScalableDimension: 'ecs:service:DesiredCount',
      ResourceId: resourceId,
      MinCapacity: options.minCount,
      MaxCapacity: options.maxCount,
    },
  };
  const scalingPolicy: CfnResource = {
    Type: 'AWS::ApplicationAutoScaling::ScalingPolicy',
    Properties: {
      PolicyName: 'rocketmq-consumer-lag',
      PolicyType: 'TargetTrackingScaling',
      ScalingTargetId: { Ref: scalableTargetLogicalId },
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: options.targetLagPerTask,
        ScaleOutCooldown: SCALE_OUT_COOLDOWN_SECONDS,
        ScaleInCooldown: SCALE_IN_COOLDOWN_SECONDS,
        CustomizedMetricSpecification: lagMetricSpecification(options.consumerGroups),
      },
    },
  };
  return { scalableTarget, scalingPolicy };
}

function lagMetricSpecification(groups: readonly string[]): Record<string, unknown> {
  const metric = (group: string) => ({
    Namespace: LAG_METRIC.namespace,
    MetricName: LAG_METRIC.metricName,
    Dimensions: [{ Name: LAG_METRIC.dimension, Value: group }],
  });
  const [only] = groups;
  if (groups.length === 1 && only !== undefined) {
    return { ...metric(only), Statistic: LAG_METRIC.statistic, Unit: LAG_METRIC.unit };
  }
  const queries = groups.map((group, index) => ({
    Id: `lag${index}`,
    MetricStat: { Metric: metric(group), Stat: LAG_METRIC.statistic, Unit: LAG_METRIC.unit },
    ReturnData: false,
  }));
  return {
    Metrics: [
      ...queries,
      {
        Id: 'maxLagPerTask',
        Label: 'Largest consumer lag per task among the mappings',
        Expression: `MAX([${queries.map((query) => query.Id).join(', ')}])`,
        ReturnData: true,
      },
    ],
  };
}
