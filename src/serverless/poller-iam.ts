/**
 * The two roles of the poller task, least privilege:
 * - the execution role (ECS itself): pull the image, write the log group, read the ACL secrets;
 * - the task role (the poller): invoke exactly the mapped functions, use the offsets table, send to the
 *   failure destinations (`s3:PutObject` on an S3 destination's key prefix, nothing else of S3). No CloudWatch permission: the poller's metrics are Embedded Metric Format lines
 *   in its log stream, which the execution role's log rights already ship.
 */

import { isS3Arn } from '../util/s3-bucket-arn.js';
import {
  type CfnIntrinsic,
  type CfnResource,
  type CfnString,
  isCfnIntrinsic,
  stackArn,
  uniqueByJson,
} from './cfn-intrinsic.js';

/** What the execution role must allow. */
export interface ExecutionRoleNeeds {
  /** The ECR repository of the image (pull rights on it), or undefined for other registries. */
  readonly ecrRepositoryArn: CfnString | undefined;
  /**
   * The repository is a pull-through cache's: the first pull of a tag has ECR create the repository and
   * import the image from upstream, on the puller's rights.
   */
  readonly pullThroughCache?: boolean;
  /** The log group's ARN (`Fn::GetAtt` Arn, which covers its streams). */
  readonly logGroupArn: CfnIntrinsic;
  /** Secrets Manager secrets (as IAM resources: full ARNs, or partial ones with `-??????`) read into ECS secrets. */
  readonly secretArns: readonly CfnString[];
  /** SSM parameter ARNs read into ECS secrets. */
  readonly parameterArns: readonly CfnString[];
  /** The KMS key that encrypts them, if customer managed. */
  readonly kmsKeyArn: CfnString | undefined;
}

/** What the task role must allow. */
export interface TaskRoleNeeds {
  /** ARNs of the mapped functions (unqualified; `:*` is added for versions and aliases). */
  readonly functionArns: readonly CfnString[];
  readonly tableArn: CfnString;
  /** onFailure destinations: literal SQS/SNS/S3 ARNs, or intrinsics (service unknown until deploy). */
  readonly failureDestinations: readonly CfnString[];
}

type Statement = Readonly<Record<string, unknown>>;

const ECS_TASKS = 'ecs-tasks.amazonaws.com';

/**
 * The execution role.
 */
export function executionRole(needs: ExecutionRoleNeeds): CfnResource {
  const statements: Statement[] = [
    {
      Sid: 'WriteLogs',
      Effect: 'Allow',
      Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      Resource: needs.logGroupArn,
    },
    ...ecrStatements(needs.ecrRepositoryArn),
    ...pullThroughCacheStatements(needs),
  ];
  if (needs.secretArns.length > 0) {
    statements.push({
      Sid: 'ReadAclSecret',
      Effect: 'Allow',
      Action: 'secretsmanager:GetSecretValue',
      Resource: [...needs.secretArns],
    });
  }
  if (needs.parameterArns.length > 0) {
    statements.push({
      Sid: 'ReadAclParameters',
      Effect: 'Allow',
      Action: 'ssm:GetParameters',
      Resource: [...needs.parameterArns],
    });
  }
  if (needs.kmsKeyArn !== undefined) {
    statements.push({ Sid: 'DecryptAcl', Effect: 'Allow', Action: 'kms:Decrypt', Resource: needs.kmsKeyArn });
  }
  return role(
    'Pulls the image, writes the logs and reads the ACL secrets of the RocketMQ poller',
    statements,
    false,
  );
}

/**
 * The task role.
 */
export function taskRole(needs: TaskRoleNeeds): CfnResource {
  const statements: Statement[] = [
    {
      Sid: 'InvokeMappedFunctions',
      Effect: 'Allow',
      Action: 'lambda:InvokeFunction',
      Resource: needs.functionArns.flatMap((arn) => [arn, { 'Fn::Sub': [`\${Arn}:*`, { Arn: arn }] }]),
    },
    {
      Sid: 'Offsets',
      Effect: 'Allow',
      Action: [
        'dynamodb:DescribeTable',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:Query',
      ],
      Resource: needs.tableArn,
    },
    ...failureStatements(needs.failureDestinations),
  ];
  return role('Lets the RocketMQ poller invoke the mapped functions and keep its offsets', statements, true);
}

function failureStatements(destinations: readonly CfnString[]): Statement[] {
  const queues: CfnString[] = [];
  const topics: CfnString[] = [];
  const objects: CfnString[] = [];
  for (const destination of destinations) {
    if (isCfnIntrinsic(destination)) {
      // An ARN whose text spells its service (`arn:${AWS::Partition}:s3:::${Bucket}`, as the CDK writes a
      // bucket's, queue's or topic's) gets that service's action only; any other is known at deploy time
      // only, and each action applies to its own service's ARNs.
      const service = spelledService(destination);
      if (service === undefined || service === 's3') {
        objects.push({ 'Fn::Sub': [`\${Arn}/*`, { Arn: destination }] });
      }
      if (service === undefined || service === 'sqs') queues.push(destination);
      if (service === undefined || service === 'sns') topics.push(destination);
    } else if (isS3Arn(destination)) {
      // Objects under the ARN's key prefix only (src/invoke/s3-failure-key.ts puts every key there).
      objects.push(`${destination}/*`);
    } else if (destination.split(':')[2] === 'sqs') {
      queues.push(destination);
    } else {
      topics.push(destination);
    }
  }
  const statements: Statement[] = [];
  if (queues.length > 0) {
    statements.push({
      Sid: 'FailureQueues',
      Effect: 'Allow',
      Action: 'sqs:SendMessage',
      Resource: uniqueByJson(queues),
    });
  }
  if (topics.length > 0) {
    statements.push({
      Sid: 'FailureTopics',
      Effect: 'Allow',
      Action: 'sns:Publish',
      Resource: uniqueByJson(topics),
    });
  }
  if (objects.length > 0) {
    statements.push({
      Sid: 'FailureObjects',
      Effect: 'Allow',
      Action: 's3:PutObject',
      Resource: uniqueByJson(objects),
    });
  }
  return statements;
}

/**
 * The service the literal text of an intrinsic ARN (`Fn::Sub`'s, `Fn::Join`'s parts) names, when it names
 * one of the failure destinations' (`arn:<partition>:s3:::`, `arn:<partition>:sqs:`, `arn:<partition>:sns:`).
 */
function spelledService(destination: CfnIntrinsic): 's3' | 'sqs' | 'sns' | undefined {
  const texts: string[] = [];
  const sub = (destination as { 'Fn::Sub'?: unknown })['Fn::Sub'];
  if (typeof sub === 'string') texts.push(sub);
  if (Array.isArray(sub) && typeof sub[0] === 'string') texts.push(sub[0]);
  const join = (destination as { 'Fn::Join'?: unknown })['Fn::Join'];
  if (Array.isArray(join) && join[0] === '' && Array.isArray(join[1])) {
    texts.push(join[1].map((part: unknown) => (typeof part === 'string' ? part : '\u0000')).join(''));
  }
  for (const text of texts) {
    const match = /^arn:(?:\$\{AWS::Partition\}|[^:]*):(s3|sqs|sns):/.exec(text);
    if (match?.[1] === 's3' && !text.startsWith(':::', match[0].length - 1)) continue;
    if (match !== null) return match[1] as 's3' | 'sqs' | 'sns';
  }
  return undefined;
}

function ecrStatements(repositoryArn: CfnString | undefined): Statement[] {
  if (repositoryArn === undefined) return [];
  return [
    { Sid: 'EcrLogin', Effect: 'Allow', Action: 'ecr:GetAuthorizationToken', Resource: '*' },
    {
      Sid: 'PullImage',
      Effect: 'Allow',
      Action: ['ecr:BatchCheckLayerAvailability', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchGetImage'],
      Resource: repositoryArn,
    },
  ];
}

function pullThroughCacheStatements(needs: ExecutionRoleNeeds): Statement[] {
  if (needs.pullThroughCache !== true || needs.ecrRepositoryArn === undefined) return [];
  return [
    {
      Sid: 'PullThroughCache',
      Effect: 'Allow',
      Action: ['ecr:BatchImportUpstreamImage', 'ecr:CreateRepository'],
      Resource: needs.ecrRepositoryArn,
    },
  ];
}

function role(
  description: string,
  statements: readonly Statement[],
  confusedDeputyGuard: boolean,
): CfnResource {
  const assume: Record<string, unknown> = {
    Effect: 'Allow',
    Principal: { Service: ECS_TASKS },
    Action: 'sts:AssumeRole',
  };
  if (confusedDeputyGuard) {
    assume.Condition = {
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnLike: { 'aws:SourceArn': stackArn('ecs', '*') },
    };
  }
  return {
    Type: 'AWS::IAM::Role',
    Properties: {
      Description: description,
      AssumeRolePolicyDocument: { Version: '2012-10-17', Statement: [assume] },
      Policies: [
        {
          PolicyName: 'rocketmq-poller',
          PolicyDocument: { Version: '2012-10-17', Statement: [...statements] },
        },
      ],
    },
  };
}
