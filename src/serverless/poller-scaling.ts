/**
 * Scaling of the poller service on consumer lag: target tracking of the lag per task that the pollers
 * publish. Scaling out spreads a group's queues over more tasks (RocketMQ's rebalance), so the lag each
 * task holds falls; a PUSH group can use at most as many tasks as its topic has queues. A POP group's tasks
 * each pop every queue and publish an equal share of the group's backlog, so it can use more (bounded by
 * Lambda's concurrency instead, see {@link usefulTasks}). Every task runs every mapping, so the mapping
 * that can use the most tasks sets the default bound.
 *
 * On by default (1 task up to that bound); `scaling: false` runs a fixed count.
 */

import { MAPPING_DEFAULTS } from '../config/config-defaults.js';
import { formatKeyPath, type KeyPath, problemLine } from '../config/config-problem.js';
import { LAG_METRIC } from '../metrics/lag-metric.js';
import type { CfnIntrinsic, CfnResource, CfnString } from './cfn-intrinsic.js';
import { CUSTOM_DEFAULTS, MAX_TASK_COUNT, type RocketMQCustomOptions } from './rocketmq-custom-schema.js';
import type { RocketMQEventOptions } from './rocketmq-event-schema.js';

/**
 * Invokes in flight at once that a POP mapping's default `maxCount` allows: Lambda's default concurrency
 * quota per account and region (1,000). Raise `maxCount` when the account's quota is higher.
 */
export const POP_CONCURRENCY_BUDGET = 1000;

/** Seconds between scale-out steps: quick, lag grows fast. */
const SCALE_OUT_COOLDOWN_SECONDS = 60;
/** Seconds between scale-in steps: slow, every scale-in rebalances the queues. */
const SCALE_IN_COOLDOWN_SECONDS = 300;

/**
 * How the service's task count is set: fixed (`DesiredCount` in the template), or by lag-based scaling
 * (no `DesiredCount`: every stack update would reset the count to it in the middle of a backlog).
 */
export type ScalingPlan =
  | { readonly kind: 'fixed'; readonly desiredCount: number }
  | {
      readonly kind: 'lag';
      readonly minCount: number;
      readonly maxCount: number;
      readonly targetLagPerTask: number;
    };

/**
 * An enabled mapping, as scaling sees it.
 */
export interface ScalingMapping {
  readonly path: KeyPath;
  readonly event: RocketMQEventOptions;
}

/**
 * The scaling plan of `custom` for the enabled `mappings` (at least one), with the problems (each naming
 * its key under `basePath`) and the warnings that go with it.
 */
export function scalingPlan(
  custom: RocketMQCustomOptions,
  mappings: readonly ScalingMapping[],
  basePath: KeyPath,
): { plan: ScalingPlan; problems: string[]; warnings: string[] } {
  const at = (key: string, message: string) => problemLine({ path: [...basePath, key], message });
  const problems: string[] = [];
  const warnings: string[] = [];
  const scalingKeys = (['minCount', 'maxCount', 'targetLagPerTask'] as const).filter(
    (key) => custom[key] !== undefined,
  );
  const fixed = (): ScalingPlan => ({
    kind: 'fixed',
    desiredCount: custom.desiredCount ?? CUSTOM_DEFAULTS.desiredCount,
  });
  if (custom.scaling === false) {
    for (const key of scalingKeys) problems.push(at(key, 'only used with scaling (scaling is false)'));
    return { plan: fixed(), problems, warnings };
  }
  const broadcasting = mappings.find((mapping) => mapping.event.messageModel === 'BROADCASTING');
  if (broadcasting !== undefined) {
    const why = `${formatKeyPath(broadcasting.path)} is BROADCASTING (every task gets every message, so more tasks multiply the invokes)`;
    const [explicit] = custom.scaling === true ? ['scaling'] : scalingKeys;
    if (explicit === undefined) warnings.push(at('scaling', `off: ${why}; set scaling: false to say so`));
    else problems.push(at(explicit, `no scaling when ${why}; set scaling: false`));
    return { plan: fixed(), problems, warnings };
  }
  if (custom.desiredCount !== undefined) {
    problems.push(
      at(
        'desiredCount',
        'only used with scaling: false (scaling sets the task count, between minCount and maxCount)',
      ),
    );
  }
  const hinted = mappings.some((mapping) => mapping.event.queues !== undefined);
  const largestQueues = Math.max(
    ...mappings.map((mapping) => mapping.event.queues ?? CUSTOM_DEFAULTS.queuesPerTopic),
  );
  const pop = mappings.some((mapping) => mapping.event.consumeMode === 'POP');
  const minCount = custom.minCount ?? CUSTOM_DEFAULTS.minCount;
  const maxCount =
    custom.maxCount ??
    Math.min(MAX_TASK_COUNT, Math.max(minCount, ...mappings.map((mapping) => usefulTasks(mapping.event))));
  if (minCount > maxCount) problems.push(at('minCount', `must be ≤ maxCount (${maxCount}), got ${minCount}`));
  // A POP mapping uses tasks past the queue count (every task pops every queue).
  if (!pop && custom.maxCount !== undefined && custom.maxCount > largestQueues) {
    const source = hinted
      ? "the events' queues"
      : `${CUSTOM_DEFAULTS.queuesPerTopic} per topic unless an event's queues says`;
    warnings.push(
      at(
        'maxCount',
        `${custom.maxCount} is above the largest mapped topic's queue count, ${largestQueues} (${source}): tasks beyond it hold no queue`,
      ),
    );
  }
  if (maxCount <= minCount) {
    if (custom.targetLagPerTask !== undefined) {
      problems.push(
        at('targetLagPerTask', `only used when maxCount (${maxCount}) is above minCount (${minCount})`),
      );
    }
    return { plan: { kind: 'fixed', desiredCount: minCount }, problems, warnings };
  }
  const targetLagPerTask = custom.targetLagPerTask ?? CUSTOM_DEFAULTS.targetLagPerTask;
  return { plan: { kind: 'lag', minCount, maxCount, targetLagPerTask }, problems, warnings };
}

/**
 * The most tasks one mapping can keep busy. PUSH: its topic's queue count (the group's queues are shared
 * out over the tasks; a task beyond them holds none). POP: every task pops every queue, so the queues are
 * no bound; the bound is Lambda's: each task runs up to `maxConcurrency` invokes, and past
 * {@link POP_CONCURRENCY_BUDGET} invokes at once the function would meet the default account concurrency
 * quota and be throttled.
 */
export function usefulTasks(event: RocketMQEventOptions): number {
  if (event.consumeMode === 'POP') {
    return Math.ceil(POP_CONCURRENCY_BUDGET / (event.maxConcurrency ?? MAPPING_DEFAULTS.maxConcurrency));
  }
  return event.queues ?? CUSTOM_DEFAULTS.queuesPerTopic;
}

/**
 * What scaling needs.
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
