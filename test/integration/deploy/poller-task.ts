/**
 * The poller's task definition and service as ECS describes them, and the run config its container would
 * read: the environment, with the ECS secrets filled from Secrets Manager as ECS fills them at task start.
 */
import { z } from 'zod';
import { loadConfigFromEnv } from '../../../src/config/load-config.js';
import type { RunConfig } from '../../../src/config/run-config.js';
import type { AwsClients } from './aws-clients.js';
import { callJsonApi, ECS_API, SECRETS_MANAGER_API } from './aws-json-api.js';

const containerSchema = z.looseObject({
  name: z.string(),
  image: z.string(),
  environment: z.array(z.object({ name: z.string(), value: z.string() })).default([]),
  secrets: z.array(z.object({ name: z.string(), valueFrom: z.string() })).optional(),
  logConfiguration: z.looseObject({ logDriver: z.string(), options: z.record(z.string(), z.string()) }),
  healthCheck: z.looseObject({ command: z.array(z.string()) }).optional(),
  stopTimeout: z.number().optional(),
  readonlyRootFilesystem: z.boolean().optional(),
  mountPoints: z
    .array(
      z.object({ sourceVolume: z.string(), containerPath: z.string(), readOnly: z.boolean().optional() }),
    )
    .optional(),
});
/**
 * A container definition as ECS describes it.
 *
 * @example
 * ```ts
 * const poller: Container = taskDefinition.containerDefinitions[0];
 * ```
 */
export type Container = z.infer<typeof containerSchema>;
const taskDefinitionSchema = z.looseObject({
  taskDefinitionArn: z.string(),
  status: z.string(),
  containerDefinitions: z.array(containerSchema),
  cpu: z.string().optional(),
  memory: z.string().optional(),
  networkMode: z.string().optional(),
  requiresCompatibilities: z.array(z.string()).optional(),
  runtimePlatform: z.looseObject({ cpuArchitecture: z.string().optional() }).optional(),
  taskRoleArn: z.string().optional(),
  executionRoleArn: z.string().optional(),
  volumes: z.array(z.looseObject({ name: z.string() })).optional(),
});
/**
 * A task definition as ECS describes it (the fields the tests read).
 *
 * @example
 * ```ts
 * const definition: TaskDefinition = await describeTaskDefinition(aws, arn);
 * ```
 */
export type TaskDefinition = z.infer<typeof taskDefinitionSchema>;

/**
 * ECS's DescribeTaskDefinition of `arn`.
 *
 * @example
 * ```ts
 * const definition = await describeTaskDefinition(aws, stack.resource('RocketMQPollerTaskDefinition').physicalId);
 * ```
 */
export async function describeTaskDefinition(aws: AwsClients, arn: string): Promise<TaskDefinition> {
  const answer = await callJsonApi(aws.target, ECS_API, 'DescribeTaskDefinition', { taskDefinition: arn });
  return z.object({ taskDefinition: taskDefinitionSchema }).parse(answer).taskDefinition;
}

const serviceSchema = z.looseObject({
  serviceName: z.string(),
  status: z.string(),
  clusterArn: z.string(),
  taskDefinition: z.string(),
  launchType: z.string().optional(),
  networkConfiguration: z
    .looseObject({
      awsvpcConfiguration: z.looseObject({ subnets: z.array(z.string()).optional() }).optional(),
    })
    .optional(),
  deploymentConfiguration: z.unknown().optional(),
  propagateTags: z.string().optional(),
  enableECSManagedTags: z.boolean().optional(),
});
/**
 * An ECS service as ECS describes it (the fields the tests read).
 *
 * @example
 * ```ts
 * const service: EcsService = await describeService(aws, arn);
 * ```
 */
export type EcsService = z.infer<typeof serviceSchema>;

/**
 * ECS's DescribeServices of the service `arn` (`arn:...:service/<cluster>/<name>`); undefined when ECS
 * does not know it.
 *
 * @example
 * ```ts
 * const service = await describeService(aws, stack.resource('RocketMQPollerService').physicalId);
 * ```
 */
export async function describeService(aws: AwsClients, arn: string): Promise<EcsService | undefined> {
  const cluster = arn.split('/').at(-2);
  if (cluster === undefined) throw new Error(`not an ECS service ARN: ${arn}`);
  const answer = await callJsonApi(aws.target, ECS_API, 'DescribeServices', { cluster, services: [arn] });
  return z.object({ services: z.array(serviceSchema) }).parse(answer).services[0];
}

/**
 * The poller's run config as the container would read it: the task definition's environment, with the
 * ECS secrets (`<secret ARN>:<json key>::`) filled from Secrets Manager as ECS fills them at task start,
 * read by the poller's own {@link loadConfigFromEnv} (which `rocketmq-lambda run` uses in the image).
 *
 * @example
 * ```ts
 * const config = await pollerConfigOf(aws, definition.containerDefinitions[0]);
 * config.mappings[0]?.functionArn;
 * ```
 */
export async function pollerConfigOf(aws: AwsClients, container: Container): Promise<RunConfig> {
  const env: Record<string, string> = {};
  for (const { name, value } of container.environment) env[name] = value;
  for (const { name, valueFrom } of container.secrets ?? []) env[name] = await secretValue(aws, valueFrom);
  return loadConfigFromEnv({ env, baseDir: '/app' });
}

/** ECS's `valueFrom` of a Secrets Manager secret: `<secret ARN>[:<json key>:<version stage>:<version id>]`. */
async function secretValue(aws: AwsClients, valueFrom: string): Promise<string> {
  const match = /^(arn:[^:]+:secretsmanager:[^:]+:\d{12}:secret:[^:]+)(?::([^:]*):([^:]*):([^:]*))?$/.exec(
    valueFrom,
  );
  const [, secretId, jsonKey] = match ?? [];
  if (secretId === undefined) throw new Error(`not a Secrets Manager valueFrom: ${valueFrom}`);
  const answer = await callJsonApi(aws.target, SECRETS_MANAGER_API, 'GetSecretValue', { SecretId: secretId });
  const text = z.object({ SecretString: z.string() }).parse(answer).SecretString;
  if (jsonKey === undefined || jsonKey === '') return text;
  const value = z.record(z.string(), z.unknown()).parse(JSON.parse(text))[jsonKey];
  if (typeof value !== 'string') throw new Error(`secret ${secretId} has no string key ${jsonKey}`);
  return value;
}
