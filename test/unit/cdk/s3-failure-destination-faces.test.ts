/**
 * An S3 bucket as `onFailure` on every face (the Serverless plugin, the standalone template, the CDK
 * constructs): the task role gets exactly one S3 right, `s3:PutObject` on the ARN's key prefix
 * (`arn:<partition>:s3:::<bucket>/<prefix>/*`), the same on each face for the same destination.
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { RocketMQEventSource, RocketMQLogicalIds, RocketMQPoller } from '../../../src/cdk/index.js';
import { compileRocketMQResources } from '../../../src/serverless/compile-rocketmq-resources.js';
import { standaloneTemplate } from '../../../src/serverless/standalone-template.js';

interface Statement {
  readonly Sid: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

const ARN = 'arn:aws:s3:::acme-failures/rocketmq/prod';
const CUSTOM = {
  nameServers: '10.0.0.10:9876',
  vpc: { subnetIds: ['subnet-0a', 'subnet-0b'], securityGroupIds: ['sg-0a'] },
};
const EVENT = { topic: 'Orders', consumerGroup: 'orders-lambda' };

function statementsOf(role: unknown): Statement[] {
  const policies = (role as { Properties: { Policies: { PolicyDocument: { Statement: Statement[] } }[] } })
    .Properties.Policies;
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}

/** The statements of the failure destinations (the function's ARN differs by face). */
function failureStatements(role: unknown): Statement[] {
  return statementsOf(role).filter((s) => s.Sid.startsWith('Failure'));
}

/** Every statement that grants anything of S3. */
function s3Statements(role: unknown): Statement[] {
  return statementsOf(role).filter((s) => [s.Action].flat().some((action) => action.startsWith('s3:')));
}

function pluginTaskRole(onFailure: unknown): unknown {
  const { resources } = compileRocketMQResources({
    stage: 'prod',
    custom: CUSTOM,
    functions: [
      {
        key: 'orders',
        logicalId: 'OrdersLambdaFunction',
        timeoutSeconds: 30,
        events: [{ rocketmq: { ...EVENT, onFailure } }],
      },
    ],
  });
  return resources[RocketMQLogicalIds.taskRole];
}

function standaloneTaskRole(onFailure: unknown): unknown {
  const { template } = standaloneTemplate({
    custom: { rocketmq: CUSTOM },
    functions: {
      orders: {
        arn: 'arn:aws:lambda:eu-west-1:111122223333:function:orders',
        timeout: 30,
        events: [{ rocketmq: { ...EVENT, onFailure } }],
      },
    },
  });
  return (template.Resources as Record<string, unknown>)[RocketMQLogicalIds.taskRole];
}

/** The standalone face with a `FailureBucket` parameter (the bucket's name). */
function standaloneTaskRoleWith(onFailure: unknown): unknown {
  const { template } = standaloneTemplate({
    parameters: { FailureBucket: { Type: 'String' } },
    custom: { rocketmq: CUSTOM },
    functions: {
      orders: {
        arn: 'arn:aws:lambda:eu-west-1:111122223333:function:orders',
        timeout: 30,
        events: [{ rocketmq: { ...EVENT, onFailure } }],
      },
    },
  });
  return (template.Resources as Record<string, unknown>)[RocketMQLogicalIds.taskRole];
}

/** The CDK face: the synthesized task role, and the logical id CDK gave `bucketOf`'s bucket. */
function cdkTaskRole(
  bucketOf: (stack: Stack) => s3.IBucket,
  onFailureKeyPrefix?: string,
): { role: unknown; bucketId: string | undefined } {
  const stack = new Stack(new App(), 'Orders', { env: { account: '111122223333', region: 'eu-west-1' } });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0 });
  const fn = new lambda.Function(stack, 'OrdersFn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    timeout: Duration.seconds(30),
  });
  const poller = new RocketMQPoller(stack, 'Poller', { nameServers: CUSTOM.nameServers, vpc });
  const bucket = bucketOf(stack);
  fn.addEventSource(
    new RocketMQEventSource({
      poller,
      ...EVENT,
      onFailure: bucket,
      ...(onFailureKeyPrefix === undefined ? {} : { onFailureKeyPrefix }),
    }),
  );
  const template = (App.of(stack) as App).synth().getStackByName('Orders').template as {
    Resources: Record<string, unknown>;
  };
  const roleId = stack.resolve(poller.resource(RocketMQLogicalIds.taskRole)?.logicalId) as string;
  const child = bucket.node.defaultChild as s3.CfnBucket | undefined;
  return {
    role: template.Resources[roleId],
    bucketId: child === undefined ? undefined : (stack.resolve(child.logicalId) as string),
  };
}

/** `value` (a string, `Ref`, `Fn::Join`) with every `Ref` taken from `refs`. */
function resolved(value: unknown, refs: Record<string, string>): string {
  if (typeof value === 'string') return value;
  const object = value as { Ref?: string; 'Fn::Join'?: [string, unknown[]] };
  if (object.Ref !== undefined) return refs[object.Ref] ?? `<${object.Ref}>`;
  if (object['Fn::Join'] !== undefined) {
    const [separator, parts] = object['Fn::Join'];
    return parts.map((part) => resolved(part, refs)).join(separator);
  }
  return JSON.stringify(value);
}

const PUT_ON_PREFIX = {
  Sid: 'FailureObjects',
  Effect: 'Allow',
  Action: 's3:PutObject',
  Resource: [`${ARN}/*`],
};

describe('an S3 onFailure bucket on every face: s3:PutObject on its key prefix, nothing else', {
  timeout: 60_000,
}, () => {
  it('the plugin and the standalone template: one statement, the prefix, no SQS or SNS rights', () => {
    for (const role of [pluginTaskRole(ARN), standaloneTaskRole(ARN)]) {
      expect(s3Statements(role)).toEqual([PUT_ON_PREFIX]);
      expect(statementsOf(role).map((s) => s.Sid)).not.toContain('FailureQueues');
      expect(statementsOf(role).map((s) => s.Sid)).not.toContain('FailureTopics');
    }
    expect(failureStatements(standaloneTaskRole(ARN))).toEqual(failureStatements(pluginTaskRole(ARN)));
    // A stack file's bucket parameter, the ARN spelled with Fn::Sub: PutObject on the prefix only.
    const spelled = { 'Fn::Sub': `arn:\${AWS::Partition}:s3:::\${FailureBucket}/rocketmq` };
    expect(failureStatements(standaloneTaskRoleWith(spelled))).toEqual([
      { ...PUT_ON_PREFIX, Resource: [{ 'Fn::Sub': [`\${Arn}/*`, { Arn: spelled }] }] },
    ]);
    // Without a prefix: every key of the bucket, still PutObject only; the partition comes from the ARN.
    expect(s3Statements(pluginTaskRole('arn:aws-cn:s3:::acme-failures'))).toEqual([
      { ...PUT_ON_PREFIX, Resource: ['arn:aws-cn:s3:::acme-failures/*'] },
    ]);
  });

  it('the CDK: a bucket and onFailureKeyPrefix give the same statements as the ARN on the plugin', () => {
    const { role } = cdkTaskRole(
      (stack) => s3.Bucket.fromBucketArn(stack, 'Failures', 'arn:aws:s3:::acme-failures'),
      'rocketmq/prod',
    );
    expect(s3Statements(role)).toEqual([PUT_ON_PREFIX]);
    expect(failureStatements(role)).toEqual(failureStatements(pluginTaskRole(ARN)));
  });

  it('a bucket of the stack (its ARN a token): PutObject on <ARN>/<prefix>/*, as the plugin grants for the same intrinsic', () => {
    const { role, bucketId } = cdkTaskRole((stack) => new s3.Bucket(stack, 'Failures'), 'rocketmq/prod');
    const [put, ...others] = s3Statements(role);
    expect(others).toEqual([]);
    expect(put).toMatchObject({ Sid: 'FailureObjects', Effect: 'Allow', Action: 's3:PutObject' });
    const [resource] = (put as Statement).Resource as [{ 'Fn::Sub': [string, { Arn: unknown }] }];
    expect(resource['Fn::Sub'][0]).toBe(`\${Arn}/*`);
    // The ARN the CDK spelled, read with the partition and the bucket's name filled in.
    expect(
      resolved(resource['Fn::Sub'][1].Arn, {
        'AWS::Partition': 'aws',
        [bucketId as string]: 'acme-failures',
      }),
    ).toBe(ARN);
    // Spelled as an S3 ARN, it gets no SQS or SNS right.
    expect(statementsOf(role).map((s) => s.Sid)).not.toContain('FailureQueues');
    expect(statementsOf(role).map((s) => s.Sid)).not.toContain('FailureTopics');
    // The plugin given the same intrinsic (the bucket named FailuresBucket there) grants the same.
    const rename = (value: unknown) =>
      JSON.parse(JSON.stringify(value).replaceAll(bucketId as string, 'FailuresBucket'));
    const plugin = pluginTaskRole(rename(resource['Fn::Sub'][1].Arn));
    expect(rename(failureStatements(role))).toEqual(failureStatements(plugin));
    // An ARN the compiler cannot read (a bucket's GetAtt) gets each service's one action on it.
    const opaque = pluginTaskRole({ 'Fn::GetAtt': ['FailuresBucket', 'Arn'] });
    expect(s3Statements(opaque)).toEqual([
      {
        ...PUT_ON_PREFIX,
        Resource: [{ 'Fn::Sub': [`\${Arn}/*`, { Arn: { 'Fn::GetAtt': ['FailuresBucket', 'Arn'] } }] }],
      },
    ]);
  });

  it("an intrinsic ARN that spells SQS or SNS gets that service's one action, as a literal ARN does", () => {
    const queue = { 'Fn::Sub': `arn:\${AWS::Partition}:sqs:\${AWS::Region}:\${AWS::AccountId}:failures` };
    expect(failureStatements(pluginTaskRole(queue))).toEqual([
      { Sid: 'FailureQueues', Effect: 'Allow', Action: 'sqs:SendMessage', Resource: [queue] },
    ]);
    const topic = {
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:eu-west-1:111122223333:', { Ref: 'T' }]],
    };
    expect(failureStatements(pluginTaskRole(topic))).toEqual([
      { Sid: 'FailureTopics', Effect: 'Allow', Action: 'sns:Publish', Resource: [topic] },
    ]);
    // A Join with another separator is not read as one text: opaque, every service's action.
    const other = { 'Fn::Join': [':', ['arn', { Ref: 'AWS::Partition' }, 'sqs', 'eu-west-1', '1', 'q']] };
    expect(failureStatements(pluginTaskRole(other)).map((s) => s.Sid)).toEqual([
      'FailureQueues',
      'FailureTopics',
      'FailureObjects',
    ]);
  });

  it('the CDK refuses a key prefix without a bucket, or one S3 keys cannot start with', () => {
    const stack = new Stack(new App(), 'Refusals');
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0 });
    const fn = new lambda.Function(stack, 'Fn', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    });
    const poller = new RocketMQPoller(stack, 'Poller', { nameServers: CUSTOM.nameServers, vpc });
    const queue = new sqs.Queue(stack, 'Q');
    expect(() =>
      fn.addEventSource(
        new RocketMQEventSource({ poller, ...EVENT, onFailure: queue, onFailureKeyPrefix: 'x' }),
      ),
    ).toThrow(/onFailureKeyPrefix: only for an S3 bucket as onFailure/);
    const bucket = new s3.Bucket(stack, 'B');
    expect(() =>
      fn.addEventSource(
        new RocketMQEventSource({ poller, ...EVENT, onFailure: bucket, onFailureKeyPrefix: 'rocketmq/' }),
      ),
    ).toThrow(
      /onFailureKeyPrefix: "rocketmq\/": the key prefix after the bucket must not be empty, end with "\/"/,
    );
  });
});
