/**
 * The CDK example (infra/cdk, the Orders mapping of docs/deploying.md) synthesized for moto's account and
 * region, checked with cfn-lint, deployed with CreateStack against moto's server, and read back from the
 * services' APIs as the plugin's and the standalone template's stacks are: the config in the task
 * definition is accepted by the poller's own parser with the ACL keys from the secret, the container's
 * root filesystem is read-only but for the state volume, the roles name exactly the function, table, log
 * group and secret. The stack is synthesized without the BootstrapVersion parameter and rule, which only
 * a bootstrapped account answers (`cdk bootstrap`); the example has no assets to publish.
 *
 * moto skips the scaling target and policy and the alarms: cfn-lint here and the unit tests (the three
 * faces comparison in test/unit/cdk) are the checking they get.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateStackCommand, DeleteStackCommand } from '@aws-sdk/client-cloudformation';
import { Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RocketMQLogicalIds } from '../../../src/cdk/index.js';
import { synthesizeExample } from '../../support/cdk-example.js';
import { cfnLint, formatFindings } from '../../support/cfn-lint.js';
import { MOTO_CLIENT_CONFIG, type MotoServerHandle, startMotoServer } from '../../support/moto-server.js';
import { type AwsClients, awsClients } from './aws-clients.js';
import { callJsonApi, SECRETS_MANAGER_API } from './aws-json-api.js';
import { type DeployedStack, describeStack, stackStatus } from './deployed-stack.js';
import {
  createdOutcomes,
  deletionOutcomes,
  expectedCreation,
  expectedDeletion,
  type PollerIds,
  type TemplateResources,
} from './moto-coverage.js';
import { OFFSETS_ACTIONS } from './poller-statements.js';
import { describeTaskDefinition, pollerConfigOf } from './poller-task.js';
import { functionArn, logGroupArn, tableArn } from './resource-lookups.js';
import { iamResourceMatches, roleWithPolicy, statement } from './role-policy.js';

const STACK_NAME = 'rocketmq-orders-cdk';
const ENV = { account: '123456789012', region: MOTO_CLIENT_CONFIG.region };
const ACL = { accessKey: 'rocketmq-access-key', secretKey: 'rocketmq-secret-key' };

let moto: MotoServerHandle | undefined;
let aws: AwsClients | undefined;
let stack: DeployedStack | undefined;
let resources: TemplateResources = {};
let templateFile = '';
let ids: PollerIds | undefined;
let functionId = '';
/** The logical ids of every resource the poller rendered. */
let pollerLogicalIds = new Set<string>();
let aclSecretArn = '';
let partialSecretArn = '';
const workDir = mkdtempSync(path.join(tmpdir(), 'rocketmq-cdk-deploy-'));

beforeAll(async () => {
  moto = await startMotoServer();
  aws = awsClients({ endpoint: moto.endpoint, ...MOTO_CLIENT_CONFIG });
  const secret = await callJsonApi(aws.target, SECRETS_MANAGER_API, 'CreateSecret', {
    Name: 'rocketmq/acl',
    SecretString: JSON.stringify(ACL),
  });
  aclSecretArn = String((secret as { ARN?: unknown }).ARN);
  partialSecretArn = aclSecretArn.replace(/-[A-Za-z0-9]{6}$/, '');

  const synthesized = synthesizeExample({
    env: ENV,
    overrides: {
      aclSecretArn: partialSecretArn,
      availabilityZones: [`${ENV.region}a`, `${ENV.region}b`],
    },
    bootstrapless: true,
  });
  const logicalId = (compiledId: string): string => {
    const resource = synthesized.stack.poller.resource(compiledId);
    if (resource === undefined) throw new Error(`the poller has no ${compiledId}`);
    return Stack.of(resource).resolve(resource.logicalId) as string;
  };
  pollerLogicalIds = new Set(synthesized.stack.poller.compiledIds.map(logicalId));
  ids = {
    table: logicalId(RocketMQLogicalIds.offsetsTable),
    logGroup: logicalId(RocketMQLogicalIds.logGroup),
    taskDefinition: logicalId(RocketMQLogicalIds.taskDefinition),
    service: logicalId(RocketMQLogicalIds.service),
    cluster: logicalId(RocketMQLogicalIds.cluster),
    executionRole: logicalId(RocketMQLogicalIds.executionRole),
    taskRole: logicalId(RocketMQLogicalIds.taskRole),
  };
  functionId = Stack.of(synthesized.stack).resolve(
    (synthesized.stack.orders.node.defaultChild as import('aws-cdk-lib').CfnResource).logicalId,
  ) as string;
  const template = synthesized.template.toJSON() as { Resources: TemplateResources };
  resources = template.Resources;
  templateFile = path.join(workDir, `${STACK_NAME}.template.json`);
  writeFileSync(templateFile, JSON.stringify(template, null, 1));

  await aws.cloudformation.send(
    new CreateStackCommand({
      StackName: STACK_NAME,
      TemplateBody: JSON.stringify(template),
      Capabilities: ['CAPABILITY_IAM'],
    }),
  );
  // moto completes CreateStack before it answers; a real account would be polled here.
  stack = await describeStack(aws, STACK_NAME);
}, 600_000);

afterAll(async () => {
  aws?.destroy();
  await moto?.close();
  rmSync(workDir, { recursive: true, force: true });
});

function started(): { aws: AwsClients; stack: DeployedStack; ids: PollerIds } {
  if (aws === undefined || stack === undefined || ids === undefined)
    throw new Error('the stack was not created');
  return { aws, stack, ids };
}

describe('the CDK example, synthesized and deployed with CreateStack', () => {
  it("cfn-lint finds nothing in the poller's resources, and only CDK's own DependsOn in the function's", async () => {
    const findings = await cfnLint([templateFile]);
    const resourceOf = (finding: (typeof findings)[number]) =>
      String((finding as { Location?: { Path?: unknown[] } }).Location?.Path?.[1]);
    const poller = findings.filter((finding) => pollerLogicalIds.has(resourceOf(finding)));
    expect(poller, formatFindings(poller)).toEqual([]);
    // Everything but the example function and its role is the poller's.
    expect(Object.keys(resources).filter((id) => !pollerLogicalIds.has(id))).toEqual([
      expect.stringMatching(/^OrdersServiceRole/),
      functionId,
    ]);
    // lambda.Function orders its creation after its role's policy with an explicit DependsOn (W3005:
    // already implied by the GetAtt): aws-cdk-lib's output, not the poller's.
    expect(
      findings.filter((finding) => !poller.includes(finding)).map((f) => `${f.Rule.Id} ${resourceOf(f)}`),
    ).toEqual([`W3005 ${functionId}`]);
  }, 120_000);

  it('reaches CREATE_COMPLETE; each resource as moto handles its type', () => {
    const { stack } = started();
    expect(stack.status).toBe('CREATE_COMPLETE');
    expect(createdOutcomes(stack, resources)).toEqual(expectedCreation(resources));
  });

  it("the task definition's config is accepted by the poller's parser, with the ACL keys from the secret", async () => {
    const { aws, stack, ids } = started();
    const definition = await describeTaskDefinition(aws, stack.resource(ids.taskDefinition).physicalId);
    const [poller, ...others] = definition.containerDefinitions;
    expect(others).toEqual([]);
    if (poller === undefined) throw new Error('the task definition has no container');
    expect(poller.secrets).toEqual([
      { name: 'ROCKETMQ_ACCESS_KEY', valueFrom: `${partialSecretArn}:accessKey::` },
      { name: 'ROCKETMQ_SECRET_KEY', valueFrom: `${partialSecretArn}:secretKey::` },
    ]);
    expect(poller.readonlyRootFilesystem).toBe(true);
    expect(poller.mountPoints).toEqual([
      { sourceVolume: 'poller-state', containerPath: '/app/.rocketmq-lambda', readOnly: false },
    ]);
    const config = await pollerConfigOf(aws, poller);
    const orders = await functionArn(aws, stack.resource(functionId).physicalId);
    expect(config.acl).toEqual(ACL);
    expect(config.nameServerAddresses).toEqual(['10.0.0.10:9876', '10.0.0.11:9876']);
    expect(config.offsets).toMatchObject({ store: 'dynamodb', table: stack.resource(ids.table).physicalId });
    expect(config.mappings).toMatchObject([
      {
        topic: 'Orders',
        consumerGroup: 'orders-lambda',
        functionRef: orders,
        functionTimeoutMs: 30_000,
        batchSize: 100,
      },
    ]);
  });

  it('the task role allows exactly the function and the table; the execution role the log group and the secret', async () => {
    const { aws, stack, ids } = started();
    const orders = await functionArn(aws, stack.resource(functionId).physicalId);
    const task = await roleWithPolicy(aws, stack.resource(ids.taskRole).physicalId, 'rocketmq-poller');
    expect(task.statements).toEqual([
      {
        Sid: 'InvokeMappedFunctions',
        Effect: 'Allow',
        Action: 'lambda:InvokeFunction',
        Resource: [orders, `${orders}:*`],
      },
      {
        Sid: 'Offsets',
        Effect: 'Allow',
        Action: [...OFFSETS_ACTIONS],
        Resource: await tableArn(aws, stack.resource(ids.table).physicalId),
      },
    ]);
    const execution = await roleWithPolicy(
      aws,
      stack.resource(ids.executionRole).physicalId,
      'rocketmq-poller',
    );
    const logs = statement(execution.statements, 'WriteLogs');
    const logGroup = await logGroupArn(aws, stack.resource(ids.logGroup).physicalId);
    // moto's GetAtt Arn of a log group has no `:*`; AWS's has.
    expect([logGroup, `${logGroup}:*`]).toContain(logs.Resource);
    const secretStatements = execution.statements.filter((s) =>
      [s.Resource].flat().some((resource) => typeof resource === 'string' && resource.includes(':secret:')),
    );
    expect(secretStatements).toHaveLength(1);
    expect(secretStatements[0]?.Resource).toEqual([`${partialSecretArn}-??????`]);
    expect(iamResourceMatches(`${partialSecretArn}-??????`, aclSecretArn)).toBe(true);
    // Nothing on every resource but the ECR login, which IAM only grants on `*`.
    for (const wide of [...task.statements, ...execution.statements].filter((s) => s.Resource === '*'))
      expect(wide.Action).toBe('ecr:GetAuthorizationToken');
  });

  it('DeleteStack deletes the stack; each resource as moto deletes its type (the table is retained)', async () => {
    const { aws, stack } = started();
    await aws.cloudformation.send(new DeleteStackCommand({ StackName: STACK_NAME }));
    expect(await stackStatus(aws, STACK_NAME)).toBe('DELETE_COMPLETE');
    expect(await deletionOutcomes(aws, stack.resources, resources)).toEqual(
      expectedDeletion(stack.resources, resources),
    );
  });
});
