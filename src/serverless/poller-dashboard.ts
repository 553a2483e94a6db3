/**
 * The CloudWatch dashboard of the poller service: one graph per question an operator asks, one line per
 * consumer group. The pollers' metrics ({@link POLLER_METRICS}) say how the groups fare; the task count
 * comes from the pollers too (how many tasks published for a group in a minute: the SampleCount of
 * Unhealthy, which every task's line per minute carries) because ECS's own RunningTaskCount exists only with Container
 * Insights, which costs extra and is off by default (its line is drawn when it is on); CPU and memory
 * are AWS/ECS's free service metrics. The dead letters stored per group are what the brokers hold in
 * `%DLQ%<group>` (a rise is a message that failed for good; it falls only when the brokers expire it).
 * What a mapping's filter criteria drop (`filters`, docs/filtering.md) is consumed without an invoke: its
 * graph tells a quiet function from one whose messages are all filtered out.
 *
 * The body is an `Fn::Sub` over the region, the cluster and the service name; group names are literal.
 */
import { EMF_METRICS } from '../metrics/emf-document.js';
import { type CfnIntrinsic, type CfnResource, type CfnString, escapeSubText } from './cfn-intrinsic.js';
import { POLLER_METRICS } from './poller-metrics.js';

/** Width and height of a graph, in the dashboard's grid units (24 columns). */
const WIDGET_WIDTH = 12;
const WIDGET_HEIGHT = 6;
const GRID_COLUMNS = 24;

/**
 * What the dashboard shows.
 */
export interface DashboardOptions {
  readonly consumerGroups: readonly string[];
  /** The ECS cluster's name (not its ARN: the metrics' ClusterName dimension). */
  readonly clusterName: CfnString;
  readonly serviceLogicalId: string;
  /** Drawn on the lag graph when the service scales on lag. */
  readonly targetLagPerTask?: number | undefined;
  /** The message age alarm threshold of each group, drawn on its graph when the alarms are on. */
  readonly messageAgeSeconds?: ReadonlyMap<string, number> | undefined;
}

/** The variables of the body's `Fn::Sub` (besides `AWS::Region`). */
const CLUSTER = `\${ClusterName}`;
const SERVICE = `\${ServiceName}`;
const REGION = `\${AWS::Region}`;

type MetricLine = readonly (string | Readonly<Record<string, string>>)[];

/**
 * The dashboard resource.
 */
export function pollerDashboard(options: DashboardOptions): CfnResource {
  return {
    Type: 'AWS::CloudWatch::Dashboard',
    Properties: {
      DashboardName: { 'Fn::Sub': `\${AWS::StackName}-rocketmq-poller` },
      DashboardBody: dashboardBody(options),
    },
  };
}

/**
 * The `DashboardBody`: `{ 'Fn::Sub': [json, { ClusterName, ServiceName }] }`.
 */
export function dashboardBody(options: DashboardOptions): {
  readonly 'Fn::Sub': readonly [string, Readonly<Record<string, CfnString>>];
} {
  const groups = options.consumerGroups.map(escapeSubText);
  const poller = (metricName: string, group: string, stat: string, label: string): MetricLine => [
    POLLER_METRICS.namespace,
    metricName,
    POLLER_METRICS.dimension,
    group,
    { stat, label },
  ];
  const ecs = (namespace: string, metricName: string, stat: string, label: string): MetricLine => [
    namespace,
    metricName,
    'ClusterName',
    CLUSTER,
    'ServiceName',
    SERVICE,
    { stat, label },
  ];
  const widgets = [
    graph(
      'Consumer lag (messages)',
      groups.flatMap((g) => [
        poller(POLLER_METRICS.consumerLag, g, 'Average', `${g} per task`),
        poller(POLLER_METRICS.consumerLag, g, 'Sum', `${g} all tasks`),
      ]),
      options.targetLagPerTask === undefined
        ? undefined
        : [{ label: 'target per task', value: options.targetLagPerTask }],
    ),
    graph(
      'Oldest message age (seconds)',
      groups.map((g) => poller(POLLER_METRICS.oldestMessageAge, g, 'Maximum', g)),
      options.messageAgeSeconds === undefined
        ? undefined
        : thresholdLines(options.consumerGroups, options.messageAgeSeconds),
    ),
    graph(
      'Invokes, errors and throttles (per minute)',
      groups.flatMap((g) => [
        poller(POLLER_METRICS.invocations, g, 'Sum', `${g} invokes`),
        poller(POLLER_METRICS.invokeErrors, g, 'Sum', `${g} errors`),
        poller(POLLER_METRICS.throttles, g, 'Sum', `${g} throttles`),
      ]),
    ),
    graph(
      'Sent back and dead-lettered (messages per minute)',
      groups.flatMap((g) => [
        poller(POLLER_METRICS.sentBack, g, 'Sum', `${g} sent back`),
        poller(POLLER_METRICS.deadLettered, g, 'Sum', `${g} dead-lettered`),
      ]),
    ),
    graph(
      'Unhealthy pollers (tasks)',
      groups.map((g) => poller(POLLER_METRICS.unhealthy, g, 'Sum', g)),
    ),
    graph('Poller tasks', [
      ecs('ECS/ContainerInsights', 'RunningTaskCount', 'Average', 'running (with Container Insights)'),
      ...groups.map((g) => poller(POLLER_METRICS.unhealthy, g, 'SampleCount', `publishing for ${g}`)),
    ]),
    graph('CPU and memory (% of the task size)', [
      ecs('AWS/ECS', 'CPUUtilization', 'Average', 'CPU average'),
      ecs('AWS/ECS', 'CPUUtilization', 'Maximum', 'CPU busiest task'),
      ecs('AWS/ECS', 'MemoryUtilization', 'Average', 'memory average'),
      ecs('AWS/ECS', 'MemoryUtilization', 'Maximum', 'memory busiest task'),
    ]),
    // Every task reports the group's one depth: the Maximum is it (a Sum would count it once per task).
    graph(
      'Dead letters stored (messages in %DLQ%<group>)',
      groups.map((g) => poller(EMF_METRICS.deadLetterDepth.name, g, 'Maximum', g)),
    ),
    // Last, so that the graphs above keep their places; a flat zero line for a group without `filters`.
    graph(
      'Filtered out by filters (messages per minute, never invoked)',
      groups.map((g) => poller(POLLER_METRICS.filteredOut, g, 'Sum', g)),
    ),
  ].map((properties, index) => ({
    type: 'metric',
    x: (index * WIDGET_WIDTH) % GRID_COLUMNS,
    y: Math.floor((index * WIDGET_WIDTH) / GRID_COLUMNS) * WIDGET_HEIGHT,
    width: WIDGET_WIDTH,
    height: WIDGET_HEIGHT,
    properties,
  }));
  const serviceName: CfnIntrinsic = { 'Fn::GetAtt': [options.serviceLogicalId, 'Name'] };
  return {
    'Fn::Sub': [JSON.stringify({ widgets }), { ClusterName: options.clusterName, ServiceName: serviceName }],
  };
}

interface HorizontalLine {
  readonly label: string;
  readonly value: number;
}

/**
 * One line per distinct threshold: `alarm threshold` when every group has the same, else labelled with
 * the groups it is theirs (group names escaped for the body's `Fn::Sub`).
 */
function thresholdLines(
  groups: readonly string[],
  thresholds: ReadonlyMap<string, number>,
): HorizontalLine[] {
  const groupsOf = new Map<number, string[]>();
  for (const group of groups) {
    const value = thresholds.get(group);
    if (value === undefined) continue;
    groupsOf.set(value, [...(groupsOf.get(value) ?? []), escapeSubText(group)]);
  }
  const values = [...groupsOf.keys()].sort((a, b) => a - b);
  if (values.length === 1) return [{ label: 'alarm threshold', value: values[0] as number }];
  return values.map((value) => ({
    label: `alarm threshold ${(groupsOf.get(value) ?? []).join(', ')}`,
    value,
  }));
}

function graph(
  title: string,
  metrics: readonly MetricLine[],
  lines?: readonly HorizontalLine[],
): Record<string, unknown> {
  return {
    title,
    region: REGION,
    view: 'timeSeries',
    stacked: false,
    period: 60,
    metrics,
    yAxis: { left: { min: 0 } },
    ...(lines === undefined || lines.length === 0 ? {} : { annotations: { horizontal: lines } }),
  };
}
