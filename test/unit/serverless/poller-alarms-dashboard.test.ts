/**
 * The alarms and the dashboard the plugin adds per service: what metric, namespace, dimension, statistic
 * and threshold each alarm watches (the pollers' EMF contract, POLLER_METRICS), where they notify, how
 * missing data counts, the off switches, and the dashboard body as CloudWatch receives it (the Fn::Sub
 * rendered, then parsed as JSON).
 */
import { describe, expect, it } from 'vitest';
import {
  type CfnResource,
  type CompileRocketMQInput,
  compileRocketMQResources,
  RocketMQLogicalIds as Ids,
  RocketMQPluginError,
} from '../../../src/serverless/index.js';
import { groupLogicalIds } from '../../../src/serverless/logical-ids.js';
import { POLLER_METRICS } from '../../../src/serverless/poller-metrics.js';
import { problemsThrownBy } from '../../support/problems-thrown-by.js';
import { fixtureInput } from './fixture-input.js';

const CUSTOM = {
  nameServers: '10.0.0.10:9876',
  image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/rocketmq-lambda:0.1.0',
  vpc: { subnetIds: ['subnet-0f3e2d1c4b5a69788'] },
};
const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:rocketmq-alarms';

function input(
  custom: Record<string, unknown>,
  events: readonly Record<string, unknown>[] = [{ topic: 'Orders', consumerGroup: 'orders-fn' }],
  timeoutSeconds?: number,
): CompileRocketMQInput {
  return {
    custom: { ...CUSTOM, ...custom },
    stage: 'prod',
    functions: events.map((event, index) => ({
      key: `fn${index}`,
      logicalId: `Fn${index}LambdaFunction`,
      events: [{ rocketmq: event }],
      timeoutSeconds,
    })),
  };
}

function resourcesOf(compiled: CompileRocketMQInput): Readonly<Record<string, CfnResource>> {
  return compileRocketMQResources(compiled).resources;
}

function alarmsOf(resources: Readonly<Record<string, CfnResource>>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(resources)
      .filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm')
      .map(([id, resource]) => [id, { ...resource.Properties }]),
  );
}

const problemsOf = (input: CompileRocketMQInput): readonly string[] =>
  problemsThrownBy(() => compileRocketMQResources(input), RocketMQPluginError);

/** The pseudo parameters and resource values CloudFormation fills in at deploy time. */
const DEPLOY_VALUES: Readonly<Record<string, string>> = {
  'AWS::Region': 'eu-west-1',
  'AWS::StackName': 'orders-prod',
};

/** What CloudFormation's Fn::Sub makes of `[text, variables]`, the variables' values given by name. */
function renderSub(sub: unknown, values: Readonly<Record<string, string>>): string {
  const [text, variables] = sub as [string, Record<string, unknown>];
  return text.replace(/\$\{(!?)([^}]*)\}/g, (whole, bang: string, name: string) => {
    if (bang === '!') return `\${${name}}`;
    const value = values[name] ?? DEPLOY_VALUES[name];
    if (value === undefined || (!(name in variables) && !name.startsWith('AWS::')))
      throw new Error(`${whole} has no value`);
    return value;
  });
}

interface Widget {
  readonly type: string;
  readonly properties: {
    readonly title: string;
    readonly region: string;
    readonly metrics: readonly (readonly (string | { stat: string; label: string })[])[];
    readonly annotations?: { readonly horizontal: readonly { label: string; value: number }[] };
  };
}

/** The dashboard body as CloudWatch receives it, parsed. */
function dashboardOf(resources: Readonly<Record<string, CfnResource>>): { widgets: Widget[] } {
  const dashboard = resources[Ids.dashboard];
  if (dashboard === undefined) throw new Error('no dashboard');
  const body = dashboard.Properties.DashboardBody as { 'Fn::Sub': unknown };
  const [, variables] = body['Fn::Sub'] as [string, Record<string, unknown>];
  expect(variables.ServiceName).toEqual({ 'Fn::GetAtt': [Ids.service, 'Name'] });
  return JSON.parse(
    renderSub(body['Fn::Sub'], { ClusterName: 'poller-cluster', ServiceName: 'poller-service' }),
  ) as { widgets: Widget[] };
}

/** Each line of the dashboard as `namespace metric dimension=value stat`. */
function metricLines(widgets: readonly Widget[]): string[] {
  return widgets.flatMap((widget) =>
    widget.properties.metrics.map((line) => {
      const options = line.at(-1) as { stat: string };
      const names = line.slice(0, -1) as string[];
      const dimensions: string[] = [];
      for (let index = 2; index < names.length; index += 2)
        dimensions.push(`${names[index]}=${names[index + 1]}`);
      return `${names[0]} ${names[1]} ${dimensions.join(',')} ${options.stat}`;
    }),
  );
}

describe('alarms per consumer group', () => {
  it('read metrics the awslogs driver ships: the poller writes EMF to stdout, into the log group the stack owns', () => {
    const { resources, pollerConfig } = compileRocketMQResources(fixtureInput('minimal'));
    expect(pollerConfig?.['Fn::Sub'][0]).toContain('"metrics":{"emf":{}}');
    const definition = resources[Ids.taskDefinition];
    if (definition === undefined) throw new Error('no task definition');
    const [container] = definition.Properties.ContainerDefinitions as { LogConfiguration: unknown }[];
    expect(container?.LogConfiguration).toEqual({
      LogDriver: 'awslogs',
      Options: {
        'awslogs-group': { Ref: Ids.logGroup },
        'awslogs-region': { Ref: 'AWS::Region' },
        'awslogs-stream-prefix': 'poller',
      },
    });
    expect(resources[Ids.logGroup]?.Type).toBe('AWS::Logs::LogGroup');
  });

  it('watch the EMF metrics of each enabled group: dead letters, message age, unhealthy, cannot consume', () => {
    const alarms = alarmsOf(compileRocketMQResources(fixtureInput('all-options')).resources);
    // audit-fn is disabled in the fixture: no poller publishes for it.
    expect(Object.keys(alarms).sort()).toEqual(
      [
        'RocketMQDeadLettersAlarmOrdersFn',
        'RocketMQMessageAgeAlarmOrdersFn',
        'RocketMQUnhealthyAlarmOrdersFn',
        'RocketMQCannotConsumeAlarmOrdersFn',
        'RocketMQDeadLettersAlarmPaymentsFn',
        'RocketMQMessageAgeAlarmPaymentsFn',
        'RocketMQUnhealthyAlarmPaymentsFn',
        'RocketMQCannotConsumeAlarmPaymentsFn',
      ].sort(),
    );
    for (const group of ['orders-fn', 'payments-fn']) {
      const id = groupLogicalIds([group]).get(group);
      const common = {
        Namespace: 'RocketMQLambda',
        Dimensions: [{ Name: 'ConsumerGroup', Value: group }],
        Period: 60,
      };
      expect(alarms[`RocketMQDeadLettersAlarm${id}`]).toMatchObject({
        ...common,
        MetricName: 'DeadLettered',
        Statistic: 'Sum',
        EvaluationPeriods: 1,
        DatapointsToAlarm: 1,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(alarms[`RocketMQMessageAgeAlarm${id}`]).toMatchObject({
        ...common,
        MetricName: 'OldestMessageAge',
        Statistic: 'Maximum',
        EvaluationPeriods: 5,
        DatapointsToAlarm: 5,
        Threshold: 300,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(alarms[`RocketMQUnhealthyAlarm${id}`]).toMatchObject({
        ...common,
        MetricName: 'Unhealthy',
        Statistic: 'Maximum',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        // The service never scales below one task: no data means no poller runs or ships its logs.
        TreatMissingData: 'breaching',
      });
      expect(String(alarms[`RocketMQUnhealthyAlarm${id}`]?.AlarmDescription)).toContain(group);
      expect(alarms[`RocketMQCannotConsumeAlarm${id}`]).toMatchObject({
        ...common,
        MetricName: 'CannotConsume',
        Statistic: 'Maximum',
        EvaluationPeriods: 2,
        DatapointsToAlarm: 2,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        // Silence is the unhealthy alarm's.
        TreatMissingData: 'notBreaching',
      });
      expect(String(alarms[`RocketMQCannotConsumeAlarm${id}`]?.AlarmDescription)).toContain(group);
    }
    // No actions unless a topic is given; the alarms still show in the console.
    expect(Object.values(alarms).some((alarm) => 'AlarmActions' in alarm || 'OKActions' in alarm)).toBe(
      false,
    );
  });

  it('use the names the pollers publish (POLLER_METRICS, namespace and dimension of the lag metric)', () => {
    expect(POLLER_METRICS).toEqual({
      namespace: 'RocketMQLambda',
      dimension: 'ConsumerGroup',
      consumerLag: 'ConsumerLag',
      oldestMessageAge: 'OldestMessageAge',
      invocations: 'Invocations',
      invokeErrors: 'InvokeErrors',
      throttles: 'Throttles',
      sentBack: 'SentBack',
      deadLettered: 'DeadLettered',
      filteredOut: 'FilteredOut',
      unhealthy: 'Unhealthy',
      cannotConsume: 'CannotConsume',
    });
  });

  it.each([
    ['one topic', TOPIC_ARN, [TOPIC_ARN]],
    [
      'a list of topics',
      [TOPIC_ARN, 'arn:aws:sns:eu-west-1:123456789012:pager'],
      [TOPIC_ARN, 'arn:aws:sns:eu-west-1:123456789012:pager'],
    ],
    ['an intrinsic', { Ref: 'AlarmTopic' }, [{ Ref: 'AlarmTopic' }]],
  ])('notify %s on ALARM and on OK', (_kind, topicArn, actions) => {
    const alarms = alarmsOf(resourcesOf(input({ alarms: { topicArn } })));
    expect(Object.keys(alarms)).toHaveLength(4);
    for (const alarm of Object.values(alarms)) {
      expect(alarm.AlarmActions).toEqual(actions);
      expect(alarm.OKActions).toEqual(actions);
    }
  });

  it('take messageAgeSeconds as the age threshold; the default rises above the longest invoke', () => {
    const threshold = (compiled: CompileRocketMQInput) =>
      alarmsOf(resourcesOf(compiled)).RocketMQMessageAgeAlarmOrdersFn?.Threshold;
    expect(threshold(input({ alarms: { messageAgeSeconds: 900 } }))).toBe(900);
    expect(threshold(input({}))).toBe(300);
    // A 900 s function with a 60 s window: 960 s + 10 s grace + a minute, rounded up to minutes.
    expect(
      threshold(input({}, [{ topic: 'Orders', consumerGroup: 'orders-fn', maximumBatchingWindow: 60 }], 900)),
    ).toBe(1080);
    const { warnings } = compileRocketMQResources(
      input({ alarms: { messageAgeSeconds: 120 } }, undefined, 300),
    );
    expect(warnings).toEqual([
      'custom.rocketmq.alarms.messageAgeSeconds: 120 is not above the 311 s a message of orders-fn may wait in a healthy flow (batching window + function timeout + 10 s): one slow batch can fire the alarm',
    ]);
  });

  it("give each group the threshold of its own function's timeout and batching window; messageAgeSeconds is every group's", () => {
    // The case of issue 32: a 6 s function beside a 900 s one with a 300 s window.
    const twoGroups = (custom: Record<string, unknown>): CompileRocketMQInput => ({
      custom: { ...CUSTOM, ...custom },
      stage: 'prod',
      functions: [
        {
          key: 'orders',
          logicalId: 'OrdersLambdaFunction',
          timeoutSeconds: 6,
          events: [{ rocketmq: { topic: 'Orders', consumerGroup: 'orders-fn' } }],
        },
        {
          key: 'reports',
          logicalId: 'ReportsLambdaFunction',
          timeoutSeconds: 900,
          events: [
            { rocketmq: { topic: 'Reports', consumerGroup: 'reports-fn', maximumBatchingWindow: 300 } },
          ],
        },
      ],
    });
    const thresholds = (compiled: CompileRocketMQInput) => {
      const alarms = alarmsOf(resourcesOf(compiled));
      return {
        orders: alarms.RocketMQMessageAgeAlarmOrdersFn?.Threshold,
        reports: alarms.RocketMQMessageAgeAlarmReportsFn?.Threshold,
      };
    };
    // 6.5 s + 10 s is below 300 s; 1,200 s + 10 s + a minute, rounded up to minutes, is 1,320 s.
    expect(thresholds(twoGroups({}))).toEqual({ orders: 300, reports: 1320 });
    expect(
      String(alarmsOf(resourcesOf(twoGroups({}))).RocketMQMessageAgeAlarmOrdersFn?.AlarmDescription),
    ).toContain('older than 300 s');
    const ages = dashboardOf(resourcesOf(twoGroups({}))).widgets[1]?.properties.annotations?.horizontal;
    expect(ages).toEqual([
      { label: 'alarm threshold orders-fn', value: 300 },
      { label: 'alarm threshold reports-fn', value: 1320 },
    ]);

    // An explicit value wins for every group; only the group it is too short for is warned about.
    expect(thresholds(twoGroups({ alarms: { messageAgeSeconds: 600 } }))).toEqual({
      orders: 600,
      reports: 600,
    });
    expect(compileRocketMQResources(twoGroups({ alarms: { messageAgeSeconds: 600 } })).warnings).toEqual([
      'custom.rocketmq.alarms.messageAgeSeconds: 600 is not above the 1210 s a message of reports-fn may wait in a healthy flow (batching window + function timeout + 10 s): one slow batch can fire the alarm',
    ]);
    expect(
      dashboardOf(resourcesOf(twoGroups({ alarms: { messageAgeSeconds: 1500 } }))).widgets[1]?.properties
        .annotations?.horizontal,
    ).toEqual([{ label: 'alarm threshold', value: 1500 }]);
  });

  it('do not count silence as unhealthy when the service runs no task (scaling: false, desiredCount: 0)', () => {
    const unhealthy = (custom: Record<string, unknown>) =>
      alarmsOf(resourcesOf(input(custom))).RocketMQUnhealthyAlarmOrdersFn?.TreatMissingData;
    expect(unhealthy({ scaling: false, desiredCount: 0 })).toBe('notBreaching');
    expect(unhealthy({ scaling: false, desiredCount: 2 })).toBe('breaching');
    expect(unhealthy({ minCount: 1, maxCount: 4 })).toBe('breaching');
  });

  it('are off with alarms: false, independently of the dashboard', () => {
    const noAlarms = resourcesOf(input({ alarms: false }));
    expect(alarmsOf(noAlarms)).toEqual({});
    expect(noAlarms[Ids.dashboard]?.Type).toBe('AWS::CloudWatch::Dashboard');
    const noDashboard = resourcesOf(input({ dashboard: false }));
    expect(noDashboard[Ids.dashboard]).toBeUndefined();
    expect(Object.keys(alarmsOf(noDashboard))).toHaveLength(4);
    expect(Object.keys(alarmsOf(resourcesOf(input({ alarms: true }))))).toHaveLength(4);
  });

  it('get a logical id per group that survives other groups coming and going, distinct when names differ only in punctuation', () => {
    expect(groupLogicalIds(['orders-fn', 'payments'])).toEqual(
      new Map([
        ['orders-fn', 'OrdersFn'],
        ['payments', 'Payments'],
      ]),
    );
    const clashing = groupLogicalIds(['orders-fn', 'orders_fn', 'payments']);
    expect(clashing.get('payments')).toBe('Payments');
    expect(clashing.get('orders-fn')).toMatch(/^OrdersFn[0-9a-f]{8}$/);
    expect(clashing.get('orders_fn')).toMatch(/^OrdersFn[0-9a-f]{8}$/);
    expect(clashing.get('orders-fn')).not.toBe(clashing.get('orders_fn'));
    expect(groupLogicalIds(['orders_fn']).get('orders_fn')).toBe('OrdersFn');
    expect(groupLogicalIds(['%%']).get('%%')).toMatch(/^[0-9a-f]{8}$/);
    const long = 'g'.repeat(255);
    expect(groupLogicalIds([long]).get(long)?.length).toBeLessThanOrEqual(208);
    const resources = resourcesOf(
      input({}, [
        { topic: 'Orders', consumerGroup: 'orders-fn' },
        { topic: 'Orders2', consumerGroup: 'orders_fn' },
      ]),
    );
    expect(Object.keys(alarmsOf(resources))).toHaveLength(8);
    for (const id of Object.keys(resources)) expect(id).toMatch(/^[A-Za-z0-9]{1,255}$/);
  });
});

describe('custom.rocketmq.alarms and dashboard: bad values name their key', () => {
  it('unknown keys with a suggestion, wrong ARNs, bounds, types', () => {
    expect(problemsOf(input({ alarms: { topicArm: TOPIC_ARN } }))).toEqual([
      'custom.rocketmq.alarms.topicArm: unknown key (did you mean topicArn?)',
    ]);
    expect(problemsOf(input({ dashbord: false }))).toEqual([
      'custom.rocketmq.dashbord: unknown key (did you mean dashboard?)',
    ]);
    expect(
      problemsOf(
        input({
          alarms: { topicArn: 'arn:aws:sqs:eu-west-1:123456789012:q', messageAgeSeconds: 30 },
        }),
      ),
    ).toEqual([
      'custom.rocketmq.alarms.topicArn: must be an SNS topic ARN',
      'custom.rocketmq.alarms.messageAgeSeconds: must be ≥ 60, got 30',
    ]);
    expect(problemsOf(input({ alarms: { topicArn: Array.from({ length: 6 }, () => TOPIC_ARN) } }))).toEqual([
      // The list form was meant (the one alternative that takes a list): its own bound is named.
      'custom.rocketmq.alarms.topicArn: must have at most 5 entries',
    ]);
    expect(problemsOf(input({ alarms: 'on', dashboard: 'yes' }))).toEqual([
      'custom.rocketmq.alarms: must be true, false or { topicArn, messageAgeSeconds }, got "on"',
      'custom.rocketmq.dashboard: must be true or false, got "yes"',
    ]);
  });
});

describe('the dashboard', () => {
  it("parses as JSON once deployed and graphs every group's metrics, the task count, CPU and memory", () => {
    const { widgets } = dashboardOf(compileRocketMQResources(fixtureInput('all-options')).resources);
    expect(widgets.map((widget) => widget.properties.title)).toEqual([
      'Consumer lag (messages)',
      'Oldest message age (seconds)',
      'Invokes, errors and throttles (per minute)',
      'Sent back and dead-lettered (messages per minute)',
      'Unhealthy pollers (tasks)',
      'Poller tasks',
      'CPU and memory (% of the task size)',
      'Dead letters stored (messages in %DLQ%<group>)',
      'Filtered out by filters (messages per minute, never invoked)',
    ]);
    for (const widget of widgets) {
      expect(widget.type).toBe('metric');
      expect(widget.properties.region).toBe('eu-west-1');
    }
    const lines = metricLines(widgets);
    for (const group of ['orders-fn', 'payments-fn']) {
      const dimension = `ConsumerGroup=${group}`;
      expect(lines).toEqual(
        expect.arrayContaining([
          `RocketMQLambda ConsumerLag ${dimension} Average`,
          `RocketMQLambda ConsumerLag ${dimension} Sum`,
          `RocketMQLambda OldestMessageAge ${dimension} Maximum`,
          `RocketMQLambda Invocations ${dimension} Sum`,
          `RocketMQLambda InvokeErrors ${dimension} Sum`,
          `RocketMQLambda Throttles ${dimension} Sum`,
          `RocketMQLambda SentBack ${dimension} Sum`,
          `RocketMQLambda DeadLettered ${dimension} Sum`,
          `RocketMQLambda DeadLetterDepth ${dimension} Maximum`,
          `RocketMQLambda FilteredOut ${dimension} Sum`,
          `RocketMQLambda Unhealthy ${dimension} Sum`,
          `RocketMQLambda Unhealthy ${dimension} SampleCount`,
        ]),
      );
    }
    expect(lines.join('\n')).not.toContain('audit-fn');
    const service = 'ClusterName=poller-cluster,ServiceName=poller-service';
    expect(lines).toEqual(
      expect.arrayContaining([
        `ECS/ContainerInsights RunningTaskCount ${service} Average`,
        `AWS/ECS CPUUtilization ${service} Average`,
        `AWS/ECS MemoryUtilization ${service} Maximum`,
      ]),
    );
    expect(widgets[0]?.properties.annotations?.horizontal).toEqual([
      { label: 'target per task', value: 5000 },
    ]);
    expect(widgets[1]?.properties.annotations?.horizontal).toEqual([
      { label: 'alarm threshold', value: 300 },
    ]);
  });

  it('draws the lag target only with lag scaling and the age threshold only with alarms', () => {
    const { widgets } = dashboardOf(resourcesOf(input({ scaling: false, alarms: false })));
    expect(widgets[0]?.properties.annotations).toBeUndefined();
    expect(widgets[1]?.properties.annotations).toBeUndefined();
  });

  it('names an existing cluster by its name, given its name or ARN (the scaling target too)', () => {
    const resources = resourcesOf(
      input({ cluster: 'arn:aws:ecs:eu-west-1:123456789012:cluster/shared', maxCount: 4 }),
    );
    const body = resources[Ids.dashboard]?.Properties.DashboardBody as { 'Fn::Sub': [string, unknown] };
    expect(body['Fn::Sub'][1]).toMatchObject({ ClusterName: 'shared' });
    expect(resources[Ids.scalableTarget]?.Properties.ResourceId).toEqual({
      'Fn::Join': ['/', ['service', 'shared', { 'Fn::GetAtt': [Ids.service, 'Name'] }]],
    });
    const created = resourcesOf(input({}));
    const createdBody = created[Ids.dashboard]?.Properties.DashboardBody as { 'Fn::Sub': [string, unknown] };
    expect(createdBody['Fn::Sub'][1]).toMatchObject({ ClusterName: { Ref: Ids.cluster } });
    expect(created[Ids.dashboard]?.Properties.DashboardName).toEqual({
      'Fn::Sub': `\${AWS::StackName}-rocketmq-poller`,
    });
  });
});
