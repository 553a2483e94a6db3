/**
 * `serverless deploy` end to end against an AWS API emulator: osls (the Framework v3 line) deploys the
 * example service (the repository's serverless.yml, unchanged) and a fixture with what the example lacks
 * (an ACL secret given by partial ARN, onFailure destinations, a disabled mapping, a function without
 * events) and one whose image comes through an ECR pull-through cache to moto's server, whose
 * CloudFormation creates the resources in its other services. The stack
 * is then read back from those services' APIs, as an operator would check a real deploy:
 * - the task definition's ROCKETMQ_LAMBDA_CONFIG, with the ACL secret filled from Secrets Manager as ECS
 *   does, is accepted by the poller's own loadConfigFromEnv and names the deployed functions and table;
 * - the roles' policies name exactly the mapped functions, the table, the destinations, the log group and
 *   the secret (a partial ARN's `-??????` matching the real secret);
 * - the offsets table has the offsets key schema;
 * - the dashboard CloudWatch stores is valid JSON naming every mapped group, the region and the deployed
 *   cluster and service;
 * - `serverless remove` deletes the stack.
 *
 * moto does not implement every resource type, nor every property of those it does: MOTO_CLOUDFORMATION
 * (moto-coverage.ts) states what it makes of each; the tests measure it and compare. moto skips the
 * Application Auto Scaling target and policy, the CloudWatch alarms (and the Framework's bucket policy):
 * cfn-lint, run here on the templates deployed, plus the unit tests of the compiled alarms, is all the
 * checking they get, as are the properties moto drops. moto has no ECR pull-through cache either: it skips
 * the rule; the resolved image and the execution role's rights on the cached repository are checked.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  groupLogicalIds,
  RocketMQLogicalIds as Ids,
  RocketMQAlarmIdPrefixes,
} from '../../../src/serverless/logical-ids.js';
import { packageVersion, publishedImage } from '../../../src/serverless/published-image.js';
import { type CfnLintFinding, cfnLint, formatFindings } from '../../support/cfn-lint.js';
import { MOTO_CLIENT_CONFIG, type MotoServerHandle, startMotoServer } from '../../support/moto-server.js';
import { type AwsClients, awsClients } from './aws-clients.js';
import { APPLICATION_AUTOSCALING_API, callJsonApi, SECRETS_MANAGER_API } from './aws-json-api.js';
import { type DeployedStack, describeStack, stackStatus } from './deployed-stack.js';
import {
  createdOutcomes,
  deletionOutcomes,
  droppedProperties,
  expectedCreation,
  expectedDeletion,
  expectedDropped,
  type PollerIds,
  type PollerSettings,
  type TemplateResources,
  unsupportedTypes,
} from './moto-coverage.js';
import { OFFSETS_ACTIONS } from './poller-statements.js';
import { describeTaskDefinition, pollerConfigOf } from './poller-task.js';
import { dashboardBody, functionArn, logGroupArn, queueArn, tableArn } from './resource-lookups.js';
import { iamResourceMatches, type PolicyStatement, roleWithPolicy, statement } from './role-policy.js';
import {
  REPO_ROOT,
  type ServerlessService,
  type ServiceSource,
  serviceDirectory,
} from './serverless-service.js';

const STAGE = 'e2e';
const DEPLOY_TIMEOUT_MS = 300_000;
const ACL = { accessKey: 'rocketmq-access-key', secretKey: 'rocketmq-secret-key' };
/** The poller's subnet in both services (the example's from ROCKETMQ_LAMBDA_SUBNET, the fixture's in its file). */
const SUBNET = 'subnet-0f3e2d1c4b5a69788';
/** The poller task both services get (the plugin's defaults): only the log retention differs. */
const DEFAULT_TASK: Omit<PollerSettings, 'logRetentionInDays'> = {
  cpu: '256',
  memory: '512',
  cpuArchitecture: 'X86_64',
  subnets: [SUBNET],
};
const PLUGIN_IDS: PollerIds = {
  table: Ids.offsetsTable,
  logGroup: Ids.logGroup,
  taskDefinition: Ids.taskDefinition,
  service: Ids.service,
  cluster: Ids.cluster,
  executionRole: Ids.executionRole,
  taskRole: Ids.taskRole,
};
/** What moto skips in these stacks (its warning names each type). */
const SKIPPED_TYPES = [
  'AWS::ApplicationAutoScaling::ScalableTarget',
  'AWS::ApplicationAutoScaling::ScalingPolicy',
  'AWS::CloudWatch::Alarm',
  'AWS::S3::BucketPolicy',
];

let moto: MotoServerHandle | undefined;
let aws: AwsClients | undefined;
/** The ACL secret's full ARN (with Secrets Manager's random suffix). */
let aclSecretArn = '';
const timings: string[] = [];

beforeAll(async () => {
  moto = await startMotoServer();
  aws = awsClients({ endpoint: moto.endpoint, ...MOTO_CLIENT_CONFIG });
  const created = await callJsonApi(aws.target, SECRETS_MANAGER_API, 'CreateSecret', {
    Name: 'rocketmq/acl',
    SecretString: JSON.stringify(ACL),
  });
  aclSecretArn = String((created as { ARN?: unknown }).ARN);
}, 600_000);

afterAll(async () => {
  process.stdout.write(`[serverless deploy on moto] ${timings.join('; ')}\n`);
  aws?.destroy();
  await moto?.close();
});

function started(): { moto: MotoServerHandle; aws: AwsClients } {
  if (moto === undefined || aws === undefined) throw new Error('moto did not start');
  return { moto, aws };
}

/** One service deployed in the describe's beforeAll; its tests read the outcome. */
interface Deployment {
  readonly service: ServerlessService;
  /** The template the deploy compiled. */
  readonly resources: TemplateResources;
  readonly stack: DeployedStack;
  /**
   * cfn-lint of the deployed template, started as soon as the deploy is read back: it needs nothing
   * else, so it runs while the describe's first checks read moto's APIs.
   */
  readonly lint: Promise<{ findings: CfnLintFinding[] } | { error: unknown }> | undefined;
}

/** Deploys `source` (a service named `serviceName`) before the describe's tests. */
function useDeployment(
  title: string,
  serviceName: string,
  source: ServiceSource,
  env: () => Record<string, string>,
  options: { readonly lint?: boolean } = {},
): () => Deployment {
  let deployment: Deployment | undefined;
  let failure: string | undefined;
  beforeAll(async () => {
    const { moto, aws } = started();
    const service = await serviceDirectory(source, {
      endpoint: moto.endpoint,
      region: MOTO_CLIENT_CONFIG.region,
      env: env(),
    });
    const deployed = await service.run(['deploy', '--stage', STAGE]);
    timings.push(`${title}: deploy ${deployed.durationMs} ms (exit ${deployed.exitCode})`);
    if (deployed.exitCode !== 0) {
      failure = `serverless deploy of ${title} failed (exit ${deployed.exitCode}):\n${deployed.output}`;
      return;
    }
    const template = (await service.readTemplate()) as { Resources: TemplateResources };
    const stack = await describeStack(aws, `${serviceName}-${STAGE}`);
    const lint =
      options.lint === true
        ? cfnLint([service.templateFile]).then(
            (findings) => ({ findings }),
            (error: unknown) => ({ error }),
          )
        : undefined;
    deployment = { service, resources: template.Resources, stack, lint };
  }, DEPLOY_TIMEOUT_MS);
  afterAll(async () => {
    await deployment?.service.remove();
  });
  return () => {
    if (deployment === undefined) throw new Error(failure ?? `${title} was not deployed`);
    return deployment;
  };
}

/**
 * The checks every deployed service gets: the stack, moto's outcome per resource, the table, the alarms
 * and the dashboard of the enabled `groups`, lint.
 */
function stackChecks(
  deployment: () => Deployment,
  settings: PollerSettings,
  groups: readonly string[],
): void {
  it('deploys: the stack is created, then updated to the whole template; each resource as moto handles its type', () => {
    const { stack, resources } = deployment();
    // The Framework creates the stack from its core template (the deployment bucket), then updates it.
    expect(stack.history.filter((status) => status.endsWith('_COMPLETE'))).toEqual([
      'CREATE_COMPLETE',
      'UPDATE_COMPLETE',
    ]);
    expect(stack.status).toBe('UPDATE_COMPLETE');
    expect(createdOutcomes(stack, resources)).toEqual(expectedCreation(resources));
  });

  it('the offsets table has the offsets key schema, on demand; moto drops the properties MOTO_CLOUDFORMATION lists', async () => {
    const { stack, resources } = deployment();
    expect(await droppedProperties(started().aws, stack, PLUGIN_IDS, settings)).toEqual(
      expectedDropped(PLUGIN_IDS, resources),
    );
  });

  it('the dashboard CloudWatch stores is valid JSON naming every group, the region, the cluster and the service', async () => {
    const { aws } = started();
    const { stack } = deployment();
    const body = await dashboardBody(aws, stack.resource(Ids.dashboard).physicalId);
    const { widgets } = JSON.parse(body) as { widgets: { properties: { region: string } }[] };
    expect(widgets).toHaveLength(9);
    for (const widget of widgets) expect(widget.properties.region).toBe(MOTO_CLIENT_CONFIG.region);
    for (const group of groups) {
      for (const metric of [
        'ConsumerLag',
        'OldestMessageAge',
        'DeadLettered',
        'DeadLetterDepth',
        'Unhealthy',
        'FilteredOut',
      ])
        expect(body).toContain(`["RocketMQLambda","${metric}","ConsumerGroup","${group}",`);
    }
    const service = stack.resource(Ids.service).physicalId.split('/').at(-1);
    const cluster = stack.resource(Ids.cluster).physicalId;
    expect(body).toContain(`"ClusterName","${cluster}","ServiceName","${service}"`);
    expect(body).not.toContain('${');
  });

  it('moto skips the scaling target and policy and the alarms (only cfn-lint checks them); cfn-lint passes the deployed template', async () => {
    const { moto, aws } = started();
    const { resources, lint } = deployment();
    expect(unsupportedTypes(resources)).toEqual(SKIPPED_TYPES);
    for (const type of SKIPPED_TYPES) {
      expect(moto.warnings()).toContain(
        `Tried to parse ${type} but it's not supported by moto's CloudFormation implementation`,
      );
    }
    expect(resources[Ids.scalableTarget]?.Type).toBe('AWS::ApplicationAutoScaling::ScalableTarget');
    expect(resources[Ids.scalingPolicy]?.Type).toBe('AWS::ApplicationAutoScaling::ScalingPolicy');
    const alarms = Object.keys(resources).filter((id) => resources[id]?.Type === 'AWS::CloudWatch::Alarm');
    const ids = groupLogicalIds(groups);
    expect(alarms.sort()).toEqual(
      groups
        .flatMap((group) =>
          Object.values(RocketMQAlarmIdPrefixes).map((prefix) => `${prefix}${ids.get(group)}`),
        )
        .sort(),
    );
    const targets = await callJsonApi(aws.target, APPLICATION_AUTOSCALING_API, 'DescribeScalableTargets', {
      ServiceNamespace: 'ecs',
    });
    expect(targets).toMatchObject({ ScalableTargets: [] });
    if (lint === undefined) throw new Error('the deployment was made without { lint: true }');
    const linted = await lint;
    if ('error' in linted) throw linted.error;
    expect(linted.findings, formatFindings(linted.findings)).toEqual([]);
  }, 120_000);
}

/** `serverless remove`: the stack is deleted, each resource as moto deletes its type. */
function removeCheck(title: string, deployment: () => Deployment): void {
  it(
    'serverless remove deletes the stack; each resource as moto deletes its type (a table with DeletionPolicy Retain stays)',
    async () => {
      const { aws } = started();
      const { service, stack, resources } = deployment();
      const removed = await service.run(['remove', '--stage', STAGE]);
      timings.push(`${title}: remove ${removed.durationMs} ms (exit ${removed.exitCode})`);
      expect(removed.exitCode, removed.output).toBe(0);
      expect(await stackStatus(aws, stack.name)).toBe('DELETE_COMPLETE');
      expect(await deletionOutcomes(aws, stack.resources, resources)).toEqual(
        expectedDeletion(stack.resources, resources),
      );
    },
    DEPLOY_TIMEOUT_MS,
  );
}

/** The ARN of the stack's function `logicalId`, from Lambda. */
function arnOfFunction(stack: DeployedStack, logicalId: string): Promise<string> {
  return functionArn(started().aws, stack.resource(logicalId).physicalId);
}

/** The offsets table's ARN, from DynamoDB. */
function tableArnOf(stack: DeployedStack): Promise<string> {
  return tableArn(started().aws, stack.resource(Ids.offsetsTable).physicalId);
}

/** The WriteLogs statement names the poller's log group (moto's GetAtt Arn has no `:*`; AWS's has). */
async function expectLogGroupStatement(
  statements: readonly PolicyStatement[],
  stack: DeployedStack,
): Promise<void> {
  const logs = statement(statements, 'WriteLogs');
  expect(logs.Action).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
  const arn = await logGroupArn(started().aws, stack.resource(Ids.logGroup).physicalId);
  expect([arn, `${arn}:*`]).toContain(logs.Resource);
}

describe('the example service (serverless.yml at the repository root)', () => {
  const deployment = useDeployment(
    'example',
    'rocketmq-lambda-example',
    {
      from: REPO_ROOT,
      copy: ['serverless.yml'],
      // Not the repository's package.json: its name would make `rocketmq-lambda/serverless` resolve to this
      // package's unbuilt dist/ instead of the plugin shim. The handlers are not built either: moto never
      // runs them (the example's zip is the packaging tests' subject).
      write: {
        'package.json': JSON.stringify({ name: 'rocketmq-lambda-example', private: true, type: 'module' }),
      },
    },
    () => ({ ROCKETMQ_NAME_SERVER: '10.0.0.10:9876', ROCKETMQ_LAMBDA_SUBNET: SUBNET }),
    { lint: true },
  );

  stackChecks(deployment, { ...DEFAULT_TASK, logRetentionInDays: 14 }, ['orders-lambda', 'ledger-lambda']);

  it("the task definition's config is accepted by the poller's parser and names the deployed functions and table", async () => {
    const { aws } = started();
    const { stack } = deployment();
    const definition = await describeTaskDefinition(aws, stack.resource(Ids.taskDefinition).physicalId);
    const [poller, ...others] = definition.containerDefinitions;
    expect(others).toEqual([]);
    if (poller === undefined) throw new Error('the task definition has no container');
    expect(poller.name).toBe('poller');
    expect(poller.image).toBe(publishedImage());
    const config = await pollerConfigOf(aws, poller);
    expect(config.nameServerAddresses).toEqual(['10.0.0.10:9876']);
    expect(config.acl).toBeUndefined();
    expect(config.offsets).toMatchObject({
      store: 'dynamodb',
      table: stack.resource(Ids.offsetsTable).physicalId,
    });
    // EMF lines on stdout, shipped by the awslogs driver: no PutMetricData, no CloudWatch right.
    expect(config.metrics.emf).toMatchObject({ namespace: 'RocketMQLambda' });
    expect(config.metrics.cloudwatch).toBeUndefined();
    expect(config.mappings).toMatchObject([
      {
        topic: 'Orders',
        consumerGroup: 'orders-lambda',
        functionRef: await arnOfFunction(stack, 'OrdersLambdaFunction'),
        functionTimeoutMs: 60_000,
        filter: { type: 'TAG', expression: 'order || refund' },
        batchSize: 100,
        maximumBatchingWindowMs: 1000,
        startingPosition: 'TRIM_HORIZON',
        maxReconsumeTimes: 5,
        bisectBatchOnError: true,
        orderly: false,
      },
      {
        topic: 'Ledger',
        consumerGroup: 'ledger-lambda',
        functionRef: await arnOfFunction(stack, 'LedgerLambdaFunction'),
        functionTimeoutMs: 60_000,
        batchSize: 10,
        orderly: true,
        orderlyFailure: 'block',
        startingPosition: 'TRIM_HORIZON',
      },
    ]);
  });

  it('the task role allows exactly the two mapped functions and the table; the execution role the log group', async () => {
    const { aws } = started();
    const { stack } = deployment();
    const orders = await arnOfFunction(stack, 'OrdersLambdaFunction');
    const ledger = await arnOfFunction(stack, 'LedgerLambdaFunction');
    const task = await roleWithPolicy(aws, stack.resource(Ids.taskRole).physicalId, 'rocketmq-poller');
    expect(task.statements).toEqual([
      {
        Sid: 'InvokeMappedFunctions',
        Effect: 'Allow',
        Action: 'lambda:InvokeFunction',
        Resource: [orders, `${orders}:*`, ledger, `${ledger}:*`],
      },
      { Sid: 'Offsets', Effect: 'Allow', Action: [...OFFSETS_ACTIONS], Resource: await tableArnOf(stack) },
    ]);
    const execution = await roleWithPolicy(
      aws,
      stack.resource(Ids.executionRole).physicalId,
      'rocketmq-poller',
    );
    expect([task.nullStatements, execution.nullStatements]).toEqual([0, 0]);
    expect(execution.statements.map((s) => s.Sid)).toEqual(['WriteLogs']);
    await expectLogGroupStatement(execution.statements, stack);
  });

  removeCheck('example', deployment);
});

describe('a service with an ACL secret, failure destinations, a disabled mapping (test/fixtures/deploy/acl-and-destinations)', () => {
  const fixture = path.join(REPO_ROOT, 'test/fixtures/deploy/acl-and-destinations');
  /** The secret's ARN without its random suffix, as the README shows it. */
  const partialSecretArn = () => aclSecretArn.replace(/-[A-Za-z0-9]{6}$/, '');
  const deployment = useDeployment(
    'acl-and-destinations',
    'rmq-deploy',
    { from: fixture, copy: ['serverless.yml', 'handler.js', 'package.json'] },
    () => ({ ROCKETMQ_ACL_SECRET_ARN: partialSecretArn() }),
    { lint: true },
  );

  stackChecks(deployment, { ...DEFAULT_TASK, logRetentionInDays: 30 }, ['orders-fn', 'payments-fn']);

  it("the config is accepted by the poller's parser with the ACL keys ECS fills from the secret, the destinations and timeouts", async () => {
    const { aws } = started();
    const { stack } = deployment();
    expect(partialSecretArn()).not.toBe(aclSecretArn);
    const definition = await describeTaskDefinition(aws, stack.resource(Ids.taskDefinition).physicalId);
    const [poller] = definition.containerDefinitions;
    if (poller === undefined) throw new Error('the task definition has no container');
    expect(poller.secrets).toEqual([
      { name: 'ROCKETMQ_ACCESS_KEY', valueFrom: `${partialSecretArn()}:accessKey::` },
      { name: 'ROCKETMQ_SECRET_KEY', valueFrom: `${partialSecretArn()}:secretKey::` },
    ]);
    const config = await pollerConfigOf(aws, poller);
    expect(config.acl).toEqual(ACL);
    expect(config.nameServerAddresses).toEqual(['10.0.0.10:9876', '10.0.0.11:9876']);
    expect(config.offsets).toMatchObject({ table: stack.resource(Ids.offsetsTable).physicalId });
    expect(config.mappings).toMatchObject([
      {
        consumerGroup: 'orders-fn',
        functionRef: await arnOfFunction(stack, 'OrdersLambdaFunction'),
        functionTimeoutMs: 120_000,
        batchSize: 50,
        onFailure: await queueArn(aws, stack.resource('FailuresQueue').physicalId),
      },
      {
        consumerGroup: 'payments-fn',
        functionRef: await arnOfFunction(stack, 'PaymentsLambdaFunction'),
        functionTimeoutMs: 30_000,
        filter: { type: 'SQL92', expression: 'amount > 100' },
        orderly: true,
        onFailure: stack.resource('PaymentFailuresTopic').physicalId,
      },
    ]);
  });

  it('the task role allows exactly the enabled mappings, the table and the destinations; the execution role the secret by -??????', async () => {
    const { aws } = started();
    const { stack } = deployment();
    const orders = await arnOfFunction(stack, 'OrdersLambdaFunction');
    const payments = await arnOfFunction(stack, 'PaymentsLambdaFunction');
    const queue = await queueArn(aws, stack.resource('FailuresQueue').physicalId);
    const topic = stack.resource('PaymentFailuresTopic').physicalId;
    const task = await roleWithPolicy(aws, stack.resource(Ids.taskRole).physicalId, 'rocketmq-poller');
    expect(task.statements).toEqual([
      {
        Sid: 'InvokeMappedFunctions',
        Effect: 'Allow',
        Action: 'lambda:InvokeFunction',
        Resource: [orders, `${orders}:*`, payments, `${payments}:*`],
      },
      { Sid: 'Offsets', Effect: 'Allow', Action: [...OFFSETS_ACTIONS], Resource: await tableArnOf(stack) },
      // The queue came as Fn::GetAtt: its service was unknown at package time, so each destination
      // service's action names it (S3's on `<ARN>/*`, which matches no object of a queue).
      { Sid: 'FailureQueues', Effect: 'Allow', Action: 'sqs:SendMessage', Resource: [queue] },
      { Sid: 'FailureTopics', Effect: 'Allow', Action: 'sns:Publish', Resource: [queue, topic] },
      { Sid: 'FailureObjects', Effect: 'Allow', Action: 's3:PutObject', Resource: [`${queue}/*`] },
    ]);
    const execution = await roleWithPolicy(
      aws,
      stack.resource(Ids.executionRole).physicalId,
      'rocketmq-poller',
    );
    expect([task.nullStatements, execution.nullStatements]).toEqual([0, 0]);
    expect(execution.statements.map((s) => s.Sid)).toEqual(['WriteLogs', 'ReadAclSecret']);
    await expectLogGroupStatement(execution.statements, stack);
    const secret = statement(execution.statements, 'ReadAclSecret');
    expect(secret).toMatchObject({
      Action: 'secretsmanager:GetSecretValue',
      Resource: [`${partialSecretArn()}-??????`],
    });
    expect(iamResourceMatches(`${partialSecretArn()}-??????`, aclSecretArn)).toBe(true);
    expect(iamResourceMatches(partialSecretArn(), aclSecretArn)).toBe(false);
  });

  removeCheck('acl-and-destinations', deployment);
});

describe('a service whose image comes through an ECR pull-through cache (test/fixtures/deploy/pull-through-cache)', () => {
  const fixture = path.join(REPO_ROOT, 'test/fixtures/deploy/pull-through-cache');
  const deployment = useDeployment(
    'pull-through-cache',
    'rmq-ptc',
    { from: fixture, copy: ['serverless.yml', 'handler.js', 'package.json'] },
    () => ({}),
  );

  it('deploys; moto has no pull-through cache and skips the rule (real CloudFormation creates it), the task definition after it', () => {
    const { moto } = started();
    const { stack, resources } = deployment();
    expect(stack.status).toBe('UPDATE_COMPLETE');
    expect(resources[Ids.pullThroughCacheRule]?.Type).toBe('AWS::ECR::PullThroughCacheRule');
    expect(unsupportedTypes(resources)).toEqual(['AWS::ECR::PullThroughCacheRule', 'AWS::S3::BucketPolicy']);
    expect(moto.warnings()).toContain(
      "Tried to parse AWS::ECR::PullThroughCacheRule but it's not supported by moto's CloudFormation implementation",
    );
    expect(createdOutcomes(stack, resources)).toEqual(expectedCreation(resources));
  });

  it("the task runs the published version from the account's registry; the execution role pulls and imports exactly the cached repository", async () => {
    const { aws } = started();
    const { stack } = deployment();
    const account = (await arnOfFunction(stack, 'OrdersLambdaFunction')).split(':')[4];
    const region = MOTO_CLIENT_CONFIG.region;
    const definition = await describeTaskDefinition(aws, stack.resource(Ids.taskDefinition).physicalId);
    expect(definition.containerDefinitions.map((container) => container.image)).toEqual([
      `${account}.dkr.ecr.${region}.amazonaws.com/rocketmq-lambda/rocketmq-lambda/rocketmq-lambda:${packageVersion()}`,
    ]);
    const repository = `arn:aws:ecr:${region}:${account}:repository/rocketmq-lambda/rocketmq-lambda/rocketmq-lambda`;
    const execution = await roleWithPolicy(
      aws,
      stack.resource(Ids.executionRole).physicalId,
      'rocketmq-poller',
    );
    expect(execution.nullStatements).toBe(0);
    expect(execution.statements.filter((s) => s.Sid !== 'WriteLogs')).toEqual([
      { Sid: 'EcrLogin', Effect: 'Allow', Action: 'ecr:GetAuthorizationToken', Resource: '*' },
      {
        Sid: 'PullImage',
        Effect: 'Allow',
        Action: ['ecr:BatchCheckLayerAvailability', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchGetImage'],
        Resource: repository,
      },
      {
        Sid: 'PullThroughCache',
        Effect: 'Allow',
        Action: ['ecr:BatchImportUpstreamImage', 'ecr:CreateRepository'],
        Resource: repository,
      },
    ]);
    await expectLogGroupStatement(execution.statements, stack);
  });

  removeCheck('pull-through-cache', deployment);
});
