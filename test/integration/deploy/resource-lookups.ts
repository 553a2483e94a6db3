/**
 * Single resources of a deployed stack looked up in their own services (Lambda, DynamoDB, CloudWatch Logs,
 * CloudWatch dashboards, SQS, SNS, IAM, ECS): their ARNs, and whether they still exist after the stack's
 * deletion.
 */
import { GetDashboardCommand, ListDashboardsCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeTableCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { GetRoleCommand, NoSuchEntityException } from '@aws-sdk/client-iam';
import {
  ResourceNotFoundException as FunctionNotFoundException,
  GetFunctionCommand,
} from '@aws-sdk/client-lambda';
import { GetTopicAttributesCommand, NotFoundException } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, QueueDoesNotExist } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import type { AwsClients } from './aws-clients.js';
import { callJsonApi, ECS_API, JsonApiError, LOGS_API } from './aws-json-api.js';
import type { StackResource } from './deployed-stack.js';
import { describeService, describeTaskDefinition } from './poller-task.js';

/**
 * The ARN of Lambda function `name`, from Lambda.
 *
 * @example
 * ```ts
 * await functionArn(aws, stack.resource('OrdersLambdaFunction').physicalId); // => 'arn:aws:lambda:...:function:...'
 * ```
 */
export async function functionArn(aws: AwsClients, name: string): Promise<string> {
  const { Configuration } = await aws.lambda.send(new GetFunctionCommand({ FunctionName: name }));
  if (Configuration?.FunctionArn === undefined) throw new Error(`Lambda has no function ${name}`);
  return Configuration.FunctionArn;
}

/**
 * The ARN of DynamoDB table `name`, from DynamoDB.
 *
 * @example
 * ```ts
 * await tableArn(aws, stack.resource('RocketMQOffsetsTable').physicalId); // => 'arn:aws:dynamodb:...:table/...'
 * ```
 */
export async function tableArn(aws: AwsClients, name: string): Promise<string> {
  const { Table } = await aws.dynamodb.send(new DescribeTableCommand({ TableName: name }));
  if (Table?.TableArn === undefined) throw new Error(`DynamoDB has no table ${name}`);
  return Table.TableArn;
}

/**
 * The ARN of log group `name` (without the `:*` of its streams), from CloudWatch Logs.
 *
 * @example
 * ```ts
 * await logGroupArn(aws, stack.resource('RocketMQPollerLogGroup').physicalId); // => 'arn:aws:logs:...:log-group:...'
 * ```
 */
export async function logGroupArn(aws: AwsClients, name: string): Promise<string> {
  const answer = await callJsonApi(aws.target, LOGS_API, 'DescribeLogGroups', { logGroupNamePrefix: name });
  const { logGroups } = z
    .object({ logGroups: z.array(z.object({ logGroupName: z.string(), arn: z.string() })) })
    .parse(answer);
  const arn = logGroups.find((group) => group.logGroupName === name)?.arn;
  if (arn === undefined) throw new Error(`CloudWatch Logs has no log group ${name}`);
  return arn.replace(/:\*$/, '');
}

/**
 * The ARN of the SQS queue at `url`, from SQS.
 *
 * @example
 * ```ts
 * await queueArn(aws, stack.resource('FailuresQueue').physicalId); // => 'arn:aws:sqs:...'
 * ```
 */
export async function queueArn(aws: AwsClients, url: string): Promise<string> {
  const { Attributes } = await aws.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  const arn = Attributes?.QueueArn;
  if (arn === undefined) throw new Error(`SQS has no queue ${url}`);
  return arn;
}

/**
 * The body of CloudWatch dashboard `name`, as CloudWatch stores it (the JSON text after CloudFormation's
 * substitutions).
 *
 * @example
 * ```ts
 * JSON.parse(await dashboardBody(aws, stack.resource('RocketMQPollerDashboard').physicalId)).widgets;
 * ```
 */
export async function dashboardBody(aws: AwsClients, name: string): Promise<string> {
  const { DashboardBody } = await aws.cloudwatch.send(new GetDashboardCommand({ DashboardName: name }));
  if (DashboardBody === undefined) throw new Error(`CloudWatch has no dashboard ${name}`);
  return DashboardBody;
}

/**
 * Whether the service API of `resource` still shows it (an ECS cluster, task definition or service
 * counts while ACTIVE); undefined for types the tests do not look up.
 *
 * @example
 * ```ts
 * await resourceExists(aws, stack.resource('RocketMQPollerTaskRole')); // => true
 * ```
 */
export async function resourceExists(aws: AwsClients, resource: StackResource): Promise<boolean | undefined> {
  const id = resource.physicalId;
  if (id === undefined) return undefined;
  const absentOn = async (action: () => Promise<unknown>, notFound: (error: unknown) => boolean) => {
    try {
      await action();
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  };
  switch (resource.type) {
    case 'AWS::DynamoDB::Table':
      return absentOn(
        () => aws.dynamodb.send(new DescribeTableCommand({ TableName: id })),
        (e) => e instanceof ResourceNotFoundException,
      );
    case 'AWS::IAM::Role':
      return absentOn(
        () => aws.iam.send(new GetRoleCommand({ RoleName: id })),
        (e) => e instanceof NoSuchEntityException,
      );
    case 'AWS::Lambda::Function':
      return absentOn(
        () => aws.lambda.send(new GetFunctionCommand({ FunctionName: id })),
        (e) => e instanceof FunctionNotFoundException,
      );
    case 'AWS::SQS::Queue':
      return absentOn(
        () => aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: id, AttributeNames: ['QueueArn'] })),
        (e) => e instanceof QueueDoesNotExist,
      );
    case 'AWS::SNS::Topic':
      return absentOn(
        () => aws.sns.send(new GetTopicAttributesCommand({ TopicArn: id })),
        (e) => e instanceof NotFoundException,
      );
    case 'AWS::Logs::LogGroup': {
      const answer = await callJsonApi(aws.target, LOGS_API, 'DescribeLogGroups', { logGroupNamePrefix: id });
      const { logGroups } = z
        .object({ logGroups: z.array(z.object({ logGroupName: z.string() })) })
        .parse(answer);
      return logGroups.some((group) => group.logGroupName === id);
    }
    case 'AWS::ECS::Cluster': {
      const answer = await callJsonApi(aws.target, ECS_API, 'DescribeClusters', { clusters: [id] });
      const { clusters } = z.object({ clusters: z.array(z.object({ status: z.string() })) }).parse(answer);
      return clusters[0]?.status === 'ACTIVE';
    }
    case 'AWS::ECS::TaskDefinition':
      try {
        return (await describeTaskDefinition(aws, id)).status === 'ACTIVE';
      } catch (error) {
        if (error instanceof JsonApiError && error.type.endsWith('ClientException')) return false;
        throw error;
      }
    case 'AWS::ECS::Service':
      return (await describeService(aws, id))?.status === 'ACTIVE';
    case 'AWS::CloudWatch::Dashboard': {
      const { DashboardEntries } = await aws.cloudwatch.send(
        new ListDashboardsCommand({ DashboardNamePrefix: id }),
      );
      return (DashboardEntries ?? []).some((entry) => entry.DashboardName === id);
    }
    default:
      return undefined;
  }
}
