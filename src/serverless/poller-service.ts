/**
 * The poller's Fargate task definition and ECS service. The container runs the image's entrypoint
 * (`rocketmq-lambda run`), which reads its config from {@link POLLER_CONFIG_ENV}; ACL credentials arrive
 * as ECS secrets in the variables the config reads (`ROCKETMQ_ACCESS_KEY`, `ROCKETMQ_SECRET_KEY`).
 */
import type { CfnIntrinsic, CfnResource, CfnString, CfnStringList } from './cfn-intrinsic.js';
import { POLLER_CONTAINER_NAME } from './logical-ids.js';
import { POLLER_CONFIG_ENV, type PollerConfigSub } from './poller-config-template.js';
import {
  POLLER_STATE_ENVIRONMENT,
  POLLER_STATE_MOUNT_POINT,
  POLLER_STATE_TASK_VOLUME,
} from './poller-state-volume.js';

/** The poller's health check command (see infra/docker/Dockerfile): the heartbeat file is fresh. */
export const POLLER_HEALTH_COMMAND = ['CMD', 'rocketmq-lambda', 'health'] as const;

/**
 * One ECS secret: an environment variable filled from Secrets Manager or SSM when the task starts.
 */
export interface ContainerSecret {
  readonly Name: string;
  readonly ValueFrom: CfnString;
}

/**
 * What the task definition needs.
 */
export interface TaskDefinitionOptions {
  readonly image: CfnString;
  readonly cpu: number;
  readonly memory: number;
  readonly cpuArchitecture: 'X86_64' | 'ARM64';
  readonly config: PollerConfigSub;
  readonly secrets: readonly ContainerSecret[];
  readonly logGroup: CfnIntrinsic;
  readonly logLevel: string;
  readonly stopTimeoutSeconds: number;
  readonly executionRoleArn: CfnIntrinsic;
  readonly taskRoleArn: CfnIntrinsic;
}

/**
 * The Fargate task definition of the poller. Its root filesystem is read-only: the poller writes only to
 * the state volume (poller-state-volume.ts).
 */
export function pollerTaskDefinition(options: TaskDefinitionOptions): CfnResource {
  return {
    Type: 'AWS::ECS::TaskDefinition',
    Properties: {
      RequiresCompatibilities: ['FARGATE'],
      NetworkMode: 'awsvpc',
      Cpu: String(options.cpu),
      Memory: String(options.memory),
      RuntimePlatform: { OperatingSystemFamily: 'LINUX', CpuArchitecture: options.cpuArchitecture },
      ExecutionRoleArn: options.executionRoleArn,
      TaskRoleArn: options.taskRoleArn,
      Volumes: [{ ...POLLER_STATE_TASK_VOLUME }],
      ContainerDefinitions: [
        {
          Name: POLLER_CONTAINER_NAME,
          Image: options.image,
          Essential: true,
          Environment: [
            { Name: POLLER_CONFIG_ENV, Value: options.config },
            { Name: 'AWS_REGION', Value: { Ref: 'AWS::Region' } },
            { Name: 'LOG_LEVEL', Value: options.logLevel },
            ...POLLER_STATE_ENVIRONMENT.map((variable) => ({ ...variable })),
          ],
          ...(options.secrets.length > 0 ? { Secrets: [...options.secrets] } : {}),
          LogConfiguration: {
            LogDriver: 'awslogs',
            Options: {
              'awslogs-group': options.logGroup,
              'awslogs-region': { Ref: 'AWS::Region' },
              'awslogs-stream-prefix': 'poller',
            },
          },
          HealthCheck: {
            Command: [...POLLER_HEALTH_COMMAND],
            Interval: 30,
            Timeout: 5,
            Retries: 3,
            StartPeriod: 60,
          },
          StopTimeout: options.stopTimeoutSeconds,
          LinuxParameters: { InitProcessEnabled: true },
          ReadonlyRootFilesystem: true,
          MountPoints: [{ ...POLLER_STATE_MOUNT_POINT }],
        },
      ],
    },
  };
}

/**
 * The name of an ECS cluster given by name or ARN (`arn:aws:ecs:<region>:<account>:cluster/<name>`), as
 * the scaling target's resource id and the metrics' `ClusterName` dimension want it. An intrinsic is
 * taken to yield a name.
 */
export function ecsClusterName(cluster: CfnString): CfnString {
  if (typeof cluster !== 'string' || !cluster.startsWith('arn:')) return cluster;
  const marker = ':cluster/';
  const at = cluster.indexOf(marker);
  return at < 0 ? cluster : cluster.slice(at + marker.length);
}

/**
 * What the service needs.
 */
export interface ServiceOptions {
  readonly cluster: CfnString;
  readonly taskDefinitionLogicalId: string;
  /** The fixed task count; undefined when scaling owns it (a deploy must not reset it). */
  readonly desiredCount: number | undefined;
  /** A list, or one intrinsic yielding it (a `Ref` to a list parameter). */
  readonly subnetIds: CfnStringList;
  readonly securityGroupIds: CfnStringList | undefined;
  readonly assignPublicIp: boolean;
}

/**
 * The ECS service running the poller tasks. Rolling deployments start new tasks before stopping old
 * ones (RocketMQ's rebalance hands the queues over) and roll back when new tasks keep failing.
 */
export function pollerService(options: ServiceOptions): CfnResource {
  return {
    Type: 'AWS::ECS::Service',
    Properties: {
      Cluster: options.cluster,
      LaunchType: 'FARGATE',
      TaskDefinition: { Ref: options.taskDefinitionLogicalId },
      ...(options.desiredCount === undefined ? {} : { DesiredCount: options.desiredCount }),
      DeploymentConfiguration: {
        MinimumHealthyPercent: 100,
        MaximumPercent: 200,
        DeploymentCircuitBreaker: { Enable: true, Rollback: true },
      },
      NetworkConfiguration: {
        AwsvpcConfiguration: {
          Subnets: listValue(options.subnetIds),
          ...(options.securityGroupIds === undefined
            ? {}
            : { SecurityGroups: listValue(options.securityGroupIds) }),
          AssignPublicIp: options.assignPublicIp ? 'ENABLED' : 'DISABLED',
        },
      },
      PropagateTags: 'SERVICE',
      EnableECSManagedTags: true,
    },
  };
}

/** A list property's value: a copy of a list written out, or the intrinsic as it is. */
function listValue(list: CfnStringList): unknown {
  return Array.isArray(list) ? [...list] : list;
}
