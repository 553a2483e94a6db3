/**
 * The standalone template (infra/cloudformation/rocketmq-poller.yml, generated from
 * rocketmq-poller.stack.yml by the plugin's compiler) deployed with CreateStack against moto's server,
 * with the parameters a user fills in (the function, the subnets and security groups as list
 * parameters, the ACL secret by partial ARN), then read back from the services' APIs as
 * serverless-deploy.test.ts reads the plugin's stacks: the config is accepted by the poller's own
 * loadConfigFromEnv, the container's root filesystem is read-only but for the state volume, the roles
 * name exactly the function, table, log group and secret (no ECR right: the published image is on
 * ghcr.io), the table has the offsets key schema, the dashboard CloudWatch stores is valid JSON for the
 * group, cluster and service; DeleteStack deletes it (the table stays: DeletionPolicy Retain). A second
 * stack, generated from a stack file of two functions (one event disabled, one POP), ACL keys from SSM,
 * an image in a private ECR repository and a failure queue, maps both enabled groups, and its roles name
 * both functions, the queue, the parameters and exactly the image's repository. A third, whose mapping's
 * `onFailure` spells an S3 bucket ARN from a parameter, gives the poller that ARN and the task role
 * `s3:PutObject` on its key prefix only.
 *
 * moto skips the scaling target and policy and the alarms: cfn-lint, run here on the template, and the
 * unit tests' evaluation of the template are all the checking they get, as are the properties moto drops
 * (MOTO_CLOUDFORMATION in moto-coverage.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CreateStackCommand, DeleteStackCommand } from '@aws-sdk/client-cloudformation';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RocketMQLogicalIds as Ids } from '../../../src/serverless/logical-ids.js';
import { publishedImage } from '../../../src/serverless/published-image.js';
import {
  parseStackFileText,
  renderTemplate,
  standaloneTemplate,
} from '../../../src/serverless/standalone-template.js';
import { cfnLint, formatFindings } from '../../support/cfn-lint.js';
import { MOTO_CLIENT_CONFIG, type MotoServerHandle, startMotoServer } from '../../support/moto-server.js';
import { parseCfnTemplate } from '../../unit/infra/cfn-evaluate.js';
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
  type TemplateResources,
  unsupportedTypes,
} from './moto-coverage.js';
import { OFFSETS_ACTIONS } from './poller-statements.js';
import { describeTaskDefinition, pollerConfigOf } from './poller-task.js';
import { dashboardBody, logGroupArn, queueArn, tableArn } from './resource-lookups.js';
import { iamResourceMatches, roleWithPolicy, statement } from './role-policy.js';
import { REPO_ROOT } from './serverless-service.js';

const TEMPLATE_FILE = path.join(REPO_ROOT, 'infra/cloudformation/rocketmq-poller.yml');
const TEMPLATE_BODY = readFileSync(TEMPLATE_FILE, 'utf8');
const RESOURCES = parseCfnTemplate(TEMPLATE_BODY).Resources as unknown as TemplateResources;
const STACK_NAME = 'rocketmq-poller-orders';
const FUNCTION_ARN = `arn:aws:lambda:${MOTO_CLIENT_CONFIG.region}:123456789012:function:orders-handler`;
const SUBNETS = ['subnet-0a1b2c3d4e5f67890', 'subnet-0f3e2d1c4b5a69788'];
const ACL = { accessKey: 'rocketmq-access-key', secretKey: 'rocketmq-secret-key' };
const IDS: PollerIds = {
  table: Ids.offsetsTable,
  logGroup: Ids.logGroup,
  taskDefinition: Ids.taskDefinition,
  service: Ids.service,
  cluster: Ids.cluster,
  executionRole: Ids.executionRole,
  taskRole: Ids.taskRole,
};

let moto: MotoServerHandle | undefined;
let aws: AwsClients | undefined;
let stack: DeployedStack | undefined;
let aclSecretArn = '';
let partialSecretArn = '';
let createMs = 0;
let deleteMs = 0;

beforeAll(async () => {
  moto = await startMotoServer();
  aws = awsClients({ endpoint: moto.endpoint, ...MOTO_CLIENT_CONFIG });
  const secret = await callJsonApi(aws.target, SECRETS_MANAGER_API, 'CreateSecret', {
    Name: 'rocketmq/acl',
    SecretString: JSON.stringify(ACL),
  });
  aclSecretArn = String((secret as { ARN?: unknown }).ARN);
  partialSecretArn = aclSecretArn.replace(/-[A-Za-z0-9]{6}$/, '');

  // What a user fills in: the stack file's parameters.
  const parameters: Record<string, string> = {
    OrdersFunctionArn: FUNCTION_ARN,
    SubnetIds: SUBNETS.join(','),
    SecurityGroupIds: 'sg-0c1d2e3f4a5b69788',
    AclSecretArn: partialSecretArn,
  };
  const startedAt = Date.now();
  await aws.cloudformation.send(
    new CreateStackCommand({
      StackName: STACK_NAME,
      TemplateBody: TEMPLATE_BODY,
      Capabilities: ['CAPABILITY_IAM'],
      Parameters: Object.entries(parameters).map(([ParameterKey, ParameterValue]) => ({
        ParameterKey,
        ParameterValue,
      })),
    }),
  );
  // moto completes CreateStack before it answers; a real account would be polled here.
  stack = await describeStack(aws, STACK_NAME);
  createMs = Date.now() - startedAt;
}, 600_000);

afterAll(async () => {
  process.stdout.write(
    `[standalone template on moto] CreateStack ${createMs} ms, DeleteStack ${deleteMs} ms\n`,
  );
  aws?.destroy();
  await moto?.close();
});

function started(): { moto: MotoServerHandle; aws: AwsClients; stack: DeployedStack } {
  if (moto === undefined || aws === undefined || stack === undefined)
    throw new Error('the stack was not created');
  return { moto, aws, stack };
}

describe('the generated standalone template, deployed with CreateStack', () => {
  it('reaches CREATE_COMPLETE with its outputs; each resource as moto handles its type', () => {
    const { stack } = started();
    expect(stack.status).toBe('CREATE_COMPLETE');
    expect(createdOutcomes(stack, RESOURCES)).toEqual(expectedCreation(RESOURCES));
    expect(stack.outputs).toEqual({
      OffsetsTableName: stack.resource(IDS.table).physicalId,
      PollerServiceName: stack.resource(IDS.service).physicalId.split('/').at(-1),
      PollerLogGroupName: stack.resource(IDS.logGroup).physicalId,
    });
  });

  it("the task definition's config is accepted by the poller's parser with the ACL keys from the secret", async () => {
    const { aws, stack } = started();
    const definition = await describeTaskDefinition(aws, stack.resource(IDS.taskDefinition).physicalId);
    const [poller, ...others] = definition.containerDefinitions;
    expect(others).toEqual([]);
    if (poller === undefined) throw new Error('the task definition has no container');
    expect(poller.secrets).toEqual([
      { name: 'ROCKETMQ_ACCESS_KEY', valueFrom: `${partialSecretArn}:accessKey::` },
      { name: 'ROCKETMQ_SECRET_KEY', valueFrom: `${partialSecretArn}:secretKey::` },
    ]);
    // A read-only root filesystem; the heartbeat, broadcasting offsets and temporary files in the volume.
    expect(poller.image).toBe(publishedImage());
    expect(poller.readonlyRootFilesystem).toBe(true);
    expect(poller.mountPoints).toEqual([
      { sourceVolume: 'poller-state', containerPath: '/app/.rocketmq-lambda', readOnly: false },
    ]);
    expect(definition.volumes).toMatchObject([{ name: 'poller-state' }]);
    expect(poller.environment).toEqual(
      expect.arrayContaining([
        { name: 'ROCKETMQ_LAMBDA_HEALTH_FILE', value: '/app/.rocketmq-lambda/health' },
        { name: 'TMPDIR', value: '/app/.rocketmq-lambda' },
      ]),
    );
    const config = await pollerConfigOf(aws, poller);
    expect(config.acl).toEqual(ACL);
    expect(config.nameServerAddresses).toEqual(['10.0.0.10:9876', '10.0.0.11:9876']);
    expect(config.offsets).toMatchObject({ store: 'dynamodb', table: stack.resource(IDS.table).physicalId });
    // EMF lines on stdout, shipped by the awslogs driver: no PutMetricData, no CloudWatch right.
    expect(config.metrics.emf).toMatchObject({ namespace: 'RocketMQLambda' });
    expect(config.metrics.cloudwatch).toBeUndefined();
    expect(config.mappings).toMatchObject([
      {
        topic: 'Orders',
        consumerGroup: 'orders-lambda',
        batchSize: 100,
        functionRef: FUNCTION_ARN,
        functionTimeoutMs: 30_000,
      },
    ]);
  });

  it('the task role allows exactly the function and the table; the execution role the log group and the secret, no ECR', async () => {
    const { aws, stack } = started();
    const task = await roleWithPolicy(aws, stack.resource(IDS.taskRole).physicalId, 'rocketmq-poller');
    expect(task.statements).toEqual([
      {
        Sid: 'InvokeMappedFunctions',
        Effect: 'Allow',
        Action: 'lambda:InvokeFunction',
        Resource: [FUNCTION_ARN, `${FUNCTION_ARN}:*`],
      },
      {
        Sid: 'Offsets',
        Effect: 'Allow',
        Action: [...OFFSETS_ACTIONS],
        Resource: await tableArn(aws, stack.resource(IDS.table).physicalId),
      },
    ]);
    const execution = await roleWithPolicy(
      aws,
      stack.resource(IDS.executionRole).physicalId,
      'rocketmq-poller',
    );
    // The published image is on ghcr.io: no ECR statement at all.
    expect(execution.statements.map((s) => s.Sid)).toEqual(['WriteLogs', 'ReadAclSecret']);
    expect(execution.nullStatements).toBe(0);
    expect(task.nullStatements).toBe(0);
    const logs = statement(execution.statements, 'WriteLogs');
    const logGroup = await logGroupArn(aws, stack.resource(IDS.logGroup).physicalId);
    // moto's GetAtt Arn of a log group has no `:*`; AWS's has.
    expect([logGroup, `${logGroup}:*`]).toContain(logs.Resource);
    const secret = statement(execution.statements, 'ReadAclSecret');
    expect(secret.Resource).toEqual([partialSecretArn, `${partialSecretArn}-??????`]);
    expect(iamResourceMatches(`${partialSecretArn}-??????`, aclSecretArn)).toBe(true);
  });

  it('the offsets table has the offsets key schema, on demand; moto drops the properties MOTO_CLOUDFORMATION lists', async () => {
    const { aws, stack } = started();
    const settings = {
      cpu: '256',
      memory: '512',
      cpuArchitecture: 'X86_64',
      subnets: SUBNETS,
      logRetentionInDays: 14,
    };
    expect(await droppedProperties(aws, stack, IDS, settings)).toEqual(expectedDropped(IDS, RESOURCES));
  });

  it('the dashboard CloudWatch stores is valid JSON for the group, the region, the cluster and the service', async () => {
    const { aws, stack } = started();
    const name = stack.resource(Ids.dashboard).physicalId;
    expect(name).toBe(`${STACK_NAME}-rocketmq-poller`);
    const body = await dashboardBody(aws, name);
    const { widgets } = JSON.parse(body) as {
      widgets: { properties: { region: string; annotations?: unknown } }[];
    };
    expect(widgets).toHaveLength(9);
    for (const widget of widgets) expect(widget.properties.region).toBe(MOTO_CLIENT_CONFIG.region);
    for (const metric of [
      'ConsumerLag',
      'OldestMessageAge',
      'Invocations',
      'DeadLettered',
      'DeadLetterDepth',
      'Unhealthy',
      'FilteredOut',
    ])
      expect(body).toContain(`["RocketMQLambda","${metric}","ConsumerGroup","orders-lambda",`);
    const service = stack.resource(IDS.service).physicalId.split('/').at(-1);
    expect(body).toContain(
      `"ClusterName","${stack.resource(IDS.cluster).physicalId}","ServiceName","${service}"`,
    );
    expect(widgets[0]?.properties.annotations).toEqual({
      horizontal: [{ label: 'target per task', value: 1000 }],
    });
    expect(widgets[1]?.properties.annotations).toEqual({
      horizontal: [{ label: 'alarm threshold', value: 300 }],
    });
  });

  it('moto skips the scaling target and policy and the alarms (only cfn-lint checks them); cfn-lint passes the template', async () => {
    const { moto, aws } = started();
    const skipped = [
      'AWS::ApplicationAutoScaling::ScalableTarget',
      'AWS::ApplicationAutoScaling::ScalingPolicy',
      'AWS::CloudWatch::Alarm',
    ];
    expect(unsupportedTypes(RESOURCES)).toEqual(skipped);
    for (const type of skipped) {
      expect(moto.warnings()).toContain(
        `Tried to parse ${type} but it's not supported by moto's CloudFormation implementation`,
      );
    }
    const targets = await callJsonApi(aws.target, APPLICATION_AUTOSCALING_API, 'DescribeScalableTargets', {
      ServiceNamespace: 'ecs',
    });
    expect(targets).toMatchObject({ ScalableTargets: [] });
    const findings = await cfnLint([TEMPLATE_FILE]);
    expect(findings, formatFindings(findings)).toEqual([]);
  }, 120_000);

  it('DeleteStack deletes the stack; each resource as moto deletes its type (the table is retained)', async () => {
    const { aws, stack } = started();
    const startedAt = Date.now();
    await aws.cloudformation.send(new DeleteStackCommand({ StackName: STACK_NAME }));
    expect(await stackStatus(aws, STACK_NAME)).toBe('DELETE_COMPLETE');
    deleteMs = Date.now() - startedAt;
    expect(await deletionOutcomes(aws, stack.resources, RESOURCES)).toEqual(
      expectedDeletion(stack.resources, RESOURCES),
    );
  });
});

/** An image in a private ECR repository with a namespace: pull rights on exactly that repository. */
const ECR_IMAGE = `123456789012.dkr.ecr.${MOTO_CLIENT_CONFIG.region}.amazonaws.com/platform/rocketmq-lambda:0.1.0`;
const ECR_REPOSITORY_ARN = `arn:aws:ecr:${MOTO_CLIENT_CONFIG.region}:123456789012:repository/platform/rocketmq-lambda`;
const AUDIT_ARN = `arn:aws:lambda:${MOTO_CLIENT_CONFIG.region}:123456789012:function:audit`;

/** A stack file with two functions, one event disabled, ACL keys from SSM, an ECR image, a failure queue. */
function severalMappingsStack(): string {
  return `
parameters:
  SubnetIds: { Type: 'List<AWS::EC2::Subnet::Id>' }
  FailureQueueArn: { Type: String }
custom:
  rocketmq:
    nameServers: '10.0.0.10:9876'
    image: ${ECR_IMAGE}
    vpc: { subnetIds: !Ref SubnetIds }
    acl: { accessKeyParameter: /rocketmq/access-key, secretKeyParameter: /rocketmq/secret-key }
functions:
  orders:
    arn: ${FUNCTION_ARN}
    timeout: 30
    events:
      - rocketmq: { topic: Orders, consumerGroup: orders-lambda, onFailure: !Ref FailureQueueArn }
  audit:
    arn: ${AUDIT_ARN}
    timeout: 600
    events:
      - rocketmq: { topic: Audit, consumerGroup: audit-lambda, consumeMode: POP }
      - rocketmq: { topic: Old, consumerGroup: old-lambda, enabled: false }
`;
}

describe('a generated template of several mappings, ACL keys from SSM, an ECR image, deployed with CreateStack', () => {
  it('maps both enabled groups; the roles name both functions, the queue, the parameters and exactly the repository', async () => {
    const { aws } = started();
    const { QueueUrl } = await aws.sqs.send(new CreateQueueCommand({ QueueName: 'orders-failures' }));
    if (QueueUrl === undefined) throw new Error('CreateQueue gave no URL');
    const failureQueue = await queueArn(aws, QueueUrl);
    const { template } = standaloneTemplate(parseStackFileText(severalMappingsStack(), 'yaml'));
    const name = 'rocketmq-poller-several';
    await aws.cloudformation.send(
      new CreateStackCommand({
        StackName: name,
        TemplateBody: renderTemplate(template, 'yaml'),
        Capabilities: ['CAPABILITY_IAM'],
        Parameters: [
          { ParameterKey: 'SubnetIds', ParameterValue: SUBNETS.join(',') },
          { ParameterKey: 'FailureQueueArn', ParameterValue: failureQueue },
        ],
      }),
    );
    const several = await describeStack(aws, name);
    expect(several.status).toBe('CREATE_COMPLETE');
    const definition = await describeTaskDefinition(aws, several.resource(IDS.taskDefinition).physicalId);
    const [poller] = definition.containerDefinitions;
    if (poller === undefined) throw new Error('the task definition has no container');
    expect(poller.image).toBe(ECR_IMAGE);
    expect(poller.readonlyRootFilesystem).toBe(true);
    const config = JSON.parse(
      poller.environment.find((variable) => variable.name === 'ROCKETMQ_LAMBDA_CONFIG')?.value ?? '{}',
    ) as { mappings: { consumerGroup: string; functionTimeoutMs: number; consumeMode?: string }[] };
    expect(config.mappings).toMatchObject([
      { consumerGroup: 'orders-lambda', functionTimeoutMs: 30_000 },
      { consumerGroup: 'audit-lambda', functionTimeoutMs: 600_000, consumeMode: 'POP' },
    ]);
    // ECS takes an SSM parameter of the same region by its name; the execution role names its ARN.
    expect(poller.secrets?.map((secret) => secret.valueFrom)).toEqual([
      '/rocketmq/access-key',
      '/rocketmq/secret-key',
    ]);
    const task = await roleWithPolicy(aws, several.resource(IDS.taskRole).physicalId, 'rocketmq-poller');
    expect(statement(task.statements, 'InvokeMappedFunctions').Resource).toEqual([
      FUNCTION_ARN,
      `${FUNCTION_ARN}:*`,
      AUDIT_ARN,
      `${AUDIT_ARN}:*`,
    ]);
    expect(statement(task.statements, 'FailureQueues').Resource).toEqual([failureQueue]);
    const execution = await roleWithPolicy(
      aws,
      several.resource(IDS.executionRole).physicalId,
      'rocketmq-poller',
    );
    expect(execution.statements.map((s) => s.Sid)).toEqual([
      'WriteLogs',
      'EcrLogin',
      'PullImage',
      'ReadAclParameters',
    ]);
    expect(statement(execution.statements, 'PullImage').Resource).toBe(ECR_REPOSITORY_ARN);
    await aws.cloudformation.send(new DeleteStackCommand({ StackName: name }));
    expect(await stackStatus(aws, name)).toBe('DELETE_COMPLETE');
  });
});

/** A stack file whose mapping sends its failures to an S3 bucket named by a parameter. */
function s3FailureBucketStack(): string {
  return `
parameters:
  SubnetIds: { Type: 'List<AWS::EC2::Subnet::Id>' }
  FailureBucket: { Type: String }
custom:
  rocketmq:
    nameServers: '10.0.0.10:9876'
    vpc: { subnetIds: !Ref SubnetIds }
functions:
  orders:
    arn: ${FUNCTION_ARN}
    timeout: 30
    events:
      - rocketmq:
          topic: Orders
          consumerGroup: orders-lambda
          onFailure: !Sub 'arn:\${AWS::Partition}:s3:::\${FailureBucket}/rocketmq'
`;
}

describe('a generated template with an S3 failure bucket, deployed with CreateStack', () => {
  it('the poller gets the bucket ARN with its prefix; the task role s3:PutObject on that prefix only', async () => {
    const { aws } = started();
    const { template } = standaloneTemplate(parseStackFileText(s3FailureBucketStack(), 'yaml'));
    const name = 'rocketmq-poller-s3-failures';
    await aws.cloudformation.send(
      new CreateStackCommand({
        StackName: name,
        TemplateBody: renderTemplate(template, 'yaml'),
        Capabilities: ['CAPABILITY_IAM'],
        Parameters: [
          { ParameterKey: 'SubnetIds', ParameterValue: SUBNETS.join(',') },
          { ParameterKey: 'FailureBucket', ParameterValue: 'acme-rocketmq-failures' },
        ],
      }),
    );
    const deployed = await describeStack(aws, name);
    expect(deployed.status).toBe('CREATE_COMPLETE');
    const definition = await describeTaskDefinition(aws, deployed.resource(IDS.taskDefinition).physicalId);
    const config = JSON.parse(
      definition.containerDefinitions[0]?.environment.find((v) => v.name === 'ROCKETMQ_LAMBDA_CONFIG')
        ?.value ?? '{}',
    ) as { mappings: { onFailure?: string }[] };
    expect(config.mappings.map((mapping) => mapping.onFailure)).toEqual([
      'arn:aws:s3:::acme-rocketmq-failures/rocketmq',
    ]);
    const task = await roleWithPolicy(aws, deployed.resource(IDS.taskRole).physicalId, 'rocketmq-poller');
    expect(task.statements.filter((s) => String(s.Sid).startsWith('Failure'))).toEqual([
      {
        Sid: 'FailureObjects',
        Effect: 'Allow',
        Action: 's3:PutObject',
        Resource: ['arn:aws:s3:::acme-rocketmq-failures/rocketmq/*'],
      },
    ]);
    await aws.cloudformation.send(new DeleteStackCommand({ StackName: name }));
    expect(await stackStatus(aws, name)).toBe('DELETE_COMPLETE');
  });
});
