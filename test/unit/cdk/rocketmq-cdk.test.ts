/**
 * The CDK face (src/cdk): RocketMQPoller and RocketMQEventSource synthesized with aws-cdk-lib's own
 * assertions. What the compiler decides (every resource's shape) has its tests in test/unit/serverless;
 * these check what the CDK face adds: tokens through the compiler and back, references between the
 * rendered resources, problems named after the props, the escape hatches, and the rules of a stack.
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { describe, expect, it } from 'vitest';
import {
  RocketMQEventSource,
  RocketMQLogicalIds,
  RocketMQPluginError,
  RocketMQPoller,
  type RocketMQPollerProps,
} from '../../../src/cdk/index.js';
import { renderPollerConfig } from '../../../src/serverless/poller-config-template.js';
import { POLLER_METRICS } from '../../../src/serverless/poller-metrics.js';

const ENV = { account: '111122223333', region: 'eu-west-1' };

interface Fixture {
  readonly stack: Stack;
  readonly vpc: ec2.Vpc;
  readonly fn: lambda.Function;
}

function fixture(timeout?: Duration): Fixture {
  const stack = new Stack(new App(), 'Orders', { env: ENV });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  const fn = new lambda.Function(stack, 'OrdersFn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    ...(timeout === undefined ? {} : { timeout }),
  });
  return { stack, vpc, fn };
}

function poller(f: Fixture, props: Partial<RocketMQPollerProps> = {}): RocketMQPoller {
  return new RocketMQPoller(f.stack, 'Poller', { nameServers: '10.0.0.10:9876', vpc: f.vpc, ...props });
}

/** The logical id CDK gave the rendered resource of compiled id `compiledId`. */
function logicalIdOf(p: RocketMQPoller, compiledId: string): string {
  const resource = p.resource(compiledId);
  if (resource === undefined) throw new Error(`no ${compiledId}`);
  return Stack.of(p).resolve(resource.logicalId) as string;
}

function resourcesOfType(
  template: Template,
  type: string,
): Record<string, { Properties: Record<string, unknown> }> {
  return template.findResources(type) as Record<string, { Properties: Record<string, unknown> }>;
}

/** The run config of the synthesized task definition, with `${Var}` filled with `<Var>`. */
function runConfig(template: Template): Record<string, unknown> {
  const [taskDefinition] = Object.values(resourcesOfType(template, 'AWS::ECS::TaskDefinition'));
  if (taskDefinition === undefined) throw new Error('the synthesized template has no task definition');
  const [container] = taskDefinition.Properties.ContainerDefinitions as {
    Environment: { Name: string; Value: unknown }[];
  }[];
  const value = container?.Environment.find((e) => e.Name === 'ROCKETMQ_LAMBDA_CONFIG')?.Value as {
    'Fn::Sub': [string, Record<string, unknown>];
  };
  const [text, variables] = value['Fn::Sub'];
  const values = Object.fromEntries(Object.keys(variables).map((name) => [name, `<${name}>`]));
  return JSON.parse(renderPollerConfig({ 'Fn::Sub': [text, values] }, values)) as Record<string, unknown>;
}

// The first synthesis loads aws-cdk-lib's modules (seconds on a busy machine).
describe('RocketMQEventSource and RocketMQPoller', { timeout: 60_000 }, () => {
  it('renders the compiled resources with CDK logical ids and references between them', () => {
    const f = fixture(Duration.seconds(30));
    const p = poller(f);
    f.fn.addEventSource(new RocketMQEventSource({ poller: p, topic: 'Orders', consumerGroup: 'orders-fn' }));
    const template = Template.fromStack(f.stack);

    expect(p.compiledIds).toEqual(
      expect.arrayContaining([
        RocketMQLogicalIds.offsetsTable,
        RocketMQLogicalIds.cluster,
        RocketMQLogicalIds.service,
        RocketMQLogicalIds.scalingPolicy,
        RocketMQLogicalIds.dashboard,
      ]),
    );
    const taskDefinitionId = logicalIdOf(p, RocketMQLogicalIds.taskDefinition);
    expect(taskDefinitionId).toMatch(/^PollerRocketMQPollerTaskDefinition[0-9A-F]{8}$/);
    template.hasResourceProperties('AWS::ECS::Service', {
      TaskDefinition: { Ref: taskDefinitionId },
      Cluster: { Ref: logicalIdOf(p, RocketMQLogicalIds.cluster) },
      NetworkConfiguration: {
        AwsvpcConfiguration: {
          // The VPC's private subnets (CDK's default selection) and the poller's own security group.
          Subnets: [
            { Ref: Match.stringLikeRegexp('^VpcPrivateSubnet1') },
            { Ref: Match.stringLikeRegexp('^VpcPrivateSubnet2') },
          ],
          SecurityGroups: [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^PollerSecurityGroup'), 'GroupId'] }],
        },
      },
    });
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ExecutionRoleArn: { 'Fn::GetAtt': [logicalIdOf(p, RocketMQLogicalIds.executionRole), 'Arn'] },
      TaskRoleArn: { 'Fn::GetAtt': [logicalIdOf(p, RocketMQLogicalIds.taskRole), 'Arn'] },
    });
    // The table is retained, as the plugin's: the offsets outlive the stack.
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    // No placeholder and no compiled logical id is left in the template.
    const json = JSON.stringify(template.toJSON());
    expect(json).not.toMatch(/RocketMQCdkToken/);
    expect(json).not.toMatch(/"Ref":"RocketMQ|"Fn::GetAtt":\["RocketMQ/);
  });

  it('gives the function its ARN, timeout and CDK-typed props in the run config', () => {
    const f = fixture(Duration.seconds(45));
    const p = poller(f);
    const failures = new sqs.Queue(f.stack, 'Failures');
    f.fn.addEventSource(
      new RocketMQEventSource({
        poller: p,
        topic: 'Orders',
        consumerGroup: 'orders-fn',
        batchSize: 50,
        maxBatchingWindow: Duration.seconds(2),
        maxRecordAge: Duration.hours(1),
        onFailure: failures,
        filter: 'paid || refunded',
        messageTrace: { topic: 'ORDERS_TRACE' },
        // aws-cdk-lib's own enum, as its Kafka sources take it.
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      }),
    );
    const template = Template.fromStack(f.stack);
    const config = runConfig(template);
    const [mapping] = config.mappings as Record<string, unknown>[];
    expect(mapping).toMatchObject({
      topic: 'Orders',
      consumerGroup: 'orders-fn',
      batchSize: 50,
      maximumBatchingWindowMs: 2000,
      maxRecordAgeSeconds: 3600,
      functionTimeoutMs: 45_000,
      filter: 'paid || refunded',
      messageTrace: { topic: 'ORDERS_TRACE' },
      startingPosition: 'TRIM_HORIZON',
    });
    // Tokens went through the compiler as placeholders and came back as the references they are.
    const [taskDefinition] = Object.values(resourcesOfType(template, 'AWS::ECS::TaskDefinition'));
    const variables = JSON.stringify(taskDefinition?.Properties.ContainerDefinitions);
    const fnId = Stack.of(f.fn).resolve((f.fn.node.defaultChild as lambda.CfnFunction).logicalId) as string;
    expect(variables).toContain(JSON.stringify({ 'Fn::GetAtt': [fnId, 'Arn'] }));
    const failuresId = Stack.of(failures).resolve(
      (failures.node.defaultChild as sqs.CfnQueue).logicalId,
    ) as string;
    // A queue's ARN is spelled out (as the bucket's), so the role names its service only: no
    // sns:Publish nor s3:PutObject on a queue's ARN.
    const failuresArn = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          `:sqs:${ENV.region}:${ENV.account}:`,
          { 'Fn::GetAtt': [failuresId, 'QueueName'] },
        ],
      ],
    };
    expect(variables).toContain(JSON.stringify(failuresArn));
    const roles = JSON.stringify(resourcesOfType(template, 'AWS::IAM::Role'));
    expect(roles).not.toMatch(/"Sid":"Failure(Topics|Objects)"/);
    template.hasResourceProperties('AWS::IAM::Role', {
      Policies: [
        {
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({
                Sid: 'InvokeMappedFunctions',
                Resource: Match.arrayWith([{ 'Fn::GetAtt': [fnId, 'Arn'] }]),
              }),
              Match.objectLike({ Sid: 'FailureQueues', Resource: [failuresArn] }),
            ]),
          },
        },
      ],
    });
  });

  it("takes a function's default timeout (3 s) and needs one for an imported function", () => {
    const f = fixture();
    const p = poller(f);
    f.fn.addEventSource(new RocketMQEventSource({ poller: p, topic: 'Orders', consumerGroup: 'orders-fn' }));
    const imported = lambda.Function.fromFunctionArn(
      f.stack,
      'Imported',
      'arn:aws:lambda:eu-west-1:111122223333:function:payments',
    );
    expect(() =>
      imported.addEventSource(
        new RocketMQEventSource({ poller: p, topic: 'Payments', consumerGroup: 'payments-fn' }),
      ),
    ).toThrow(
      /RocketMQEventSource\(Orders\/Imported\)\.functionTimeout: required for a function this app does not define/,
    );
    imported.addEventSource(
      new RocketMQEventSource({
        poller: p,
        topic: 'Payments',
        consumerGroup: 'payments-fn',
        functionTimeout: Duration.minutes(2),
      }),
    );
    const mappings = runConfig(Template.fromStack(f.stack)).mappings as Record<string, unknown>[];
    expect(mappings.map((m) => [m.consumerGroup, m.functionTimeoutMs, m.function])).toEqual([
      ['orders-fn', 3000, '<Function0>'],
      ['payments-fn', 120_000, 'arn:aws:lambda:eu-west-1:111122223333:function:payments'],
    ]);
  });

  it('invokes through an alias and grants the function and its qualifiers', () => {
    const f = fixture(Duration.seconds(10));
    const p = poller(f);
    const alias = new lambda.Alias(f.stack, 'Live', { aliasName: 'live', version: f.fn.currentVersion });
    alias.addEventSource(new RocketMQEventSource({ poller: p, topic: 'Orders', consumerGroup: 'orders-fn' }));
    const template = Template.fromStack(f.stack);
    const aliasId = Stack.of(alias).resolve((alias.node.defaultChild as lambda.CfnAlias).logicalId) as string;
    const [taskDefinition] = Object.values(resourcesOfType(template, 'AWS::ECS::TaskDefinition'));
    expect(JSON.stringify(taskDefinition?.Properties.ContainerDefinitions)).toContain(
      JSON.stringify({ Ref: aliasId }),
    );
    const fnId = Stack.of(f.fn).resolve((f.fn.node.defaultChild as lambda.CfnFunction).logicalId) as string;
    template.hasResourceProperties('AWS::IAM::Role', {
      Policies: [
        {
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({
                Sid: 'InvokeMappedFunctions',
                Resource: [
                  { 'Fn::GetAtt': [fnId, 'Arn'] },
                  // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own syntax
                  { 'Fn::Sub': ['${Arn}:*', { Arn: { 'Fn::GetAtt': [fnId, 'Arn'] } }] },
                ],
              }),
            ]),
          },
        },
      ],
    });
  });

  it('adds resources per group as mappings are added, and one scaling for all', () => {
    const f = fixture(Duration.seconds(10));
    const p = poller(f, { alarms: { messageAge: Duration.minutes(10) } });
    f.fn.addEventSource(new RocketMQEventSource({ poller: p, topic: 'Orders', consumerGroup: 'orders-fn' }));
    const second = new lambda.Function(f.stack, 'Refunds', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    });
    second.addEventSource(
      new RocketMQEventSource({ poller: p, topic: 'Refunds', consumerGroup: 'refunds-fn' }),
    );
    const template = Template.fromStack(f.stack);
    template.resourceCountIs('AWS::CloudWatch::Alarm', 8);
    template.resourceCountIs('AWS::ECS::Service', 1);
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 1);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 600,
      Dimensions: [{ Name: POLLER_METRICS.dimension, Value: 'refunds-fn' }],
    });
  });

  it('takes secrets, SSM parameters by name, a KMS key, TLS material and alarm topics as CDK objects', () => {
    const f = fixture(Duration.seconds(10));
    const ca = new secretsmanager.Secret(f.stack, 'Ca');
    const topic = new sns.Topic(f.stack, 'Alarms');
    const p = poller(f, {
      acl: {
        accessKeyParameter: ssm.StringParameter.fromSecureStringParameterAttributes(f.stack, 'Ak', {
          parameterName: '/rocketmq/access-key',
        }),
        secretKeyParameter: '/rocketmq/secret-key',
      },
      tls: { caSecret: ca, serverName: 'broker.internal' },
      alarms: { topics: [topic] },
    });
    f.fn.addEventSource(new RocketMQEventSource({ poller: p, topic: 'Orders', consumerGroup: 'orders-fn' }));
    const template = Template.fromStack(f.stack);
    const caId = Stack.of(ca).resolve((ca.node.defaultChild as secretsmanager.CfnSecret).logicalId) as string;
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [
        Match.objectLike({
          Secrets: Match.arrayWith([
            { Name: 'ROCKETMQ_ACCESS_KEY', ValueFrom: '/rocketmq/access-key' },
            { Name: 'ROCKETMQ_SECRET_KEY', ValueFrom: '/rocketmq/secret-key' },
            { Name: 'ROCKETMQ_TLS_CA', ValueFrom: { Ref: caId } },
          ]),
        }),
      ],
    });
    expect(runConfig(template).tls).toEqual({ serverName: 'broker.internal' });
    const topicId = Stack.of(topic).resolve((topic.node.defaultChild as sns.CfnTopic).logicalId) as string;
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmActions: [{ Ref: topicId }] });
  });

  it('runs in a given cluster with given security groups, and connects like any CDK service', () => {
    const f = fixture(Duration.seconds(10));
    const cluster = new ecs.Cluster(f.stack, 'Cluster', { vpc: f.vpc });
    const group = new ec2.SecurityGroup(f.stack, 'Tasks', { vpc: f.vpc });
    const broker = new ec2.SecurityGroup(f.stack, 'Broker', { vpc: f.vpc });
    const p = poller(f, {
      cluster,
      securityGroups: [group],
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
      assignPublicIp: true,
    });
    broker.connections.allowFrom(p, ec2.Port.tcp(10911));
    f.fn.addEventSource(new RocketMQEventSource({ poller: p, topic: 'Orders', consumerGroup: 'orders-fn' }));
    const template = Template.fromStack(f.stack);
    template.resourceCountIs('AWS::ECS::Cluster', 1);
    const groupId = Stack.of(group).resolve(
      (group.node.defaultChild as ec2.CfnSecurityGroup).logicalId,
    ) as string;
    template.hasResourceProperties('AWS::ECS::Service', {
      Cluster: { Ref: Match.stringLikeRegexp('^Cluster') },
      NetworkConfiguration: {
        AwsvpcConfiguration: {
          AssignPublicIp: 'ENABLED',
          Subnets: [
            { Ref: Match.stringLikeRegexp('^VpcPublicSubnet1') },
            { Ref: Match.stringLikeRegexp('^VpcPublicSubnet2') },
          ],
          SecurityGroups: [{ 'Fn::GetAtt': [groupId, 'GroupId'] }],
        },
      },
    });
    template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      FromPort: 10911,
      SourceSecurityGroupId: { 'Fn::GetAtt': [groupId, 'GroupId'] },
    });
  });

  it('exposes the service, roles, table and log group as escape hatches', () => {
    const f = fixture(Duration.seconds(10));
    const p = poller(f);
    expect(() => p.taskRole).toThrow(/has no RocketMQPollerTaskRole before a RocketMQEventSource is added/);
    f.fn.addEventSource(new RocketMQEventSource({ poller: p, topic: 'Orders', consumerGroup: 'orders-fn' }));
    p.taskRole.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['xray:PutTraceSegments'], resources: ['*'] }),
    );
    const reader = new iam.Role(f.stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() });
    p.offsetsTable.grantReadData(reader);
    p.service.addPropertyOverride('EnableExecuteCommand', true);
    expect(p.logGroup.logGroupName).toBeDefined();
    const template = Template.fromStack(f.stack);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: [Match.objectLike({ Action: 'xray:PutTraceSegments', Resource: '*' })] },
      Roles: [{ 'Fn::Select': [1, { 'Fn::Split': ['/', Match.anyValue()] }] }],
    });
    template.hasResourceProperties('AWS::ECS::Service', { EnableExecuteCommand: true });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Resource: Match.arrayWith([
              { 'Fn::GetAtt': [logicalIdOf(p, RocketMQLogicalIds.offsetsTable), 'Arn'] },
            ]),
          }),
        ]),
      },
    });
  });

  it('takes filters as FilterCriteria.filter makes them, objects and JSON strings; refuses a bad one by its prop path', () => {
    const f = fixture(Duration.seconds(10));
    const p = poller(f);
    expect(() =>
      f.fn.addEventSource(
        new RocketMQEventSource({
          poller: p,
          topic: 'Orders',
          consumerGroup: 'orders-fn',
          filters: [{ body: { amount: [{ numeric: ['>', 'ten'] }] } }],
        }),
      ),
    ).toThrow(/RocketMQEventSource\(Orders\/OrdersFn\)\.filters\[0\]\.body\.amount\[0\]\.numeric: /);
    f.fn.addEventSource(
      new RocketMQEventSource({
        poller: p,
        topic: 'Orders',
        consumerGroup: 'orders-fn',
        filter: 'TagA',
        filters: [
          lambda.FilterCriteria.filter({ body: { status: lambda.FilterRule.isEqual('paid') } }),
          { tags: ['vip'] },
          '{"keys": [{"prefix": "order-"}]}',
        ],
      }),
    );
    const [mapping] = runConfig(Template.fromStack(f.stack)).mappings as {
      filter: unknown;
      filters: unknown;
    }[];
    expect(mapping?.filter).toBe('TagA');
    expect(mapping?.filters).toEqual([
      '{"body":{"status":["paid"]}}',
      '{"tags":["vip"]}',
      '{"keys": [{"prefix": "order-"}]}',
    ]);
  });

  it('names the prop of every problem', () => {
    const f = fixture(Duration.seconds(10));
    expect(() => poller(f, { cpu: 300 })).toThrow(/RocketMQPoller\(Orders\/Poller\)\.cpu: /);
    expect(() => poller(f, { nameServers: '127.0.0.1:9876' })).toThrow(RocketMQPluginError);
    const p = poller(f);
    expect(() =>
      f.fn.addEventSource(
        new RocketMQEventSource({
          poller: p,
          topic: 'Orders',
          consumerGroup: 'orders-fn',
          maxBatchingWindow: Duration.millis(1500),
          batchSize: 0,
        }),
      ),
    ).toThrow(
      /\n {2}RocketMQEventSource\(Orders\/OrdersFn\)\.batchSize: must be ≥ 1, got 0\n {2}RocketMQEventSource\(Orders\/OrdersFn\)\.maxBatchingWindow: must be an integer, got 1\.5$/,
    );
    f.fn.addEventSource(new RocketMQEventSource({ poller: p, topic: 'Orders', consumerGroup: 'orders-fn' }));
    const other = new lambda.Function(f.stack, 'Other', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    });
    expect(() =>
      other.addEventSource(
        new RocketMQEventSource({ poller: p, topic: 'Orders', consumerGroup: 'orders-fn' }),
      ),
    ).toThrow(
      /RocketMQEventSource\(Orders\/Other\)\.consumerGroup: "orders-fn" is already the group of RocketMQEventSource\(Orders\/OrdersFn\)/,
    );
    // A refused mapping leaves nothing behind: the stack still synthesizes with the first one only.
    expect(runConfig(Template.fromStack(f.stack)).mappings).toHaveLength(1);
  });

  it("pulls the published image through an ECR pull-through cache rule, with a credential secret's ARN as a token", () => {
    const f = fixture(Duration.seconds(10));
    const credential = new secretsmanager.Secret(f.stack, 'GhcrCredential', {
      secretName: 'ecr-pullthroughcache/ghcr',
    });
    const p = poller(f, {
      image: { pullThroughCache: { upstream: 'ghcr', credentialArn: credential.secretArn } },
    });
    f.fn.addEventSource(new RocketMQEventSource({ poller: p, topic: 'Orders', consumerGroup: 'orders-fn' }));
    const template = Template.fromStack(f.stack);
    const ruleId = logicalIdOf(p, RocketMQLogicalIds.pullThroughCacheRule);
    template.hasResourceProperties('AWS::ECR::PullThroughCacheRule', {
      EcrRepositoryPrefix: 'rocketmq-lambda',
      UpstreamRegistry: 'github-container-registry',
      UpstreamRegistryUrl: 'ghcr.io',
      CredentialArn: { Ref: Match.stringLikeRegexp('^GhcrCredential') },
    });
    template.hasResource('AWS::ECS::TaskDefinition', {
      DependsOn: Match.arrayWith([ruleId]),
      Properties: {
        ContainerDefinitions: [
          Match.objectLike({
            Image: {
              'Fn::Sub': Match.stringLikeRegexp(
                '^\\$\\{AWS::AccountId\\}\\.dkr\\.ecr\\.\\$\\{AWS::Region\\}\\.\\$\\{AWS::URLSuffix\\}/rocketmq-lambda/rocketmq-lambda/rocketmq-lambda:',
              ),
            },
          }),
        ],
      },
    });
  });

  it('refuses a second poller in a stack, a poller without mappings, an image built at deploy', () => {
    const f = fixture(Duration.seconds(10));
    poller(f);
    expect(() => new RocketMQPoller(f.stack, 'Again', { nameServers: '10.0.0.10:9876', vpc: f.vpc })).toThrow(
      /Orders\/Poller is already the RocketMQ poller of stack Orders/,
    );
    expect(() => Template.fromStack(f.stack)).toThrow(/no RocketMQEventSource uses this poller/);
    const g = fixture(Duration.seconds(10));
    expect(() => poller(g, { image: { build: true } as never })).toThrow(
      /RocketMQPoller\(Orders\/Poller\)\.image: /,
    );
  });

  it('refuses a parameter whose name is known only at deploy', () => {
    const f = fixture(Duration.seconds(10));
    const created = new ssm.StringParameter(f.stack, 'Created', { stringValue: 'x' });
    expect(() =>
      poller(f, { acl: { accessKeyParameter: created, secretKeyParameter: '/rocketmq/secret-key' } }),
    ).toThrow(
      /RocketMQPoller\(Orders\/Poller\)\.acl\.accessKeyParameter: the parameter's name is not known at synth/,
    );
  });
});
