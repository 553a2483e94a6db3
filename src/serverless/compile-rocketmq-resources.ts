/**
 * The plugin's whole compile step as one pure function: the functions' `rocketmq` events and
 * `custom.rocketmq` in, the CloudFormation resources and outputs to add out. The `package:compileEvents`
 * hook only gathers the input and merges the result.
 *
 * What a service with `rocketmq` events gets:
 * - `RocketMQOffsetsTable`: the offsets (on-demand, point-in-time recovery, retained by default), unless
 *   `offsetsTable.existing` names one;
 * - when at least one event is enabled: an ECS cluster (unless `cluster` names one), a log group, the
 *   execution and task roles, a Fargate task definition running the poller with the generated config, the
 *   service, and (with `maxCount` above `minCount`) target tracking on the lag per task.
 *
 * `enabled: false` leaves a mapping out of the poller's config and its function out of the task role; its
 * offsets stay in the table, so enabling it again resumes where it stopped. With no enabled mapping only
 * the table remains.
 */
import type { KeyPath } from '../config/config-problem.js';
import { formatKeyPath } from '../config/config-problem.js';
import { offsetTableDefinition } from '../offsets/dynamodb-offset-schema.js';
import {
  type CfnIntrinsic,
  type CfnOutput,
  type CfnResource,
  type CfnString,
  isCfnIntrinsic,
  stackArn,
  uniqueByJson,
} from './cfn-intrinsic.js';
import { RocketMQLogicalIds as Ids, RocketMQOutputIds } from './logical-ids.js';
import { RocketMQPluginError } from './plugin-error.js';
import { type PollerConfigSub, type PollerMapping, pollerConfigSub } from './poller-config-template.js';
import { executionRole, taskRole } from './poller-iam.js';
import { lagScaling } from './poller-scaling.js';
import { type ContainerSecret, pollerService, pollerTaskDefinition } from './poller-service.js';
import {
  CUSTOM_DEFAULTS,
  FARGATE_SIZES,
  type RocketMQCustomOptions,
  rocketmqCustomSchema,
} from './rocketmq-custom-schema.js';
import { type RocketMQEventOptions, rocketmqEventSchema } from './rocketmq-event-schema.js';
import { customRuleProblems, eventRuleProblems, validateWith } from './schema-problems.js';

/** Seconds of the stop timeout kept for saving offsets and unregistering after in-flight batches. */
const SHUTDOWN_MARGIN_SECONDS = 10;

/**
 * One function of the service.
 *
 * @example
 * ```ts
 * const fn: RocketMQFunctionInput = { key: 'orders', logicalId: 'OrdersLambdaFunction',
 *   events: [{ rocketmq: { topic: 'Orders', consumerGroup: 'orders-fn' } }] };
 * ```
 */
export interface RocketMQFunctionInput {
  /** The function's key under `functions:`. */
  readonly key: string;
  /** The logical id of its `AWS::Lambda::Function`. */
  readonly logicalId: string;
  /** The logical id of the `AWS::Lambda::Alias` it is invoked through (provisioned concurrency), if any. */
  readonly aliasLogicalId?: string | undefined;
  /** All its events, as written (`[{ http: ... }, { rocketmq: { ... } }]`). */
  readonly events: readonly unknown[];
}

/**
 * The input of {@link compileRocketMQResources}.
 *
 * @example
 * ```ts
 * const input: CompileRocketMQInput = { functions: [fn], custom: { nameServers: '10.0.0.10:9876', image: 'poller:1', vpc: { subnetIds: ['subnet-1'] } } };
 * ```
 */
export interface CompileRocketMQInput {
  readonly functions: readonly RocketMQFunctionInput[];
  /** `custom.rocketmq` as written (undefined when absent). */
  readonly custom: unknown;
}

/**
 * What to add to the template.
 *
 * @example
 * ```ts
 * Object.assign(template.Resources, compiled.resources);
 * Object.assign(template.Outputs, compiled.outputs);
 * ```
 */
export interface CompiledRocketMQ {
  readonly resources: Readonly<Record<string, CfnResource>>;
  readonly outputs: Readonly<Record<string, CfnOutput>>;
  /** The poller's config (the task's `ROCKETMQ_LAMBDA_CONFIG`); undefined when no mapping is enabled. */
  readonly pollerConfig: PollerConfigSub | undefined;
}

interface FoundEvent {
  readonly fn: RocketMQFunctionInput;
  readonly path: KeyPath;
  readonly event: RocketMQEventOptions;
}

/**
 * Compiles the `rocketmq` events of `input.functions` and `custom.rocketmq`. Pure: same input, same
 * output; nothing is read from the environment. A service without `rocketmq` events gets nothing.
 * Throws {@link RocketMQPluginError} listing every problem, each naming its key.
 *
 * @example
 * ```ts
 * const { resources, outputs } = compileRocketMQResources({
 *   functions: [{ key: 'orders', logicalId: 'OrdersLambdaFunction',
 *     events: [{ rocketmq: { topic: 'Orders', consumerGroup: 'orders-fn' } }] }],
 *   custom: { nameServers: '10.0.0.10:9876', image: 'poller:1', vpc: { subnetIds: ['subnet-1'] } },
 * });
 * Object.keys(resources); // => ['RocketMQOffsetsTable', 'RocketMQPollerCluster', ...]
 * ```
 */
export function compileRocketMQResources(input: CompileRocketMQInput): CompiledRocketMQ {
  const problems: string[] = [];
  const found: FoundEvent[] = [];
  let eventCount = 0;
  for (const fn of input.functions) {
    fn.events.forEach((entry, index) => {
      if (!hasOwn(entry, 'rocketmq')) return;
      eventCount++;
      const path: KeyPath = ['functions', fn.key, 'events', index, 'rocketmq'];
      const checked = validateWith(rocketmqEventSchema, entry.rocketmq, path);
      if (!checked.ok) {
        problems.push(...checked.problems);
        return;
      }
      problems.push(...eventRuleProblems(checked.value, path));
      found.push({ fn, path, event: checked.value });
    });
  }
  if (eventCount === 0) return { resources: {}, outputs: {}, pollerConfig: undefined };

  problems.push(...sharedGroupProblems(found));
  const customPath: KeyPath = ['custom', 'rocketmq'];
  let custom: RocketMQCustomOptions | undefined;
  if (input.custom === undefined) {
    problems.push(`${formatKeyPath(customPath)}: required when a function has a rocketmq event`);
  } else {
    const checked = validateWith(rocketmqCustomSchema, input.custom, customPath);
    if (checked.ok) {
      problems.push(...customRuleProblems(checked.value, customPath));
      custom = checked.value;
    } else {
      problems.push(...checked.problems);
    }
  }
  if (problems.length > 0 || custom === undefined) throw new RocketMQPluginError(problems);
  return compileValid(
    custom,
    found.filter((f) => f.event.enabled !== false),
  );
}

function compileValid(custom: RocketMQCustomOptions, enabled: readonly FoundEvent[]): CompiledRocketMQ {
  const resources: Record<string, CfnResource> = {};
  const outputs: Record<string, CfnOutput> = {};

  const existingTable = custom.offsetsTable?.existing;
  let tableName: CfnString;
  let tableArn: CfnString;
  if (existingTable === undefined) {
    resources[Ids.offsetsTable] = offsetsTable(custom);
    tableName = { Ref: Ids.offsetsTable };
    tableArn = { 'Fn::GetAtt': [Ids.offsetsTable, 'Arn'] };
  } else {
    tableName = existingTable;
    tableArn = stackArn('dynamodb', `table/${existingTable}`);
  }
  outputs[RocketMQOutputIds.offsetsTableName] = {
    Description: 'The DynamoDB table of the RocketMQ consumer offsets',
    Value: tableName,
  };
  if (enabled.length === 0) return { resources, outputs, pollerConfig: undefined };

  const stopTimeoutSeconds = custom.stopTimeout ?? CUSTOM_DEFAULTS.stopTimeout;
  const mappings: PollerMapping[] = enabled.map(({ fn, event }) => ({
    functionKey: fn.key,
    functionArn:
      fn.aliasLogicalId === undefined ? { 'Fn::GetAtt': [fn.logicalId, 'Arn'] } : { Ref: fn.aliasLogicalId },
    event,
  }));
  const pollerConfig = pollerConfigSub(
    {
      nameServers: custom.nameServers,
      tls: custom.tls ?? CUSTOM_DEFAULTS.tls,
      offsetsTable: tableName,
      shutdownTimeoutMs: (stopTimeoutSeconds - SHUTDOWN_MARGIN_SECONDS) * 1000,
    },
    mappings,
  );

  const cluster: CfnString = custom.cluster ?? { Ref: Ids.cluster };
  if (custom.cluster === undefined) resources[Ids.cluster] = { Type: 'AWS::ECS::Cluster', Properties: {} };
  resources[Ids.logGroup] = {
    Type: 'AWS::Logs::LogGroup',
    Properties: { RetentionInDays: custom.logRetentionInDays ?? CUSTOM_DEFAULTS.logRetentionInDays },
  };

  const acl = aclSecrets(custom.acl);
  resources[Ids.executionRole] = executionRole({
    image: custom.image,
    logGroupArn: { 'Fn::GetAtt': [Ids.logGroup, 'Arn'] },
    secretArns: acl.secretArns,
    parameterArns: acl.parameterArns,
    kmsKeyArn: custom.acl?.kmsKeyArn,
  });
  resources[Ids.taskRole] = taskRole({
    functionArns: uniqueByJson(
      enabled.map(({ fn }) => ({ 'Fn::GetAtt': [fn.logicalId, 'Arn'] }) as CfnIntrinsic),
    ),
    tableArn,
    failureDestinations: uniqueByJson(
      enabled.flatMap(({ event }) => (event.onFailure === undefined ? [] : [event.onFailure])),
    ),
  });

  const cpu = custom.cpu ?? CUSTOM_DEFAULTS.cpu;
  resources[Ids.taskDefinition] = pollerTaskDefinition({
    image: custom.image,
    cpu,
    memory: custom.memory ?? FARGATE_SIZES[cpu]?.memoryMiB[0] ?? CUSTOM_DEFAULTS.memory,
    cpuArchitecture: custom.cpuArchitecture ?? CUSTOM_DEFAULTS.cpuArchitecture,
    config: pollerConfig,
    secrets: acl.secrets,
    logGroup: { Ref: Ids.logGroup },
    logLevel: custom.logLevel ?? CUSTOM_DEFAULTS.logLevel,
    stopTimeoutSeconds,
    executionRoleArn: { 'Fn::GetAtt': [Ids.executionRole, 'Arn'] },
    taskRoleArn: { 'Fn::GetAtt': [Ids.taskRole, 'Arn'] },
  });

  const desiredCount = custom.desiredCount ?? custom.minCount ?? CUSTOM_DEFAULTS.desiredCount;
  resources[Ids.service] = pollerService({
    cluster,
    taskDefinitionLogicalId: Ids.taskDefinition,
    desiredCount,
    subnetIds: custom.vpc.subnetIds,
    securityGroupIds: custom.vpc.securityGroupIds,
    assignPublicIp: custom.vpc.assignPublicIp ?? CUSTOM_DEFAULTS.assignPublicIp,
  });
  outputs[RocketMQOutputIds.pollerServiceName] = {
    Description: 'The ECS service of the RocketMQ poller',
    Value: { 'Fn::GetAtt': [Ids.service, 'Name'] },
  };
  outputs[RocketMQOutputIds.pollerLogGroupName] = {
    Description: 'The log group of the RocketMQ poller',
    Value: { Ref: Ids.logGroup },
  };

  const minCount = custom.minCount ?? desiredCount;
  const maxCount = custom.maxCount ?? desiredCount;
  if (maxCount > minCount) {
    const { scalableTarget, scalingPolicy } = lagScaling(
      {
        clusterName: cluster,
        serviceLogicalId: Ids.service,
        minCount,
        maxCount,
        targetLagPerTask: custom.targetLagPerTask ?? CUSTOM_DEFAULTS.targetLagPerTask,
        consumerGroups: enabled.map(({ event }) => event.consumerGroup),
      },
      Ids.scalableTarget,
    );
    resources[Ids.scalableTarget] = scalableTarget;
    resources[Ids.scalingPolicy] = scalingPolicy;
  }
  return { resources, outputs, pollerConfig };
}

function offsetsTable(custom: RocketMQCustomOptions): CfnResource {
  const { TableName, ...definition } = offsetTableDefinition(custom.offsetsTable?.name ?? 'unnamed');
  const retain = custom.offsetsTable?.retain ?? CUSTOM_DEFAULTS.retainOffsetsTable;
  return {
    Type: 'AWS::DynamoDB::Table',
    DeletionPolicy: retain ? 'Retain' : 'Delete',
    UpdateReplacePolicy: retain ? 'Retain' : 'Delete',
    Properties: {
      ...(custom.offsetsTable?.name === undefined ? {} : { TableName }),
      ...definition,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    },
  };
}

/** ECS secrets for the ACL credentials and the ARNs the execution role must read. */
function aclSecrets(acl: RocketMQCustomOptions['acl']): {
  secrets: ContainerSecret[];
  secretArns: CfnString[];
  parameterArns: CfnString[];
} {
  if (acl === undefined) return { secrets: [], secretArns: [], parameterArns: [] };
  if (acl.secretArn !== undefined) {
    const arn = acl.secretArn;
    const jsonKey = (key: string): CfnString =>
      isCfnIntrinsic(arn) ? { 'Fn::Join': ['', [arn, `:${key}::`]] } : `${arn}:${key}::`;
    return {
      secrets: [
        { Name: 'ROCKETMQ_ACCESS_KEY', ValueFrom: jsonKey('accessKey') },
        { Name: 'ROCKETMQ_SECRET_KEY', ValueFrom: jsonKey('secretKey') },
      ],
      secretArns: [arn],
      parameterArns: [],
    };
  }
  const parameters = [
    { Name: 'ROCKETMQ_ACCESS_KEY', parameter: acl.accessKeyParameter },
    { Name: 'ROCKETMQ_SECRET_KEY', parameter: acl.secretKeyParameter },
  ].flatMap(({ Name, parameter }) => (parameter === undefined ? [] : [{ Name, parameter }]));
  return {
    secrets: parameters.map(({ Name, parameter }) => ({ Name, ValueFrom: parameter })),
    secretArns: [],
    parameterArns: parameters.map(({ parameter }) => parameterArn(parameter)),
  };
}

/** The ARN of an SSM parameter given by name (`/a/b` or `a`) or ARN. */
function parameterArn(parameter: string): CfnString {
  if (parameter.startsWith('arn:')) return parameter;
  return stackArn('ssm', `parameter${parameter.startsWith('/') ? '' : '/'}${parameter}`);
}

/** One event per consumer group: RocketMQ keeps one subscription per group. */
function sharedGroupProblems(found: readonly FoundEvent[]): string[] {
  const first = new Map<string, FoundEvent>();
  const problems: string[] = [];
  for (const entry of found) {
    const group = entry.event.consumerGroup;
    const earlier = first.get(group);
    if (earlier === undefined) {
      first.set(group, entry);
      continue;
    }
    problems.push(
      `${formatKeyPath([...entry.path, 'consumerGroup'])}: "${group}" is already the group of ${formatKeyPath(earlier.path)} (one event per consumer group)`,
    );
  }
  return problems;
}

function hasOwn(value: unknown, key: string): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key);
}
