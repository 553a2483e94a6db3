/**
 * `custom.rocketmq` in serverless.yml: what every `rocketmq` event of the service shares (the cluster,
 * its credentials, and the poller service that runs the mappings). A closed schema.
 *
 * ```yaml
 * custom:
 *   rocketmq:
 *     nameServers: "10.0.0.10:9876;10.0.0.11:9876"
 *     vpc:
 *       subnetIds: [subnet-0a1b2c3d]
 *       securityGroupIds: [sg-0a1b2c3d]
 *     acl:
 *       secretArn: arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-acl
 * ```
 *
 * Every key's `info` (description and default) feeds the reference table of docs/deploying.md.
 */
import { z } from 'zod';
import { RUN_DEFAULTS } from '../config/config-defaults.js';
import { info, intKey, tableName, text } from '../config/schema-meta.js';
import { tlsSchema, tlsSettingsSchema } from '../config/tls-config-schema.js';
import { TLS_KEY_PASSPHRASE, TLS_MATERIAL } from '../config/tls-material-sources.js';
import { cfnIntrinsicSchema, cfnStringListSchema } from './cfn-intrinsic.js';
import { PUBLISHED_IMAGE_REPOSITORIES } from './published-image.js';
import { pullThroughCacheSchema } from './pull-through-cache-schema.js';
import { ALARM_DEFAULTS, alarmsSchema, dashboardSchema } from './rocketmq-alarms-schema.js';
import { QUEUES_PER_TOPIC } from './rocketmq-event-schema.js';
import { parseSecretRef } from './secret-ref.js';

/** A string, or an intrinsic that yields one. */
const cfnString = (error: string) =>
  z.union([z.string().trim().min(1), cfnIntrinsicSchema], {
    error: `${error}, or Ref / Fn::GetAtt / Fn::ImportValue / Fn::Sub / Fn::Join`,
  });

/** How a `*Secret` key of `tls` names its secret, in words. */
const SECRET_REF_WORDS =
  'a Secrets Manager secret ARN (with or without its random suffix; `<arn>:<jsonKey>` takes one key of a JSON secret, so one secret can hold every piece), an SSM SecureString parameter (name or ARN), or an intrinsic yielding a secret ARN';

/** An optional reference to a secret (secret-ref.ts), checked by the schema. */
const secretRef = (description: string) =>
  z
    .union(
      [
        z
          .string()
          .trim()
          .min(1)
          .superRefine((value, context) => {
            const checked = parseSecretRef(value);
            if (!checked.ok) context.addIssue({ code: 'custom', message: checked.problem });
          }),
        cfnIntrinsicSchema,
      ],
      {
        error:
          'must be a Secrets Manager secret ARN, an SSM parameter name or ARN, or Ref / Fn::GetAtt / Fn::ImportValue / Fn::Sub / Fn::Join',
      },
    )
    .optional()
    .meta(info({ description }));

/** Fargate task sizes: CPU units → the memory sizes (MiB) allowed with them, and those in words. */
export const FARGATE_SIZES: Readonly<
  Record<number, { readonly memoryMiB: readonly number[]; readonly words: string }>
> = {
  256: { memoryMiB: [512, 1024, 2048], words: '512, 1024 or 2048' },
  512: memoryRange(1024, 4096, 1024),
  1024: memoryRange(2048, 8192, 1024),
  2048: memoryRange(4096, 16_384, 1024),
  4096: memoryRange(8192, 30_720, 1024),
  8192: memoryRange(16_384, 61_440, 4096),
  16384: memoryRange(32_768, 122_880, 8192),
};

function memoryRange(min: number, max: number, step: number): { memoryMiB: number[]; words: string } {
  const memoryMiB: number[] = [];
  for (let size = min; size <= max; size += step) memoryMiB.push(size);
  return { memoryMiB, words: `${min}–${max} in steps of ${step}` };
}

/** The retention periods CloudWatch Logs accepts. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** Defaults of `custom.rocketmq`. */
export const CUSTOM_DEFAULTS = {
  cpu: 256,
  memory: 512,
  cpuArchitecture: 'X86_64',
  /** Tasks without scaling (`scaling: false`). */
  desiredCount: 1,
  /** Scaling: the fewest tasks. */
  minCount: 1,
  /**
   * Scaling, the most tasks when `maxCount` is left out: the largest queue count among the mapped topics
   * (each event's `queues`, else this: RocketMQ's default queue count of a new topic, `defaultTopicQueueNums`).
   */
  queuesPerTopic: QUEUES_PER_TOPIC,
  targetLagPerTask: 1000,
  assignPublicIp: false,
  logRetentionInDays: 14,
  logLevel: 'info',
  /** Seconds ECS waits after SIGTERM before SIGKILL (Fargate's maximum). */
  stopTimeout: 120,
  retainOffsetsTable: true,
  tls: RUN_DEFAULTS.tls,
  ...ALARM_DEFAULTS,
} as const;

/**
 * The most tasks the service may scale to (the schema's bound of the counts).
 */
export const MAX_TASK_COUNT = 1000;

const taskCount = (min: number, meta: Parameters<typeof info>[0]) => intKey(min, MAX_TASK_COUNT, meta);

const imageBuildSchema = z
  .union(
    [
      z.literal(true),
      z.strictObject({
        context: text()
          .optional()
          .meta(
            info({
              description: 'The build context directory, relative to the service directory.',
              defaultText: 'the installed rocketmq-lambda package',
            }),
          ),
        dockerfile: text()
          .optional()
          .meta(
            info({
              description: 'The Dockerfile, relative to the service directory.',
              defaultText:
                "`Dockerfile` in `context`; the package's `infra/docker/Dockerfile` when `context` is left out",
            }),
          ),
        args: z
          .record(z.string(), z.string())
          .optional()
          .meta(info({ description: 'Build arguments (`--build-arg NAME=value`).', defaultText: 'none' })),
      }),
    ],
    { error: 'must be true or { context, dockerfile, args }' },
  )
  .meta(
    info({
      description:
        "Build the image with your Docker (`docker buildx build --platform linux/amd64` or `linux/arm64` after `cpuArchitecture`) at `serverless deploy`, push it to an ECR repository the stack owns, and run it by digest. `true` builds the poller from the installed package's Dockerfile.",
    }),
  );

/**
 * The schema of `custom.rocketmq`.
 *
 * @example
 * ```ts
 * rocketmqCustomSchema.safeParse({ nameServers: '10.0.0.10:9876', vpc: { subnetIds: ['subnet-0a1b2c3d4e5f67890'] } });
 * ```
 */
export const rocketmqCustomSchema = z.strictObject({
  nameServers: z
    .union([z.string().trim().min(1), z.array(z.string().trim().min(1)).min(1), cfnIntrinsicSchema], {
      error: 'must be "host:port;host:port", a list of "host:port", or an intrinsic function',
    })
    .meta(
      info({
        description:
          'The name servers: `"host:port;host:port"`, or a list. Addresses the poller tasks reach from the VPC (never a loopback address).',
      }),
    ),
  image: z
    .union(
      [
        cfnString('must be an image URI'),
        z.strictObject({ build: imageBuildSchema }),
        z.strictObject({ pullThroughCache: pullThroughCacheSchema }),
      ],
      {
        error:
          'must be an image URI, an intrinsic function, { build: true } / { build: { context, dockerfile, args } }, or { pullThroughCache: true } / { pullThroughCache: { upstream, prefix, createRule, credentialArn } }',
      },
    )
    .optional()
    .meta(
      info({
        description:
          'The poller image: an image URI (pin a version or digest), `{ build: ... }` to build your own, or `{ pullThroughCache: ... }` to pull the published image through an ECR pull-through cache (private subnets without NAT).',
        defaultText: `\`${PUBLISHED_IMAGE_REPOSITORIES.ghcr}:<version>\`, the published image of the installed package's version`,
      }),
    ),
  vpc: z
    .strictObject({
      subnetIds: cfnStringListSchema(cfnString('must be a subnet id'), 'must be a list of subnet ids').meta(
        info({
          description:
            'Subnets of the poller tasks: private subnets with a NAT gateway, or VPC endpoints for every AWS API the poller uses (see Networking). A list, or one `Ref` to a `List<AWS::EC2::Subnet::Id>` parameter or an `Fn::Split`.',
        }),
      ),
      securityGroupIds: cfnStringListSchema(
        cfnString('must be a security group id'),
        'must be a list of security group ids',
      )
        .optional()
        .meta(
          info({
            description:
              'Security groups of the poller tasks; they need egress to the name servers, the brokers and AWS (HTTPS). A list, or one `Ref` to a `List<AWS::EC2::SecurityGroup::Id>` parameter or an `Fn::Split`.',
            defaultText: "the VPC's default group",
          }),
        ),
      assignPublicIp: z
        .boolean()
        .optional()
        .meta(
          info({
            description: 'Give tasks a public IP (public subnets without NAT).',
            default: CUSTOM_DEFAULTS.assignPublicIp,
          }),
        ),
    })
    .meta(info({ description: 'The network of the poller tasks.' })),
  acl: z
    .strictObject({
      secretArn: cfnString('must be a Secrets Manager secret ARN')
        .optional()
        .meta(
          info({
            description:
              'A Secrets Manager secret holding JSON `{"accessKey": ..., "secretKey": ...}`: its ARN, with or without the random 6-character suffix.',
          }),
        ),
      accessKeyParameter: text()
        .optional()
        .meta(info({ description: 'The SSM SecureString parameter (name or ARN) holding the access key.' })),
      secretKeyParameter: text()
        .optional()
        .meta(info({ description: 'The SSM SecureString parameter (name or ARN) holding the secret key.' })),
      kmsKeyArn: cfnString('must be a KMS key ARN')
        .optional()
        .meta(
          info({
            description: 'The customer managed KMS key that encrypts the secret or parameters, if any.',
            defaultText: "none (AWS's managed key)",
          }),
        ),
    })
    .optional()
    .meta(
      info({
        description:
          'RocketMQ ACL credentials, injected into the poller as ECS secrets (never in the template).',
        defaultText: 'none (no signing)',
      }),
    ),
  tls: tlsSchema(
    tlsSettingsSchema('a path in the image (build your own image to add it), or use `caSecret`')
      .omit({ ca: true, cert: true, key: true, keyPassphrase: true })
      .extend({
        caSecret: secretRef(
          `The CA certificates (PEM) from a secret, instead of \`caFile\`: ${SECRET_REF_WORDS}. Read into \`${TLS_MATERIAL.ca.env}\` when the task starts.`,
        ),
        certSecret: secretRef(
          `The client certificate (PEM) from a secret, instead of \`certFile\`; read into \`${TLS_MATERIAL.cert.env}\`.`,
        ),
        keySecret: secretRef(
          `The client certificate's private key (PEM, encrypted or not) from a secret, instead of \`keyFile\`; read into \`${TLS_MATERIAL.key.env}\`.`,
        ),
        keyPassphraseSecret: secretRef(
          `The passphrase of an encrypted key (\`keySecret\` or \`keyFile\`) from a secret; read into \`${TLS_KEY_PASSPHRASE.env}\`.`,
        ),
      }),
    "`*File` keys are paths in the poller's image; `*Secret` keys are read by ECS into the poller's environment at start (the stock image will do; the execution role may read exactly them). One source per piece.",
  ),
  cpu: z
    .number()
    .int()
    .optional()
    .meta(
      info({
        description: 'Fargate CPU units of a poller task: 256, 512, 1024, 2048, 4096, 8192 or 16384.',
        default: CUSTOM_DEFAULTS.cpu,
      }),
    ),
  memory: z
    .number()
    .int()
    .optional()
    .meta(
      info({
        description: 'Memory (MiB) of a poller task; one of the sizes Fargate allows with `cpu`.',
        defaultText: 'the smallest Fargate allows with `cpu` (512 with 256)',
      }),
    ),
  cpuArchitecture: z
    .enum(['X86_64', 'ARM64'])
    .optional()
    .meta(
      info({
        description:
          'The CPU architecture of the tasks (the published image has both; a built image is built for it).',
        default: CUSTOM_DEFAULTS.cpuArchitecture,
      }),
    ),
  scaling: z
    .boolean()
    .optional()
    .meta(
      info({
        description:
          "Scale the task count on the consumer lag per task, between `minCount` and `maxCount`. `false`: a fixed `desiredCount`. The service then never sets a task count of its own, so a deploy does not reset the scaling's.",
        defaultText:
          '`true`; `false` when an enabled mapping is BROADCASTING (every task gets every message)',
      }),
    ),
  minCount: taskCount(1, {
    description: 'Scaling: the fewest tasks.',
    default: CUSTOM_DEFAULTS.minCount,
  }),
  maxCount: taskCount(1, {
    description:
      "Scaling: the most tasks. A PUSH group's queues are shared out over the tasks, so tasks beyond its topic's queue count hold no queue; every task of a `consumeMode: POP` group pops every queue, so POP uses tasks past the queue count.",
    defaultText: `the largest \`queues\` among the mapped topics (${CUSTOM_DEFAULTS.queuesPerTopic} per topic unless an event says); for a POP event 1,000 / its \`maxConcurrency\` (Lambda's default concurrency quota) when larger`,
  }),
  targetLagPerTask: z
    .number()
    .int()
    .min(1)
    .optional()
    .meta(
      info({
        description: 'Scaling: the consumer lag (messages) per task that target tracking keeps.',
        default: CUSTOM_DEFAULTS.targetLagPerTask,
      }),
    ),
  desiredCount: taskCount(0, {
    description: 'With `scaling: false`: the tasks to run.',
    default: CUSTOM_DEFAULTS.desiredCount,
  }),
  cluster: cfnString('must be an ECS cluster name or ARN')
    .optional()
    .meta(
      info({
        description: 'An existing ECS cluster for the poller service.',
        defaultText: 'a new cluster',
      }),
    ),
  offsetsTable: z
    .strictObject({
      existing: tableName()
        .optional()
        .meta(info({ description: 'Use this existing table (key `group` + `queue`); nothing is created.' })),
      name: tableName()
        .optional()
        .meta(
          info({ description: 'The name of the new table.', defaultText: 'generated by CloudFormation' }),
        ),
      retain: z
        .boolean()
        .optional()
        .meta(
          info({
            description: 'Keep the new table (the offsets) when the stack is removed.',
            default: CUSTOM_DEFAULTS.retainOffsetsTable,
          }),
        ),
    })
    .optional()
    .meta(
      info({
        description:
          'The DynamoDB offsets table: a new one (on demand, point-in-time recovery), or an existing one.',
        defaultText: 'a new table',
      }),
    ),
  logRetentionInDays: z
    .number()
    .int()
    .optional()
    .meta(
      info({
        description: 'Retention of the poller log group (one of the periods CloudWatch Logs accepts).',
        default: CUSTOM_DEFAULTS.logRetentionInDays,
      }),
    ),
  logLevel: z
    .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal'])
    .optional()
    .meta(info({ description: 'Log level of the poller.', default: CUSTOM_DEFAULTS.logLevel })),
  stopTimeout: z
    .number()
    .int()
    .min(30)
    .max(120)
    .optional()
    .meta(
      info({
        description: 'Seconds a stopping task may take to finish its batches and save offsets.',
        default: CUSTOM_DEFAULTS.stopTimeout,
      }),
    ),
  alarms: alarmsSchema,
  dashboard: dashboardSchema,
});

/**
 * `custom.rocketmq` as the schema accepts it.
 *
 * @example
 * ```ts
 * const custom: RocketMQCustomOptions = { nameServers: '10.0.0.10:9876', image: 'poller:1', vpc: { subnetIds: ['subnet-1'] } };
 * ```
 */
export type RocketMQCustomOptions = z.output<typeof rocketmqCustomSchema>;

/**
 * `custom.rocketmq.image.build`: `true`, or where the build context and Dockerfile are.
 */
export type RocketMQImageBuildOptions = z.output<typeof imageBuildSchema>;
