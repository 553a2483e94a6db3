/**
 * `custom.rocketmq` in serverless.yml: what every `rocketmq` event of the service shares (the cluster,
 * its credentials, and the poller service that runs the mappings). A closed schema.
 *
 * ```yaml
 * custom:
 *   rocketmq:
 *     nameServers: "10.0.0.10:9876;10.0.0.11:9876"
 *     image: 123456789012.dkr.ecr.eu-west-1.amazonaws.com/rocketmq-lambda:0.1.0
 *     vpc:
 *       subnetIds: [subnet-0a1b2c3d]
 *       securityGroupIds: [sg-0a1b2c3d]
 *     acl:
 *       secretArn: arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-acl-AbCdEf
 * ```
 */
import { z } from 'zod';
import { cfnIntrinsicSchema } from './cfn-intrinsic.js';

/** A string, or an intrinsic that yields one. */
const cfnString = (error: string) =>
  z.union([z.string().trim().min(1), cfnIntrinsicSchema], {
    error: `${error}, or Ref / Fn::GetAtt / Fn::ImportValue / Fn::Sub / Fn::Join`,
  });

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
  desiredCount: 1,
  targetLagPerTask: 1000,
  assignPublicIp: false,
  logRetentionInDays: 14,
  logLevel: 'info',
  /** Seconds ECS waits after SIGTERM before SIGKILL (Fargate's maximum). */
  stopTimeout: 120,
  retainOffsetsTable: true,
  tls: false,
} as const;

const DYNAMODB_TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

/**
 * The schema of `custom.rocketmq`.
 *
 * @example
 * ```ts
 * rocketmqCustomSchema.safeParse({ nameServers: '10.0.0.10:9876', image: 'poller:1', vpc: { subnetIds: ['subnet-1'] } });
 * ```
 */
export const rocketmqCustomSchema = z.strictObject({
  nameServers: z
    .union([z.string().trim().min(1), z.array(z.string().trim().min(1)).min(1), cfnIntrinsicSchema], {
      error: 'must be "host:port;host:port", a list of "host:port", or an intrinsic function',
    })
    .meta({ description: 'The name servers: "host:port;host:port", or a list.' }),
  acl: z
    .strictObject({
      secretArn: cfnString('must be a Secrets Manager secret ARN').optional().meta({
        description: 'A Secrets Manager secret (its full ARN) holding JSON {"accessKey", "secretKey"}.',
      }),
      accessKeyParameter: z
        .string()
        .trim()
        .min(1)
        .optional()
        .meta({ description: 'The SSM SecureString parameter (name or ARN) holding the access key.' }),
      secretKeyParameter: z
        .string()
        .trim()
        .min(1)
        .optional()
        .meta({ description: 'The SSM SecureString parameter (name or ARN) holding the secret key.' }),
      kmsKeyArn: cfnString('must be a KMS key ARN').optional().meta({
        description: 'The customer managed KMS key that encrypts the secret or parameters, if any.',
      }),
    })
    .optional()
    .meta({ description: 'RocketMQ ACL credentials, injected into the poller as ECS secrets.' }),
  tls: z.boolean().optional().meta({ description: 'TLS towards name servers and brokers (default false).' }),
  image: cfnString('must be an image URI').meta({ description: 'The poller image (see infra/docker).' }),
  cpu: z.number().int().optional().meta({
    description:
      'Fargate CPU units of a poller task: 256, 512, 1024, 2048, 4096, 8192 or 16384 (default 256).',
  }),
  memory: z.number().int().optional().meta({ description: 'Memory (MiB) of a poller task (default 512).' }),
  cpuArchitecture: z
    .enum(['X86_64', 'ARM64'])
    .optional()
    .meta({ description: 'The CPU architecture of the image (default X86_64).' }),
  desiredCount: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .optional()
    .meta({ description: 'Poller tasks to run (default 1).' }),
  minCount: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .meta({ description: 'Autoscaling: fewest tasks (default desiredCount).' }),
  maxCount: z.number().int().min(1).max(1000).optional().meta({
    description: 'Autoscaling: most tasks; above minCount turns lag-based scaling on (default desiredCount).',
  }),
  targetLagPerTask: z.number().int().min(1).optional().meta({
    description: 'Autoscaling: the consumer lag per task that target tracking keeps (default 1000).',
  }),
  vpc: z
    .strictObject({
      subnetIds: z
        .array(cfnString('must be a subnet id'))
        .min(1)
        .meta({ description: 'Subnets of the poller tasks (they must reach the brokers and AWS APIs).' }),
      securityGroupIds: z
        .array(cfnString('must be a security group id'))
        .min(1)
        .optional()
        .meta({ description: "Security groups of the poller tasks (default: the VPC's default group)." }),
      assignPublicIp: z
        .boolean()
        .optional()
        .meta({ description: 'Give tasks a public IP (public subnets without NAT; default false).' }),
    })
    .meta({ description: 'The network of the poller tasks.' }),
  cluster: cfnString('must be an ECS cluster name or ARN')
    .optional()
    .meta({ description: 'An existing ECS cluster for the poller service (default: a new one).' }),
  offsetsTable: z
    .strictObject({
      existing: z
        .string()
        .regex(DYNAMODB_TABLE_NAME, { error: 'must be a DynamoDB table name (3–255 of A-Z a-z 0-9 _ . -)' })
        .optional()
        .meta({ description: 'Use this existing table (key group + queue); nothing is created.' }),
      name: z
        .string()
        .regex(DYNAMODB_TABLE_NAME, { error: 'must be a DynamoDB table name (3–255 of A-Z a-z 0-9 _ . -)' })
        .optional()
        .meta({ description: 'The name of the new table (default: generated by CloudFormation).' }),
      retain: z
        .boolean()
        .optional()
        .meta({ description: 'Keep the new table (the offsets) when the stack is removed (default true).' }),
    })
    .optional()
    .meta({ description: 'The DynamoDB offsets table: a new one (default) or an existing one.' }),
  logRetentionInDays: z
    .number()
    .int()
    .optional()
    .meta({ description: 'Retention of the poller log group (default 14).' }),
  logLevel: z
    .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal'])
    .optional()
    .meta({ description: 'Log level of the poller (default info).' }),
  stopTimeout: z.number().int().min(30).max(120).optional().meta({
    description: 'Seconds a stopping task may take to finish batches and save offsets (default 120).',
  }),
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
