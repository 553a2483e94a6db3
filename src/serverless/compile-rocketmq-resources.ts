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
 *   service, and (unless `scaling: false`) target tracking on the lag per task, the service then without a
 *   `DesiredCount`; with `image.build`, the ECR repository the deploy pushes the built image to; with
 *   `image.pullThroughCache`, the ECR pull-through cache rule (unless `createRule: false`);
 * - unless turned off: three CloudWatch alarms per consumer group (`alarms`) and a dashboard
 *   (`dashboard`), on the metrics the pollers write to the log group as Embedded Metric Format.
 *
 * `enabled: false` leaves a mapping out of the poller's config and its function out of the task role; its
 * offsets stay in the table, so enabling it again resumes where it stopped. With no enabled mapping only
 * the table remains.
 */
import type { KeyPath } from '../config/config-problem.js';
import { formatKeyPath } from '../config/config-problem.js';
import { offsetTableDefinition } from '../offsets/dynamodb-offset-schema.js';
import { type CfnOutput, type CfnResource, type CfnString, stackArn, uniqueByJson } from './cfn-intrinsic.js';
import { RocketMQLogicalIds as Ids, RocketMQOutputIds } from './logical-ids.js';
import { placeholderFindings } from './placeholder-values.js';
import { RocketMQPluginError } from './plugin-error.js';
import { aclSecrets } from './poller-acl.js';
import { type AlarmPlan, alarmPlan, pollerAlarms } from './poller-alarms.js';
import { type PollerConfigSub, type PollerMapping, pollerConfigSub } from './poller-config-template.js';
import { pollerDashboard } from './poller-dashboard.js';
import { executionRole, taskRole } from './poller-iam.js';
import { pollerImagePlan } from './poller-image.js';
import { lagScaling, type ScalingPlan, scalingPlan } from './poller-scaling.js';
import { combinePollerSecrets } from './poller-secrets.js';
import { ecsClusterName, pollerService, pollerTaskDefinition } from './poller-service.js';
import { tlsSecrets } from './poller-tls-secrets.js';
import {
  CUSTOM_DEFAULTS,
  FARGATE_SIZES,
  type RocketMQCustomOptions,
  type RocketMQImageBuildOptions,
  rocketmqCustomSchema,
} from './rocketmq-custom-schema.js';
import {
  DEFAULT_BATCHING_WINDOW_SECONDS,
  type RocketMQEventOptions,
  rocketmqEventSchema,
} from './rocketmq-event-schema.js';
import { customRuleProblems, eventRuleProblems, validateWith } from './schema-problems.js';

/** Seconds of the stop timeout kept for saving offsets and unregistering after in-flight batches. */
const SHUTDOWN_MARGIN_SECONDS = 10;
/**
 * The Framework's timeout of a function that sets none (`timeout`, `provider.timeout`).
 */
export const FRAMEWORK_DEFAULT_TIMEOUT_SECONDS = 6;
/**
 * A function's timeout as the Framework takes it (`timeout`, `provider.timeout`): seconds, as a number or
 * (from a variable) a string of digits; anything else is no timeout.
 */
export function frameworkTimeoutSeconds(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}
/** The stage the Framework deploys to unless told. */
const FRAMEWORK_DEFAULT_STAGE = 'dev';

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
  /** The logical id of its `AWS::Lambda::Function` in the same template (or give {@link arn}). */
  readonly logicalId?: string | undefined;
  /** The logical id of the `AWS::Lambda::Alias` it is invoked through (provisioned concurrency), if any. */
  readonly aliasLogicalId?: string | undefined;
  /**
   * The function's unqualified ARN, a literal or an intrinsic, for a function that is not a resource of
   * the template (the standalone template, a CDK stack); takes the place of {@link logicalId}.
   */
  readonly arn?: CfnString | undefined;
  /** The qualified ARN (alias or version) the poller invokes instead of {@link arn}, if any. */
  readonly invokeArn?: CfnString | undefined;
  /** All its events, as written (`[{ http: ... }, { rocketmq: { ... } }]`). */
  readonly events: readonly unknown[];
  /**
   * Its timeout in seconds (`timeout`, else `provider.timeout`); absent: the Framework's 6 s. The poller
   * lets one invoke run this long (`functionTimeoutMs`).
   */
  readonly timeoutSeconds?: number | undefined;
}

/**
 * The input of {@link compileRocketMQResources}.
 *
 * @example
 * ```ts
 * const input: CompileRocketMQInput = { stage: 'prod', functions: [fn], custom: { nameServers: '10.0.0.10:9876', vpc: { subnetIds: ['subnet-0a1b2c3d4e5f67890'] } } };
 * ```
 */
export interface CompileRocketMQInput {
  readonly functions: readonly RocketMQFunctionInput[];
  /** `custom.rocketmq` as written (undefined when absent). */
  readonly custom: unknown;
  /** The stage deployed to (placeholder values are refused outside `local` and `dev`); default `dev`. */
  readonly stage?: string | undefined;
  /**
   * The image to run for one deploy while a stack created before `image.build` gains its repository
   * (deploy's `--param rocketmq-bootstrap-image=<uri>`).
   */
  readonly bootstrapImage?: string | undefined;
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
  /**
   * Resources the stack must have from its creation (the Framework's core template): the repository of
   * a built image, which the deploy pushes to before the stack update that starts tasks from it.
   */
  readonly coreResources: Readonly<Record<string, CfnResource>>;
  /** The poller's config (the task's `ROCKETMQ_LAMBDA_CONFIG`); undefined when no mapping is enabled. */
  readonly pollerConfig: PollerConfigSub | undefined;
  /** `image.build` when the deploy must build and push the image. */
  readonly imageBuild: RocketMQImageBuildOptions | undefined;
  /** Lines naming a key that the deployer should read (placeholders in a dev stage, scaling decisions). */
  readonly warnings: readonly string[];
}

const NOTHING: CompiledRocketMQ = {
  resources: {},
  outputs: {},
  coreResources: {},
  pollerConfig: undefined,
  imageBuild: undefined,
  warnings: [],
};

interface FoundEvent {
  readonly fn: RocketMQFunctionInput;
  readonly path: KeyPath;
  readonly event: RocketMQEventOptions;
}

/**
 * Compiles the `rocketmq` events of `input.functions` and `custom.rocketmq`. Pure but for the installed
 * package's version (the default image, read once from its package.json): same input, same
 * output; nothing is read from the environment. A service without `rocketmq` events gets nothing.
 * Throws {@link RocketMQPluginError} listing every problem, each naming its key.
 *
 * @example
 * ```ts
 * const { resources, outputs } = compileRocketMQResources({
 *   functions: [{ key: 'orders', logicalId: 'OrdersLambdaFunction',
 *     events: [{ rocketmq: { topic: 'Orders', consumerGroup: 'orders-fn' } }] }],
 *   custom: { nameServers: '10.0.0.10:9876', vpc: { subnetIds: ['subnet-0a1b2c3d4e5f67890'] } },
 *   stage: 'prod',
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
  if (eventCount === 0) return NOTHING;

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
  const warnings: string[] = [];
  const enabled = found.filter((f) => f.event.enabled !== false);
  let scaling: ScalingPlan | undefined;
  let alarms: AlarmPlan | undefined;
  if (custom !== undefined) {
    const placeholders = placeholderFindings(custom, input.stage ?? FRAMEWORK_DEFAULT_STAGE, customPath);
    problems.push(...placeholders.problems);
    warnings.push(...placeholders.warnings);
    if (enabled.length > 0) {
      const planned = scalingPlan(custom, enabled, customPath);
      problems.push(...planned.problems);
      warnings.push(...planned.warnings);
      scaling = planned.plan;
      const alarmMappings = enabled.map(({ fn, event }) => ({
        consumerGroup: event.consumerGroup,
        longestInvokeSeconds:
          (event.maximumBatchingWindow ?? DEFAULT_BATCHING_WINDOW_SECONDS) +
          (fn.timeoutSeconds ?? FRAMEWORK_DEFAULT_TIMEOUT_SECONDS),
      }));
      const alarmed = alarmPlan(custom, alarmMappings, planned.plan, customPath);
      warnings.push(...alarmed.warnings);
      alarms = alarmed.plan;
    }
  }
  if (problems.length > 0 || custom === undefined) throw new RocketMQPluginError(problems);
  return { ...compileValid(custom, enabled, scaling, alarms, input.bootstrapImage), warnings };
}

function compileValid(
  custom: RocketMQCustomOptions,
  enabled: readonly FoundEvent[],
  scaling: ScalingPlan | undefined,
  alarms: AlarmPlan | undefined,
  bootstrapImage: string | undefined,
): Omit<CompiledRocketMQ, 'warnings'> {
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
  if (enabled.length === 0 || scaling === undefined) {
    return { resources, outputs, coreResources: {}, pollerConfig: undefined, imageBuild: undefined };
  }

  const stopTimeoutSeconds = custom.stopTimeout ?? CUSTOM_DEFAULTS.stopTimeout;
  const mappings: PollerMapping[] = enabled.map(({ fn, event }) => ({
    functionKey: fn.key,
    functionArn: invokeArn(fn),
    event,
    functionTimeoutMs: (fn.timeoutSeconds ?? FRAMEWORK_DEFAULT_TIMEOUT_SECONDS) * 1000,
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

  const image = pollerImagePlan(custom.image, bootstrapImage);
  const coreResources: Record<string, CfnResource> = {};
  if (image.repository !== undefined) {
    resources[Ids.imageRepository] = image.repository;
    coreResources[Ids.imageRepository] = image.repository;
  }
  const secrets = combinePollerSecrets(aclSecrets(custom.acl), tlsSecrets(custom.tls));
  if (image.pullThroughCache?.rule !== undefined) {
    resources[Ids.pullThroughCacheRule] = image.pullThroughCache.rule;
  }
  resources[Ids.executionRole] = executionRole({
    ecrRepositoryArn: image.ecrRepositoryArn,
    pullThroughCache: image.pullThroughCache !== undefined,
    logGroupArn: { 'Fn::GetAtt': [Ids.logGroup, 'Arn'] },
    secretArns: secrets.secretArns,
    parameterArns: secrets.parameterArns,
    kmsKeyArn: custom.acl?.kmsKeyArn,
  });
  resources[Ids.taskRole] = taskRole({
    functionArns: uniqueByJson(enabled.map(({ fn }) => functionArn(fn))),
    tableArn,
    failureDestinations: uniqueByJson(
      enabled.flatMap(({ event }) => (event.onFailure === undefined ? [] : [event.onFailure])),
    ),
  });

  const cpu = custom.cpu ?? CUSTOM_DEFAULTS.cpu;
  const taskDefinition = pollerTaskDefinition({
    image: image.image,
    cpu,
    memory: custom.memory ?? FARGATE_SIZES[cpu]?.memoryMiB[0] ?? CUSTOM_DEFAULTS.memory,
    cpuArchitecture: custom.cpuArchitecture ?? CUSTOM_DEFAULTS.cpuArchitecture,
    config: pollerConfig,
    secrets: secrets.secrets,
    logGroup: { Ref: Ids.logGroup },
    logLevel: custom.logLevel ?? CUSTOM_DEFAULTS.logLevel,
    stopTimeoutSeconds,
    executionRoleArn: { 'Fn::GetAtt': [Ids.executionRole, 'Arn'] },
    taskRoleArn: { 'Fn::GetAtt': [Ids.taskRole, 'Arn'] },
  });
  // A task must not start before the rule exists: its first pull is what fills the cache.
  resources[Ids.taskDefinition] =
    image.pullThroughCache?.rule === undefined
      ? taskDefinition
      : { ...taskDefinition, DependsOn: [Ids.pullThroughCacheRule] };

  resources[Ids.service] = pollerService({
    cluster,
    taskDefinitionLogicalId: Ids.taskDefinition,
    desiredCount: scaling.kind === 'fixed' ? scaling.desiredCount : undefined,
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

  const clusterName = ecsClusterName(cluster);
  const consumerGroups = enabled.map(({ event }) => event.consumerGroup);
  if (scaling.kind === 'lag') {
    const { scalableTarget, scalingPolicy } = lagScaling(
      {
        clusterName,
        serviceLogicalId: Ids.service,
        minCount: scaling.minCount,
        maxCount: scaling.maxCount,
        targetLagPerTask: scaling.targetLagPerTask,
        consumerGroups,
      },
      Ids.scalableTarget,
    );
    resources[Ids.scalableTarget] = scalableTarget;
    resources[Ids.scalingPolicy] = scalingPolicy;
  }
  if (alarms !== undefined) Object.assign(resources, pollerAlarms(alarms, consumerGroups));
  if (custom.dashboard ?? CUSTOM_DEFAULTS.dashboard) {
    resources[Ids.dashboard] = pollerDashboard({
      consumerGroups,
      clusterName,
      serviceLogicalId: Ids.service,
      targetLagPerTask: scaling.kind === 'lag' ? scaling.targetLagPerTask : undefined,
      messageAgeSeconds: alarms?.messageAgeSeconds,
    });
  }
  return { resources, outputs, coreResources, pollerConfig, imageBuild: image.build };
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

/** The function's unqualified ARN: given, or read from its resource in the template. */
function functionArn(fn: RocketMQFunctionInput): CfnString {
  if (fn.arn !== undefined) return fn.arn;
  if (fn.logicalId === undefined) {
    throw new RocketMQPluginError([`functions.${fn.key}: neither a logical id nor an ARN is given`]);
  }
  return { 'Fn::GetAtt': [fn.logicalId, 'Arn'] };
}

/** The ARN the poller invokes: the alias or version when there is one, else the function. */
function invokeArn(fn: RocketMQFunctionInput): CfnString {
  if (fn.invokeArn !== undefined) return fn.invokeArn;
  if (fn.aliasLogicalId !== undefined) return { Ref: fn.aliasLogicalId };
  return functionArn(fn);
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
