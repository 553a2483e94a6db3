/**
 * The AWS SDK clients the deploy tests read an emulator (moto's server) with. CloudFormation and IAM come
 * from node_modules through osls, which depends on them; CloudWatch, DynamoDB, Lambda, SQS and SNS are the
 * poller's own dependencies. The JSON APIs without a client here go through callJsonApi (aws-json-api.ts).
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IAMClient } from '@aws-sdk/client-iam';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { JsonApiTarget } from './aws-json-api.js';

/**
 * The SDK clients of one emulator.
 *
 * @example
 * ```ts
 * const aws = awsClients({ endpoint: moto.endpoint, ...MOTO_CLIENT_CONFIG });
 * onTestFinished(() => aws.destroy());
 * ```
 */
export interface AwsClients {
  readonly target: JsonApiTarget;
  readonly cloudformation: CloudFormationClient;
  readonly cloudwatch: CloudWatchClient;
  readonly iam: IAMClient;
  readonly dynamodb: DynamoDBClient;
  readonly lambda: LambdaClient;
  readonly sqs: SQSClient;
  readonly sns: SNSClient;
  destroy(): void;
}

/**
 * Creates the SDK clients for `target`.
 *
 * @example
 * ```ts
 * const aws = awsClients({ endpoint: moto.endpoint, ...MOTO_CLIENT_CONFIG });
 * ```
 */
export function awsClients(target: JsonApiTarget): AwsClients {
  const config = { endpoint: target.endpoint, region: target.region, credentials: target.credentials };
  const clients = {
    cloudformation: new CloudFormationClient(config),
    cloudwatch: new CloudWatchClient(config),
    iam: new IAMClient(config),
    dynamodb: new DynamoDBClient(config),
    lambda: new LambdaClient(config),
    sqs: new SQSClient(config),
    sns: new SNSClient(config),
  };
  return {
    target,
    ...clients,
    destroy: () => {
      for (const client of Object.values(clients)) client.destroy();
    },
  };
}
