/**
 * The CDK example app: `cd infra/cdk && npx cdk synth` (cdk.json runs this file with tsx). Context keys
 * override the example's network: `-c nameServers=... -c vpcId=... -c subnetIds=a,b -c availabilityZones=x,y
 * -c securityGroupId=... -c aclSecretArn=...`.
 */
import { App } from 'aws-cdk-lib';
import { EXAMPLE_NETWORK, RocketMQOrdersStack } from './rocketmq-orders-stack.js';

const app = new App();
const context = (key: keyof typeof EXAMPLE_NETWORK): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' ? value : undefined;
};
const list = (key: 'subnetIds' | 'availabilityZones'): readonly string[] =>
  context(key)?.split(',') ?? EXAMPLE_NETWORK[key];

new RocketMQOrdersStack(app, 'RocketMQOrders', {
  env: {
    account: process.env.CDK_DEFAULT_ACCOUNT ?? '111122223333',
    region: process.env.CDK_DEFAULT_REGION ?? 'eu-west-1',
  },
  nameServers: context('nameServers') ?? EXAMPLE_NETWORK.nameServers,
  vpcId: context('vpcId') ?? EXAMPLE_NETWORK.vpcId,
  subnetIds: list('subnetIds'),
  availabilityZones: list('availabilityZones'),
  securityGroupId: context('securityGroupId') ?? EXAMPLE_NETWORK.securityGroupId,
  aclSecretArn: context('aclSecretArn') ?? EXAMPLE_NETWORK.aclSecretArn,
});
app.synth();
