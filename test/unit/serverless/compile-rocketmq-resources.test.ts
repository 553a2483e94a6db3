import { describe, expect, it } from 'vitest';
import { offsetTableDefinition } from '../../../src/offsets/dynamodb-offset-schema.js';
import {
  type CfnResource,
  type CompileRocketMQInput,
  compileRocketMQResources,
  RocketMQLogicalIds as Ids,
  LAG_METRIC,
  RocketMQPluginError,
} from '../../../src/serverless/index.js';
import { problemsThrownBy } from '../../support/problems-thrown-by.js';
import { checkPollerConfig } from './config-check.js';
import { fixtureInput } from './fixture-input.js';

const CUSTOM = {
  nameServers: '10.0.0.10:9876',
  image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/rocketmq-lambda:0.1.0',
  vpc: { subnetIds: ['subnet-0f3e2d1c4b5a69788'] },
};

function oneEvent(
  event: Record<string, unknown>,
  custom: unknown = CUSTOM,
  more: Partial<CompileRocketMQInput> = {},
): CompileRocketMQInput {
  return {
    custom,
    stage: 'prod',
    functions: [{ key: 'orders', logicalId: 'OrdersLambdaFunction', events: [{ rocketmq: event }] }],
    ...more,
  };
}

const MINIMAL_EVENT = { topic: 'Orders', consumerGroup: 'orders-fn' };

const problemsOf = (input: CompileRocketMQInput): readonly string[] =>
  problemsThrownBy(() => compileRocketMQResources(input), RocketMQPluginError);

type Statement = { Sid: string; Action: unknown; Resource: unknown; Condition?: unknown };

function statements(role: CfnResource | undefined): Statement[] {
  const policies = role?.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[];
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}

function statement(role: CfnResource | undefined, sid: string): Statement | undefined {
  return statements(role).find((s) => s.Sid === sid);
}

type Container = {
  Environment: { Name: string; Value: unknown }[];
  Secrets?: { Name: string; ValueFrom: unknown }[];
  [key: string]: unknown;
};

function container(resources: Readonly<Record<string, CfnResource>>): Container {
  const definitions = resources[Ids.taskDefinition]?.Properties.ContainerDefinitions as Container[];
  const [first] = definitions;
  if (first === undefined) throw new Error('no container');
  return first;
}

describe('compileRocketMQResources', () => {
  it('adds nothing to a service without rocketmq events, whatever custom.rocketmq holds', () => {
    const compiled = compileRocketMQResources({
      custom: { not: 'checked' },
      functions: [{ key: 'hello', logicalId: 'HelloLambdaFunction', events: [{ http: { path: '/' } }] }],
    });
    expect(compiled).toMatchObject({
      resources: {},
      outputs: {},
      coreResources: {},
      pollerConfig: undefined,
    });
    expect(compileRocketMQResources(fixtureInput('no-events')).resources).toEqual({});
  });

  it('compiles the minimal fixture: table, cluster, log group, roles, task definition, service, scaling, alarms, dashboard', () => {
    const { resources, outputs, warnings } = compileRocketMQResources(fixtureInput('minimal'));
    expect(Object.keys(resources).sort()).toEqual(
      [
        Ids.offsetsTable,
        Ids.cluster,
        Ids.logGroup,
        Ids.executionRole,
        Ids.taskRole,
        Ids.taskDefinition,
        Ids.service,
        Ids.scalableTarget,
        Ids.scalingPolicy,
        'RocketMQDeadLettersAlarmOrdersFn',
        'RocketMQMessageAgeAlarmOrdersFn',
        'RocketMQUnhealthyAlarmOrdersFn',
        'RocketMQCannotConsumeAlarmOrdersFn',
        Ids.dashboard,
      ].sort(),
    );
    expect(warnings).toEqual([]);
    expect(Object.keys(outputs).sort()).toEqual([
      'RocketMQOffsetsTableName',
      'RocketMQPollerLogGroupName',
      'RocketMQPollerServiceName',
    ]);
  });

  it('builds the offsets table from the offset store schema: on demand, point-in-time recovery, retained', () => {
    const table = compileRocketMQResources(oneEvent(MINIMAL_EVENT)).resources[Ids.offsetsTable];
    const { TableName: _name, ...definition } = offsetTableDefinition('x');
    expect(table).toEqual({
      Type: 'AWS::DynamoDB::Table',
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { ...definition, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } },
    });
    expect(table?.Properties.BillingMode).toBe('PAY_PER_REQUEST');
  });

  it('grants the task role exactly the mapped functions (and their qualifiers) and the table; no CloudWatch (metrics go out as EMF log lines)', () => {
    const { resources } = compileRocketMQResources(oneEvent(MINIMAL_EVENT));
    const role = resources[Ids.taskRole];
    expect(statement(role, 'InvokeMappedFunctions')).toEqual({
      Sid: 'InvokeMappedFunctions',
      Effect: 'Allow',
      Action: 'lambda:InvokeFunction',
      Resource: [
        { 'Fn::GetAtt': ['OrdersLambdaFunction', 'Arn'] },
        { 'Fn::Sub': [`\${Arn}:*`, { Arn: { 'Fn::GetAtt': ['OrdersLambdaFunction', 'Arn'] } }] },
      ],
    });
    expect(statement(role, 'Offsets')?.Resource).toEqual({ 'Fn::GetAtt': [Ids.offsetsTable, 'Arn'] });
    expect(statement(role, 'Offsets')?.Action).toEqual([
      'dynamodb:DescribeTable',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:Query',
    ]);
    expect(statements(role).map((s) => s.Sid)).toEqual(['InvokeMappedFunctions', 'Offsets']);
    expect(JSON.stringify(resources)).not.toContain('cloudwatch:');
    const execution = resources[Ids.executionRole];
    expect(statement(execution, 'PullImage')?.Resource).toBe(
      'arn:aws:ecr:eu-west-1:123456789012:repository/rocketmq-lambda',
    );
    expect(statement(execution, 'WriteLogs')?.Resource).toEqual({ 'Fn::GetAtt': [Ids.logGroup, 'Arn'] });
    expect(statements(execution).map((s) => s.Sid)).toEqual(['WriteLogs', 'EcrLogin', 'PullImage']);
  });

  it('runs the poller on a read-only root filesystem, writing only to the state volume', () => {
    const { resources } = compileRocketMQResources(oneEvent(MINIMAL_EVENT));
    expect(resources[Ids.taskDefinition]?.Properties.Volumes).toEqual([{ Name: 'poller-state' }]);
    const poller = container(resources);
    expect(poller.ReadonlyRootFilesystem).toBe(true);
    expect(poller.MountPoints).toEqual([
      { SourceVolume: 'poller-state', ContainerPath: '/app/.rocketmq-lambda', ReadOnly: false },
    ]);
    // The heartbeat and temporary files go there whatever the image sets (an own image may set neither).
    expect(poller.Environment).toEqual(
      expect.arrayContaining([
        { Name: 'ROCKETMQ_LAMBDA_HEALTH_FILE', Value: '/app/.rocketmq-lambda/health' },
        { Name: 'TMPDIR', Value: '/app/.rocketmq-lambda' },
      ]),
    );
  });

  it('passes the generated config in ROCKETMQ_LAMBDA_CONFIG, and the poller parser accepts it', () => {
    const { resources, pollerConfig } = compileRocketMQResources(oneEvent(MINIMAL_EVENT));
    if (pollerConfig === undefined) throw new Error('no poller config');
    const environment = container(resources).Environment;
    expect(environment.find((e) => e.Name === 'ROCKETMQ_LAMBDA_CONFIG')?.Value).toBe(pollerConfig);
    expect(pollerConfig['Fn::Sub'][1]).toEqual({
      OffsetsTable: { Ref: Ids.offsetsTable },
      Function0: { 'Fn::GetAtt': ['OrdersLambdaFunction', 'Arn'] },
    });
    const { config, raw, pending, unexpected } = checkPollerConfig(pollerConfig);
    expect(unexpected).toEqual([]);
    expect(pending.length).toBeLessThanOrEqual(1);
    // The lag metric as the scaling policy reads it, written as EMF (one line a minute per group).
    expect(config?.metrics.emf).toEqual({ namespace: LAG_METRIC.namespace, intervalMs: 60_000 });
    expect(config?.metrics.cloudwatch).toBeUndefined();
    expect(raw).toEqual({
      nameServer: '10.0.0.10:9876',
      shutdownTimeoutMs: 110_000,
      offsets: { store: 'dynamodb', table: 'rmq-offsets-table' },
      metrics: { emf: {} },
      mappings: [
        {
          topic: 'Orders',
          consumerGroup: 'orders-fn',
          function: 'arn:aws:lambda:eu-west-1:123456789012:function:fn0',
          functionTimeoutMs: 6000,
        },
      ],
    });
  });

  it('compiles every option of the all-options fixture', () => {
    const { resources, outputs, pollerConfig, warnings } = compileRocketMQResources(
      fixtureInput('all-options'),
    );
    expect(warnings).toEqual([]);
    if (pollerConfig === undefined) throw new Error('no poller config');
    expect(resources[Ids.offsetsTable]).toMatchObject({
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
      Properties: { TableName: 'rmq-all-options-offsets' },
    });
    expect(outputs.RocketMQOffsetsTableName?.Value).toEqual({ Ref: Ids.offsetsTable });

    const taskDefinition = resources[Ids.taskDefinition]?.Properties;
    expect(taskDefinition).toMatchObject({
      Cpu: '512',
      Memory: '2048',
      RuntimePlatform: { OperatingSystemFamily: 'LINUX', CpuArchitecture: 'ARM64' },
    });
    const poller = container(resources);
    expect(poller.StopTimeout).toBe(60);
    expect(poller.Environment).toContainEqual({ Name: 'LOG_LEVEL', Value: 'debug' });
    const secretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-acl-AbCdEf';
    expect(poller.Secrets).toEqual([
      { Name: 'ROCKETMQ_ACCESS_KEY', ValueFrom: `${secretArn}:accessKey::` },
      { Name: 'ROCKETMQ_SECRET_KEY', ValueFrom: `${secretArn}:secretKey::` },
    ]);
    expect(JSON.stringify(resources)).not.toMatch(/"secretKey"\s*:/);

    const execution = resources[Ids.executionRole];
    expect(statement(execution, 'ReadAclSecret')).toMatchObject({
      Action: 'secretsmanager:GetSecretValue',
      Resource: [secretArn],
    });
    expect(statement(execution, 'DecryptAcl')?.Resource).toBe(
      'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    );

    const task = resources[Ids.taskRole];
    const invoked = statement(task, 'InvokeMappedFunctions')?.Resource as unknown[];
    expect(invoked.filter((r) => JSON.stringify(r).startsWith('{"Fn::GetAtt"'))).toEqual([
      { 'Fn::GetAtt': ['OrdersLambdaFunction', 'Arn'] },
      { 'Fn::GetAtt': ['PaymentsLambdaFunction', 'Arn'] },
    ]);
    expect(JSON.stringify(invoked)).not.toContain('AuditLambdaFunction');
    // An intrinsic destination may be either service; a literal one gets its own service's action only.
    expect(statement(task, 'FailureQueues')).toMatchObject({
      Action: 'sqs:SendMessage',
      Resource: [{ 'Fn::GetAtt': ['FailuresQueue', 'Arn'] }],
    });
    expect(statement(task, 'FailureTopics')).toMatchObject({
      Action: 'sns:Publish',
      Resource: [
        { 'Fn::GetAtt': ['FailuresQueue', 'Arn'] },
        'arn:aws:sns:eu-west-1:123456789012:payment-failures',
      ],
    });

    expect(resources[Ids.service]?.Properties).toMatchObject({
      NetworkConfiguration: {
        AwsvpcConfiguration: {
          Subnets: ['subnet-0f3e2d1c4b5a69788', 'subnet-0e4d3c2b1a0f98765'],
          SecurityGroups: ['sg-0c1d2e3f4a5b69788'],
          AssignPublicIp: 'DISABLED',
        },
      },
    });
    // Scaling owns the task count: a DesiredCount would reset it at every deploy.
    expect(resources[Ids.service]?.Properties).not.toHaveProperty('DesiredCount');
    expect(resources[Ids.logGroup]?.Properties).toEqual({ RetentionInDays: 30 });
    expect(resources[Ids.scalableTarget]?.Properties).toMatchObject({ MinCapacity: 1, MaxCapacity: 6 });
    const tracking = resources[Ids.scalingPolicy]?.Properties.TargetTrackingScalingPolicyConfiguration as {
      TargetValue: number;
      CustomizedMetricSpecification: { Metrics: { Id: string; Expression?: string }[] };
    };
    expect(tracking.TargetValue).toBe(5000);
    expect(tracking.CustomizedMetricSpecification.Metrics.map((m) => m.Expression ?? m.Id)).toEqual([
      'lag0',
      'lag1',
      'MAX([lag0, lag1])',
    ]);

    const { raw, unexpected } = checkPollerConfig(pollerConfig);
    // The CA file lives in the image; the parser checks it exists, as it will in the task.
    expect(unexpected).toEqual(['tls.caFile: cannot read /app/certs/rocketmq-ca.pem: no such file']);
    expect(raw).toEqual({
      nameServer: ['10.0.0.10:9876', '10.0.0.11:9876'],
      tls: { caFile: '/app/certs/rocketmq-ca.pem', serverName: 'rocketmq.internal' },
      shutdownTimeoutMs: 50_000,
      offsets: { store: 'dynamodb', table: 'rmq-offsets-table' },
      metrics: { emf: {} },
      mappings: [
        {
          topic: 'Orders',
          consumerGroup: 'orders-fn',
          function: 'arn:aws:lambda:eu-west-1:123456789012:function:fn0',
          functionTimeoutMs: 120_000,
          filter: 'TagA || TagB',
          batchSize: 500,
          maximumBatchingWindowMs: 5000,
          maxConcurrency: 8,
          maxReconsumeTimes: 5,
          messageModel: 'CLUSTERING',
          startingPosition: 'AT_TIMESTAMP',
          startingPositionTimestamp: 1735689600,
          bisectBatchOnError: true,
          messageTrace: { topic: 'ORDERS_TRACE' },
          maxRecordAgeSeconds: 3600,
          onFailure: 'arn:aws:sqs:eu-west-1:123456789012:failures0',
        },
        {
          topic: 'Payments',
          consumerGroup: 'payments-fn',
          function: 'arn:aws:lambda:eu-west-1:123456789012:function:fn1',
          functionTimeoutMs: 30_000,
          filter: { sql: 'amount > 100' },
          orderly: true,
          orderlyFailure: 'block',
          startingPosition: 'TRIM_HORIZON',
          onFailure: 'arn:aws:sns:eu-west-1:123456789012:payment-failures',
        },
      ],
    });
  });

  it('reads SSM parameters by name into ECS secrets and grants ssm:GetParameters on their ARNs', () => {
    const { resources } = compileRocketMQResources(
      oneEvent(MINIMAL_EVENT, {
        ...CUSTOM,
        acl: { accessKeyParameter: '/rocketmq/access-key', secretKeyParameter: 'rocketmq-secret-key' },
      }),
    );
    expect(container(resources).Secrets).toEqual([
      { Name: 'ROCKETMQ_ACCESS_KEY', ValueFrom: '/rocketmq/access-key' },
      { Name: 'ROCKETMQ_SECRET_KEY', ValueFrom: 'rocketmq-secret-key' },
    ]);
    expect(statement(resources[Ids.executionRole], 'ReadAclParameters')?.Resource).toEqual([
      {
        'Fn::Sub': `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter/rocketmq/access-key`,
      },
      {
        'Fn::Sub': `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter/rocketmq-secret-key`,
      },
    ]);
  });

  it('uses an existing table and cluster by name, and invokes through an alias when the function has one', () => {
    const input: CompileRocketMQInput = {
      custom: { ...CUSTOM, cluster: 'shared-cluster', offsetsTable: { existing: 'shared-offsets' } },
      stage: 'prod',
      functions: [
        {
          key: 'orders',
          logicalId: 'OrdersLambdaFunction',
          aliasLogicalId: 'OrdersProvConcLambdaAlias',
          events: [{ rocketmq: MINIMAL_EVENT }],
        },
      ],
    };
    const { resources, outputs, pollerConfig } = compileRocketMQResources(input);
    expect(resources[Ids.offsetsTable]).toBeUndefined();
    expect(resources[Ids.cluster]).toBeUndefined();
    expect(resources[Ids.service]?.Properties.Cluster).toBe('shared-cluster');
    expect(outputs.RocketMQOffsetsTableName?.Value).toBe('shared-offsets');
    expect(statement(resources[Ids.taskRole], 'Offsets')?.Resource).toEqual({
      'Fn::Sub': `arn:\${AWS::Partition}:dynamodb:\${AWS::Region}:\${AWS::AccountId}:table/shared-offsets`,
    });
    expect(pollerConfig?.['Fn::Sub'][1]).toEqual({ Function0: { Ref: 'OrdersProvConcLambdaAlias' } });
    expect(pollerConfig?.['Fn::Sub'][0]).toContain('"table":"shared-offsets"');
  });

  it('scales one mapping on its own lag metric, the contract the pollers publish', () => {
    const { resources } = compileRocketMQResources(oneEvent(MINIMAL_EVENT, { ...CUSTOM, maxCount: 4 }));
    expect(resources[Ids.scalableTarget]?.Properties).toMatchObject({
      ServiceNamespace: 'ecs',
      ScalableDimension: 'ecs:service:DesiredCount',
      MinCapacity: 1,
      MaxCapacity: 4,
    });
    expect(resources[Ids.scalingPolicy]?.Properties.TargetTrackingScalingPolicyConfiguration).toMatchObject({
      TargetValue: 1000,
      CustomizedMetricSpecification: {
        Namespace: 'RocketMQLambda',
        MetricName: 'ConsumerLag',
        Dimensions: [{ Name: 'ConsumerGroup', Value: 'orders-fn' }],
        Statistic: 'Average',
      },
    });
  });

  it('leaves a disabled mapping out of the config and the task role; with none enabled only the table stays', () => {
    const input: CompileRocketMQInput = {
      custom: CUSTOM,
      functions: [
        {
          key: 'a',
          logicalId: 'ALambdaFunction',
          events: [{ rocketmq: { ...MINIMAL_EVENT, enabled: false } }],
        },
      ],
    };
    const compiled = compileRocketMQResources(input);
    expect(Object.keys(compiled.resources)).toEqual([Ids.offsetsTable]);
    expect(Object.keys(compiled.outputs)).toEqual(['RocketMQOffsetsTableName']);
    expect(compiled.pollerConfig).toBeUndefined();
  });

  it('escapes ${ in literal text so Fn::Sub leaves it alone', () => {
    const { pollerConfig } = compileRocketMQResources(
      oneEvent({ ...MINIMAL_EVENT, filter: { sql: `a = '\${x}'` } }),
    );
    expect(pollerConfig?.['Fn::Sub'][0]).toContain(`"sql":"a = '\${!x}'"`);
    if (pollerConfig === undefined) throw new Error('no poller config');
    expect(checkPollerConfig(pollerConfig).raw.mappings).toMatchObject([{ filter: { sql: `a = '\${x}'` } }]);
  });
});

describe('compileRocketMQResources: bad options name their key', () => {
  const at = 'functions.orders.events[0].rocketmq';

  it('an unknown event key, with a suggestion', () => {
    expect(problemsOf(oneEvent({ ...MINIMAL_EVENT, batchsize: 10 }))).toEqual([
      `${at}.batchsize: unknown key (did you mean batchSize?)`,
    ]);
  });

  it('out of range, wrong type, wrong enum value, missing required keys', () => {
    expect(problemsOf(oneEvent({ topic: 'Orders', batchSize: 20_000 }))).toEqual([
      `${at}.consumerGroup: required`,
      `${at}.batchSize: must be ≤ 10000, got 20000`,
    ]);
    expect(problemsOf(oneEvent({ ...MINIMAL_EVENT, maximumBatchingWindow: '5' }))).toEqual([
      `${at}.maximumBatchingWindow: must be a number, got "5"`,
    ]);
    expect(problemsOf(oneEvent({ ...MINIMAL_EVENT, startingPosition: 'latest' }))).toEqual([
      `${at}.startingPosition: must be one of LATEST, TRIM_HORIZON, AT_TIMESTAMP, got "latest" (did you mean LATEST?)`,
    ]);
  });

  it('cross-key rules: AT_TIMESTAMP, orderlyFailure, maxRecordAge, tag expressions, onFailure', () => {
    expect(
      problemsOf(
        oneEvent({
          ...MINIMAL_EVENT,
          startingPosition: 'AT_TIMESTAMP',
          orderlyFailure: 'skip',
          maxRecordAge: 30,
          filter: '||',
          onFailure: 'arn:aws:lambda:eu-west-1:123456789012:function:f',
        }),
      ),
    ).toEqual([
      `${at}.onFailure: must be an SQS queue ARN, SNS topic ARN or S3 bucket ARN (arn:aws:s3:::<bucket>[/<key prefix>])`,
    ]);
    expect(
      problemsOf(
        oneEvent({
          ...MINIMAL_EVENT,
          startingPosition: 'AT_TIMESTAMP',
          orderlyFailure: 'skip',
          maxRecordAge: 30,
          filter: '||',
        }),
      ),
    ).toEqual([
      `${at}.startingPositionTimestamp: required when startingPosition is AT_TIMESTAMP`,
      `${at}.orderlyFailure: only used when orderly is true`,
      `${at}.maxRecordAge: must be -1 (no limit) or 60–604800 seconds, got 30`,
      `${at}.filter: tag expression "||" names no tag (use "*" for all)`,
    ]);
  });

  it('two events of one consumer group', () => {
    const input: CompileRocketMQInput = {
      custom: CUSTOM,
      functions: [
        { key: 'a', logicalId: 'ALambdaFunction', events: [{ rocketmq: MINIMAL_EVENT }] },
        {
          key: 'b',
          logicalId: 'BLambdaFunction',
          events: [{ http: {} }, { rocketmq: { ...MINIMAL_EVENT, topic: 'Other' } }],
        },
      ],
    };
    expect(problemsOf(input)).toEqual([
      'functions.b.events[1].rocketmq.consumerGroup: "orders-fn" is already the group of functions.a.events[0].rocketmq (one event per consumer group)',
    ]);
  });

  it('custom.rocketmq: missing, unknown keys, sizes, counts, acl, table', () => {
    expect(problemsOf({ ...oneEvent(MINIMAL_EVENT), custom: undefined })).toEqual([
      'custom.rocketmq: required when a function has a rocketmq event',
    ]);
    expect(
      problemsOf(
        oneEvent(MINIMAL_EVENT, { nameServers: 'ns:9876', vpc: { subnetIds: [], subnetID: 'x' }, imag: 'x' }),
      ),
    ).toEqual([
      'custom.rocketmq.vpc.subnetIds: must have at least 1 entry',
      'custom.rocketmq.vpc.subnetID: unknown key (did you mean subnetIds?)',
      'custom.rocketmq.imag: unknown key (did you mean image?)',
    ]);
    expect(
      problemsOf(
        oneEvent(MINIMAL_EVENT, {
          ...CUSTOM,
          cpu: 256,
          memory: 4096,
          minCount: 3,
          maxCount: 2,
          acl: {
            secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:s-AbCdEf',
            accessKeyParameter: '/a',
          },
          offsetsTable: { existing: 'shared-offsets', retain: true },
          logRetentionInDays: 10,
        }),
      ),
    ).toEqual([
      'custom.rocketmq.acl: use either secretArn or accessKeyParameter + secretKeyParameter, not both',
      'custom.rocketmq.memory: with cpu 256 must be 512, 1024 or 2048 (MiB), got 4096',
      'custom.rocketmq.offsetsTable.retain: only used for a new table (not with existing)',
      'custom.rocketmq.logRetentionInDays: must be one of 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653, got 10',
      'custom.rocketmq.minCount: must be ≤ maxCount (2), got 3',
    ]);
  });

  it('reports event and custom problems together, in one error', () => {
    const error = (() => {
      try {
        compileRocketMQResources(oneEvent({ ...MINIMAL_EVENT, batchSize: 0 }, { ...CUSTOM, cpu: 300 }));
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(RocketMQPluginError);
    expect((error as RocketMQPluginError).message).toBe(
      [
        'Invalid rocketmq configuration:',
        `  ${at}.batchSize: must be ≥ 1, got 0`,
        '  custom.rocketmq.cpu: must be one of 256, 512, 1024, 2048, 4096, 8192, 16384, got 300',
      ].join('\n'),
    );
  });
});
