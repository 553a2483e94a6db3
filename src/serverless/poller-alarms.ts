/**
 * CloudWatch alarms per consumer group, on the metrics the pollers publish ({@link POLLER_METRICS}):
 * - dead letters: any message dead-lettered in a minute (each one is a message the function failed for
 *   good, so one is enough);
 * - message age: the oldest unconsumed message older than the threshold for 5 minutes running (a
 *   backlog that does not drain, not one slow batch). Each group has its own threshold, from its own
 *   function's timeout and batching window unless `alarms.messageAgeSeconds` sets one for all;
 * - unhealthy: a poller reports the group's consumer unhealthy 3 minutes running, or no poller publishes
 *   at all (missing data is breaching: the service runs at least one task, so silence means the tasks
 *   are failing to start or to ship their logs);
 * - cannot consume: a poller reports that a mapping of the group cannot consume (its topic or group
 *   missing, its subscription refused, no queue assigned while the group has queues to spare) 2 minutes
 *   running: sooner than `unhealthy`, and naming the cause (a standby waiting for a queue does not count;
 *   docs/operating.md, "Readiness").
 *
 * Off with `alarms: false`; `alarms.topicArn` receives the ALARM and OK transitions.
 */
import { type KeyPath, problemLine } from '../config/config-problem.js';
import type { CfnResource, CfnString } from './cfn-intrinsic.js';
import { groupLogicalIds, RocketMQAlarmIdPrefixes } from './logical-ids.js';
import { POLLER_METRICS } from './poller-metrics.js';
import type { ScalingPlan } from './poller-scaling.js';
import { ALARM_DEFAULTS } from './rocketmq-alarms-schema.js';
import type { RocketMQCustomOptions } from './rocketmq-custom-schema.js';

/** Seconds of one alarm period: the pollers publish once a minute. */
const PERIOD_SECONDS = 60;
/** Minutes the message age must stay above the threshold. */
const MESSAGE_AGE_MINUTES = 5;
/** Minutes a poller must stay unhealthy (or silent): longer than one restart of a task's consumer. */
const UNHEALTHY_MINUTES = 3;
/**
 * Minutes a poller must report that it cannot consume: two lines in a row, so a broker restart (~20 s,
 * which the poller's own grace absorbs) does not alarm.
 */
const CANNOT_CONSUME_MINUTES = 2;
/** Seconds the poller waits beyond the function's timeout before it counts an invoke as failed. */
const INVOKE_GRACE_SECONDS = 10;

/**
 * One enabled mapping, as the alarms see it.
 */
export interface AlarmMapping {
  readonly consumerGroup: string;
  /** The batching window plus the function's timeout: how long a message may wait in a healthy flow. */
  readonly longestInvokeSeconds: number;
}

/**
 * What the alarms are built from.
 */
export interface AlarmPlan {
  readonly topicArns: readonly CfnString[];
  /** The message age threshold of each consumer group. */
  readonly messageAgeSeconds: ReadonlyMap<string, number>;
  /** False when the service runs no task (`scaling: false`, `desiredCount: 0`): silence is no failure then. */
  readonly pollersExpected: boolean;
}

/**
 * The alarm plan of `custom` (undefined with `alarms: false`), and warnings under `basePath`.
 */
export function alarmPlan(
  custom: RocketMQCustomOptions,
  mappings: readonly AlarmMapping[],
  scaling: ScalingPlan,
  basePath: KeyPath,
): { plan: AlarmPlan | undefined; warnings: string[] } {
  const alarms = custom.alarms ?? ALARM_DEFAULTS.alarms;
  if (alarms === false) return { plan: undefined, warnings: [] };
  const settings = alarms === true ? {} : alarms;
  const warnings: string[] = [];
  const messageAgeSeconds = new Map<string, number>();
  for (const mapping of mappings) {
    const healthyAgeSeconds = mapping.longestInvokeSeconds + INVOKE_GRACE_SECONDS;
    const explicit = settings.messageAgeSeconds;
    if (explicit === undefined) {
      messageAgeSeconds.set(mapping.consumerGroup, defaultMessageAgeSeconds(mapping.longestInvokeSeconds));
      continue;
    }
    messageAgeSeconds.set(mapping.consumerGroup, explicit);
    if (explicit <= healthyAgeSeconds) {
      warnings.push(
        problemLine({
          path: [...basePath, 'alarms', 'messageAgeSeconds'],
          message: `${explicit} is not above the ${Math.ceil(healthyAgeSeconds)} s a message of ${mapping.consumerGroup} may wait in a healthy flow (batching window + function timeout + 10 s): one slow batch can fire the alarm`,
        }),
      );
    }
  }
  const topics = settings.topicArn;
  return {
    plan: {
      topicArns: topics === undefined ? [] : Array.isArray(topics) ? [...topics] : [topics as CfnString],
      messageAgeSeconds,
      pollersExpected: !(scaling.kind === 'fixed' && scaling.desiredCount === 0),
    },
    warnings,
  };
}

/**
 * The default message age threshold of a group whose longest invoke (batching window + function timeout)
 * is `longestInvokeSeconds`: {@link ALARM_DEFAULTS}' 300 s, or, when longer, what a message may wait in a
 * healthy flow (that plus the poller's 10 s grace) plus a minute, rounded up to a minute: 300 for a 6 s
 * function with the 0.5 s window, 1,020 for a 900 s one.
 */
export function defaultMessageAgeSeconds(longestInvokeSeconds: number): number {
  const healthyAgeSeconds = longestInvokeSeconds + INVOKE_GRACE_SECONDS;
  const raised = Math.ceil((healthyAgeSeconds + PERIOD_SECONDS) / PERIOD_SECONDS) * PERIOD_SECONDS;
  return Math.max(ALARM_DEFAULTS.messageAgeSeconds, raised);
}

/**
 * The four alarms of each group, by logical id.
 */
export function pollerAlarms(plan: AlarmPlan, groups: readonly string[]): Record<string, CfnResource> {
  const ids = groupLogicalIds(groups);
  const resources: Record<string, CfnResource> = {};
  for (const group of groups) {
    const id = ids.get(group) ?? '';
    const alarm = (properties: AlarmProperties): CfnResource => groupAlarm(plan, group, properties);
    resources[`${RocketMQAlarmIdPrefixes.deadLetters}${id}`] = alarm({
      description: `RocketMQ consumer group ${group}: messages were dead-lettered in the last minute (they failed every retry, were older than maxRecordAge, or could not be delivered). They wait in %DLQ%${group}, and in the onFailure destination if the mapping has one; the function's logs say why they failed.`,
      metricName: POLLER_METRICS.deadLettered,
      statistic: 'Sum',
      minutes: 1,
      threshold: 0,
      comparison: 'GreaterThanThreshold',
      missingData: 'notBreaching',
    });
    const ageThreshold = plan.messageAgeSeconds.get(group);
    if (ageThreshold === undefined)
      throw new Error(`the alarm plan has no message age threshold for ${group}`);
    resources[`${RocketMQAlarmIdPrefixes.messageAge}${id}`] = alarm({
      description: `RocketMQ consumer group ${group}: its oldest unconsumed message has been older than ${ageThreshold} s for ${MESSAGE_AGE_MINUTES} minutes (a backlog that does not drain: slow or failing invokes, throttling, too few tasks, or an orderly queue blocked on a message).`,
      metricName: POLLER_METRICS.oldestMessageAge,
      statistic: 'Maximum',
      minutes: MESSAGE_AGE_MINUTES,
      threshold: ageThreshold,
      comparison: 'GreaterThanThreshold',
      missingData: 'notBreaching',
    });
    resources[`${RocketMQAlarmIdPrefixes.unhealthy}${id}`] = alarm({
      description: plan.pollersExpected
        ? `RocketMQ consumer group ${group}: a poller task reported its consumer unhealthy, or no task published metrics, for ${UNHEALTHY_MINUTES} minutes. Read the poller log group and the ECS service's events.`
        : `RocketMQ consumer group ${group}: a poller task reported its consumer unhealthy for ${UNHEALTHY_MINUTES} minutes (the service runs no task by default, so silence does not alarm).`,
      metricName: POLLER_METRICS.unhealthy,
      statistic: 'Maximum',
      minutes: UNHEALTHY_MINUTES,
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
      missingData: plan.pollersExpected ? 'breaching' : 'notBreaching',
    });
    resources[`${RocketMQAlarmIdPrefixes.cannotConsume}${id}`] = alarm({
      description: `RocketMQ consumer group ${group}: a poller task has reported for ${CANNOT_CONSUME_MINUTES} minutes that it cannot consume: the topic or the subscription group does not exist on the brokers, the brokers refuse the subscription, or the task is assigned no queue while the group has queues to spare. \`rocketmq-lambda health --json\` in the task, its /readyz, or its log line 'unhealthy' names the topic and the cause.`,
      metricName: POLLER_METRICS.cannotConsume,
      statistic: 'Maximum',
      minutes: CANNOT_CONSUME_MINUTES,
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
      // Silence is the unhealthy alarm's to report.
      missingData: 'notBreaching',
    });
  }
  return resources;
}

interface AlarmProperties {
  readonly description: string;
  readonly metricName: string;
  readonly statistic: 'Sum' | 'Maximum';
  /** Periods evaluated, all of which must breach. */
  readonly minutes: number;
  readonly threshold: number;
  readonly comparison: 'GreaterThanThreshold' | 'GreaterThanOrEqualToThreshold';
  readonly missingData: 'breaching' | 'notBreaching';
}

function groupAlarm(plan: AlarmPlan, group: string, alarm: AlarmProperties): CfnResource {
  const actions =
    plan.topicArns.length === 0 ? {} : { AlarmActions: plan.topicArns, OKActions: plan.topicArns };
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmDescription: alarm.description,
      Namespace: POLLER_METRICS.namespace,
      MetricName: alarm.metricName,
      Dimensions: [{ Name: POLLER_METRICS.dimension, Value: group }],
      Statistic: alarm.statistic,
      Period: PERIOD_SECONDS,
      EvaluationPeriods: alarm.minutes,
      DatapointsToAlarm: alarm.minutes,
      Threshold: alarm.threshold,
      ComparisonOperator: alarm.comparison,
      TreatMissingData: alarm.missingData,
      ...actions,
    },
  };
}
