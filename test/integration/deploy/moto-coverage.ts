/**
 * What moto's CloudFormation does with each resource type of the deploy tests' stacks, per type: created
 * for real (its service's API then shows it) or skipped as not supported; which template properties its
 * model drops; whether deleting the stack deletes it. The tests measure all of it and compare with
 * {@link MOTO_CLOUDFORMATION}, so a moto upgrade that changes any of it fails them, naming the resource.
 *
 * What moto does not create, or creates without some properties, is checked by cfn-lint alone (the
 * tests lint the very templates they deploy).
 *
 * moto's other differences from AWS that the tests meet, each handled where it shows:
 * - GetRolePolicy answers a template-made role's inline policy as Python's repr, not JSON (role-policy.ts);
 * - an `Fn::If` list element that gives `AWS::NoValue` stays in the list as null (role-policy.ts);
 * - a log group's `Fn::GetAtt Arn` has no `:*` suffix (the tests accept either);
 * - a stack made by change sets (as the Framework deploys) has no Outputs in DescribeStacks; CreateStack's has.
 */

import { isDeepStrictEqual } from 'node:util';
import { DescribeContinuousBackupsCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import type { AwsClients } from './aws-clients.js';
import { callJsonApi, LOGS_API } from './aws-json-api.js';
import type { DeployedStack, StackResource } from './deployed-stack.js';
import { describeService, describeTaskDefinition } from './poller-task.js';
import { resourceExists } from './resource-lookups.js';
import { roleArn } from './role-policy.js';

/**
 * moto's handling of one resource type.
 *
 * @example
 * ```ts
 * const table: MotoTypeSupport = { create: 'created', dropped: ['PointInTimeRecoverySpecification'], delete: 'deleted' };
 * ```
 */
export interface MotoTypeSupport {
  /** `not supported`: moto warns and skips the resource (the stack still completes). */
  readonly create: 'created' | 'not supported';
  /** Template properties of the poller's resources that moto's model drops (looked up for those only). */
  readonly dropped?: readonly string[];
  /** What deleting the stack does to it (looked up for the poller's resources, functions and destinations). */
  readonly delete?: 'deleted' | 'left behind';
}

/**
 * moto[server] 5.2.5, measured by the deploy tests. Real CloudFormation creates and deletes all of these
 * with every property.
 *
 * @example
 * ```ts
 * MOTO_CLOUDFORMATION['AWS::ApplicationAutoScaling::ScalableTarget']?.create; // => 'not supported'
 * ```
 */
export const MOTO_CLOUDFORMATION: Readonly<Record<string, MotoTypeSupport>> = {
  // The plugin's and the standalone template's resources.
  'AWS::DynamoDB::Table': {
    create: 'created',
    dropped: ['PointInTimeRecoverySpecification'],
    delete: 'deleted',
  },
  'AWS::ECS::Cluster': { create: 'created', delete: 'left behind' },
  'AWS::ECS::TaskDefinition': {
    create: 'created',
    // Only Family, ContainerDefinitions, Volumes and Memory reach moto's RegisterTaskDefinition.
    dropped: [
      'Cpu',
      'ExecutionRoleArn',
      'NetworkMode',
      'RequiresCompatibilities',
      'RuntimePlatform',
      'TaskRoleArn',
    ],
    delete: 'left behind',
  },
  'AWS::ECS::Service': {
    create: 'created',
    // Only Cluster, TaskDefinition and DesiredCount reach moto's CreateService.
    dropped: [
      'DeploymentConfiguration',
      'EnableECSManagedTags',
      'LaunchType',
      'NetworkConfiguration',
      'PropagateTags',
    ],
    delete: 'left behind',
  },
  'AWS::Logs::LogGroup': { create: 'created', dropped: [], delete: 'deleted' },
  // Created with its inline policies, which GetRolePolicy answers as Python's repr (see deployed-stack.ts).
  'AWS::IAM::Role': { create: 'created', delete: 'deleted' },
  'AWS::ApplicationAutoScaling::ScalableTarget': { create: 'not supported' },
  'AWS::ApplicationAutoScaling::ScalingPolicy': { create: 'not supported' },
  // moto's CloudWatch has no CloudFormation model for alarms (only for dashboards).
  'AWS::CloudWatch::Alarm': { create: 'not supported' },
  // Stored with its body as CloudFormation substituted it (GetDashboard reads it back); not rendered.
  'AWS::CloudWatch::Dashboard': { create: 'created', delete: 'deleted' },
  // moto has no ECR pull-through cache at all (API or model): cfn-lint and the unit tests check the rule.
  'AWS::ECR::PullThroughCacheRule': { create: 'not supported' },
  // The Framework's own resources and the fixture's.
  'AWS::S3::Bucket': { create: 'created' },
  'AWS::S3::BucketPolicy': { create: 'not supported' },
  'AWS::Lambda::Function': { create: 'created', delete: 'deleted' },
  'AWS::Lambda::Version': { create: 'created' },
  'AWS::SQS::Queue': { create: 'created', delete: 'deleted' },
  'AWS::SNS::Topic': { create: 'created', delete: 'deleted' },
};

/**
 * The resources of a template the tests compare (type and deletion policy).
 *
 * @example
 * ```ts
 * const resources: TemplateResources = { RocketMQOffsetsTable: { Type: 'AWS::DynamoDB::Table', DeletionPolicy: 'Retain' } };
 * ```
 */
export type TemplateResources = Readonly<
  Record<string, { readonly Type: string; readonly DeletionPolicy?: unknown }>
>;

/**
 * The template's resource types moto does not support, sorted, unique.
 *
 * @example
 * ```ts
 * unsupportedTypes(template.Resources); // => ['AWS::ApplicationAutoScaling::ScalableTarget', ...]
 * ```
 */
export function unsupportedTypes(resources: TemplateResources): string[] {
  const types = Object.values(resources)
    .map((resource) => resource.Type)
    .filter((type) => supportOf(type).create === 'not supported');
  return [...new Set(types)].sort();
}

/**
 * What {@link MOTO_CLOUDFORMATION} says moto makes of each resource of the template: logical id → `created`
 * or `not supported`.
 *
 * @example
 * ```ts
 * expect(createdOutcomes(stack, template.Resources)).toEqual(expectedCreation(template.Resources));
 * ```
 */
export function expectedCreation(resources: TemplateResources): Record<string, string> {
  return Object.fromEntries(
    Object.entries(resources).map(([id, { Type }]) => [id, `${Type}: ${supportOf(Type).create}`]),
  );
}

/**
 * What moto made of each resource of the template, from the stack's listing: a resource listed under its
 * logical id was created; one missing was skipped (moto lists it without logical id or type, so their
 * counts must agree).
 *
 * @example
 * ```ts
 * createdOutcomes(stack, template.Resources); // => { RocketMQOffsetsTable: 'AWS::DynamoDB::Table: created', ... }
 * ```
 */
export function createdOutcomes(stack: DeployedStack, resources: TemplateResources): Record<string, string> {
  const listed = new Map(stack.resources.map((resource) => [resource.logicalId, resource]));
  const outcomes: Record<string, string> = {};
  let skipped = 0;
  for (const [id, { Type }] of Object.entries(resources)) {
    const found = listed.get(id);
    if (found !== undefined && found.type !== Type)
      throw new Error(`${id} is listed as ${found.type}, not ${Type}`);
    if (found === undefined) skipped++;
    outcomes[id] = `${Type}: ${found === undefined ? 'not supported' : 'created'}`;
  }
  const extra = stack.resources.filter((resource) => !(resource.logicalId in resources));
  if (extra.length > 0 || skipped !== stack.unnamedEntries) {
    throw new Error(
      `stack ${stack.name} lists ${JSON.stringify(extra)} beyond the template and ${stack.unnamedEntries} unnamed entries for ${skipped} missing resources`,
    );
  }
  return outcomes;
}

/**
 * The logical ids of the poller's resources in one template (the plugin's and the standalone template's
 * differ).
 *
 * @example
 * ```ts
 * const ids: PollerIds = { table: 'OffsetsTable', logGroup: 'LogGroup', taskDefinition: 'TaskDefinition', service: 'Service',
 *   cluster: 'Cluster', executionRole: 'ExecutionRole', taskRole: 'TaskRole' };
 * ```
 */
export interface PollerIds {
  readonly table: string;
  readonly logGroup: string;
  readonly taskDefinition: string;
  readonly service: string;
  readonly cluster: string;
  readonly executionRole: string;
  readonly taskRole: string;
}

/**
 * The values the poller's resources were deployed with (the plugin's defaults, or the template's parameters).
 *
 * @example
 * ```ts
 * const deployed: PollerSettings = { cpu: '256', memory: '512', cpuArchitecture: 'X86_64', subnets: ['subnet-0a'], logRetentionInDays: 14 };
 * ```
 */
export interface PollerSettings {
  readonly cpu: string;
  readonly memory: string;
  readonly cpuArchitecture: string;
  readonly subnets: readonly string[];
  readonly logRetentionInDays: number;
}

/**
 * For the poller's table, log group, task definition and service: the template properties moto dropped,
 * found by comparing what its APIs describe with what the template asked for. logical id → `Type: dropped`.
 *
 * @example
 * ```ts
 * await droppedProperties(aws, stack, ids, settings);
 * // => { RocketMQOffsetsTable: 'AWS::DynamoDB::Table: PointInTimeRecoverySpecification', ... }
 * ```
 */
export async function droppedProperties(
  aws: AwsClients,
  stack: DeployedStack,
  ids: PollerIds,
  settings: PollerSettings,
): Promise<Record<string, string>> {
  const table = stack.resource(ids.table).physicalId;
  const { Table } = await aws.dynamodb.send(new DescribeTableCommand({ TableName: table }));
  const { ContinuousBackupsDescription } = await aws.dynamodb.send(
    new DescribeContinuousBackupsCommand({ TableName: table }),
  );
  const tableCarries: Record<string, boolean> = {
    BillingMode: Table?.BillingModeSummary?.BillingMode === 'PAY_PER_REQUEST',
    KeySchema: isDeepStrictEqual(Table?.KeySchema, [
      { AttributeName: 'group', KeyType: 'HASH' },
      { AttributeName: 'queue', KeyType: 'RANGE' },
    ]),
    AttributeDefinitions: isDeepStrictEqual(Table?.AttributeDefinitions, [
      { AttributeName: 'group', AttributeType: 'S' },
      { AttributeName: 'queue', AttributeType: 'S' },
    ]),
    PointInTimeRecoverySpecification:
      ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus === 'ENABLED',
  };

  const logGroupName = stack.resource(ids.logGroup).physicalId;
  const { logGroups } = z
    .object({
      logGroups: z.array(z.object({ logGroupName: z.string(), retentionInDays: z.number().optional() })),
    })
    .parse(
      await callJsonApi(aws.target, LOGS_API, 'DescribeLogGroups', { logGroupNamePrefix: logGroupName }),
    );
  const logGroup = logGroups.find((group) => group.logGroupName === logGroupName);
  const logGroupCarries = { RetentionInDays: logGroup?.retentionInDays === settings.logRetentionInDays };

  const arnOfRole = (id: string) => roleArn(aws, stack.resource(id).physicalId);
  const definition = await describeTaskDefinition(aws, stack.resource(ids.taskDefinition).physicalId);
  const taskDefinitionCarries: Record<string, boolean> = {
    Cpu: definition.cpu === settings.cpu,
    Memory: definition.memory === settings.memory,
    NetworkMode: definition.networkMode === 'awsvpc',
    RequiresCompatibilities: isDeepStrictEqual(definition.requiresCompatibilities, ['FARGATE']),
    RuntimePlatform: definition.runtimePlatform?.cpuArchitecture === settings.cpuArchitecture,
    ExecutionRoleArn: definition.executionRoleArn === (await arnOfRole(ids.executionRole)),
    TaskRoleArn: definition.taskRoleArn === (await arnOfRole(ids.taskRole)),
    ContainerDefinitions: definition.containerDefinitions.some((container) => container.name === 'poller'),
  };

  const service = await describeService(aws, stack.resource(ids.service).physicalId);
  const cluster = stack.resource(ids.cluster).physicalId;
  const serviceCarries: Record<string, boolean> = {
    Cluster: service?.clusterArn.endsWith(`:cluster/${cluster}`) === true,
    TaskDefinition: service?.taskDefinition === definition.taskDefinitionArn,
    LaunchType: service?.launchType === 'FARGATE',
    NetworkConfiguration: isDeepStrictEqual(service?.networkConfiguration?.awsvpcConfiguration?.subnets, [
      ...settings.subnets,
    ]),
    DeploymentConfiguration: service?.deploymentConfiguration !== undefined,
    PropagateTags: service?.propagateTags === 'SERVICE',
    EnableECSManagedTags: service?.enableECSManagedTags === true,
  };

  const dropped = (carries: Record<string, boolean>) =>
    Object.entries(carries)
      .filter(([, carried]) => !carried)
      .map(([property]) => property)
      .sort();
  return {
    [ids.table]: droppedLine('AWS::DynamoDB::Table', dropped(tableCarries)),
    [ids.logGroup]: droppedLine('AWS::Logs::LogGroup', dropped(logGroupCarries)),
    [ids.taskDefinition]: droppedLine('AWS::ECS::TaskDefinition', dropped(taskDefinitionCarries)),
    [ids.service]: droppedLine('AWS::ECS::Service', dropped(serviceCarries)),
  };
}

/**
 * What {@link MOTO_CLOUDFORMATION} says moto drops of the poller's resources, as {@link droppedProperties}
 * reports it.
 *
 * @example
 * ```ts
 * expect(await droppedProperties(aws, stack, ids, settings)).toEqual(expectedDropped(ids, template.Resources));
 * ```
 */
export function expectedDropped(ids: PollerIds, resources: TemplateResources): Record<string, string> {
  const entry = (id: string) => {
    const type = resources[id]?.Type;
    if (type === undefined) throw new Error(`the template has no ${id}`);
    const dropped = supportOf(type).dropped;
    if (dropped === undefined)
      throw new Error(`MOTO_CLOUDFORMATION says nothing of what moto drops of ${type}`);
    return [id, droppedLine(type, dropped)];
  };
  return Object.fromEntries([ids.table, ids.logGroup, ids.taskDefinition, ids.service].map(entry));
}

/**
 * After the stack's deletion: what became of each of `resources` (those with a type moto's table gives a
 * delete outcome for), logical id → `Type: deleted | left behind | retained`. `retained` is a resource
 * whose DeletionPolicy is Retain and that still exists, as CloudFormation leaves it.
 *
 * @example
 * ```ts
 * await deletionOutcomes(aws, before.resources, template.Resources); // => { RocketMQOffsetsTable: 'AWS::DynamoDB::Table: retained', ... }
 * ```
 */
export async function deletionOutcomes(
  aws: AwsClients,
  listed: readonly StackResource[],
  resources: TemplateResources,
): Promise<Record<string, string>> {
  const outcomes: Record<string, string> = {};
  for (const resource of listed) {
    if (supportOf(resource.type).delete === undefined) continue;
    const exists = await resourceExists(aws, resource);
    if (exists === undefined) throw new Error(`no lookup for ${resource.type} (${resource.logicalId})`);
    const retain = resources[resource.logicalId]?.DeletionPolicy === 'Retain';
    const outcome = !exists ? 'deleted' : retain ? 'retained' : 'left behind';
    outcomes[resource.logicalId] = `${resource.type}: ${outcome}`;
  }
  return outcomes;
}

/**
 * What {@link MOTO_CLOUDFORMATION} says a stack deletion does to `listed`.
 *
 * @example
 * ```ts
 * expect(await deletionOutcomes(aws, listed, resources)).toEqual(expectedDeletion(listed, resources));
 * ```
 */
export function expectedDeletion(
  listed: readonly StackResource[],
  resources: TemplateResources,
): Record<string, string> {
  const outcomes: Record<string, string> = {};
  for (const { logicalId, type } of listed) {
    const outcome = supportOf(type).delete;
    if (outcome === undefined) continue;
    const retain = resources[logicalId]?.DeletionPolicy === 'Retain';
    outcomes[logicalId] = `${type}: ${retain ? 'retained' : outcome}`;
  }
  return outcomes;
}

function droppedLine(type: string, dropped: readonly string[]): string {
  return `${type}: ${dropped.length === 0 ? 'carries every property' : `drops ${[...dropped].sort().join(', ')}`}`;
}

function supportOf(type: string): MotoTypeSupport {
  const support = MOTO_CLOUDFORMATION[type];
  if (support === undefined) {
    throw new Error(`${type} is not in MOTO_CLOUDFORMATION: deploy it once and add what moto does with it`);
  }
  return support;
}
