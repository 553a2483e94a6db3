/**
 * The example mapping of docs/deploying.md as a CDK stack: the `orders` function (30 s timeout) consumes
 * topic `Orders` as group `orders-lambda` in batches of up to 100, through the poller in two private
 * subnets, with RocketMQ ACL keys from Secrets Manager. The same mapping as the Serverless example and the
 * standalone template's stack file; test/unit/cdk/three-faces.test.ts keeps the three equal.
 *
 * In your own app, import from the package: `import { RocketMQEventSource, RocketMQPoller } from
 * 'rocketmq-lambda/cdk'`.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { RocketMQEventSource, RocketMQPoller } from '../../src/cdk/index.js';

/**
 * Where the stack's poller runs: your network and your cluster's addresses.
 */
export interface RocketMQOrdersStackProps extends StackProps {
  /** The name servers, as the tasks reach them. */
  readonly nameServers: string;
  readonly vpcId: string;
  /** Private subnets of the tasks (a NAT gateway, or the VPC endpoints of docs/deploying.md). */
  readonly subnetIds: readonly string[];
  /** Their availability zones, one per subnet. */
  readonly availabilityZones: readonly string[];
  /** The tasks' security group (egress to the name servers, brokers and AWS APIs). */
  readonly securityGroupId: string;
  /** The Secrets Manager secret with the ACL keys (JSON `accessKey`, `secretKey`), by (partial) ARN. */
  readonly aclSecretArn: string;
}

/**
 * One function and its RocketMQ mapping.
 *
 * @example
 * ```ts
 * new RocketMQOrdersStack(app, 'Orders', { env, nameServers: '10.0.0.10:9876', vpcId, subnetIds,
 *   availabilityZones, securityGroupId, aclSecretArn });
 * ```
 */
export class RocketMQOrdersStack extends Stack {
  readonly orders: lambda.Function;
  readonly poller: RocketMQPoller;

  constructor(scope: Construct, id: string, props: RocketMQOrdersStackProps) {
    super(scope, id, props);
    const vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: props.vpcId,
      availabilityZones: [...props.availabilityZones],
      privateSubnetIds: [...props.subnetIds],
    });
    this.orders = new lambda.Function(this, 'Orders', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      // Your handler here (lambda.Code.fromAsset, NodejsFunction); inline keeps the example self-contained.
      code: lambda.Code.fromInline(
        'exports.handler = async (event) => ({ batchItemFailures: [], records: event.records.length });',
      ),
      timeout: Duration.seconds(30),
    });
    this.poller = new RocketMQPoller(this, 'Poller', {
      nameServers: props.nameServers,
      vpc,
      securityGroups: [
        ec2.SecurityGroup.fromSecurityGroupId(this, 'PollerSecurityGroup', props.securityGroupId),
      ],
      acl: { secret: secretsmanager.Secret.fromSecretPartialArn(this, 'Acl', props.aclSecretArn) },
    });
    this.orders.addEventSource(
      new RocketMQEventSource({
        poller: this.poller,
        topic: 'Orders',
        consumerGroup: 'orders-lambda',
        batchSize: 100,
      }),
    );
  }
}

/** The values of the docs' example (docs/deploying.md): replace them with yours (`cdk synth -c key=value`). */
export const EXAMPLE_NETWORK = {
  nameServers: '10.0.0.10:9876;10.0.0.11:9876',
  vpcId: 'vpc-0b1c2d3e4f5a69788',
  subnetIds: ['subnet-0f3e2d1c4b5a69788', 'subnet-0e4d3c2b1a0f98765'],
  availabilityZones: ['eu-west-1a', 'eu-west-1b'],
  securityGroupId: 'sg-0c1d2e3f4a5b69788',
  aclSecretArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:rocketmq/acl',
} as const;
