/**
 * The standalone CloudFormation template (infra/cloudformation/rocketmq-poller.yml) builds the poller's
 * run config by hand with `!Sub`/`!If` into ROCKETMQ_LAMBDA_CONFIG. These tests evaluate it for parameter
 * combinations, as CloudFormation would, and feed the result to the poller's own config parser with the
 * environment the container gets.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../../src/config/config-error.js';
import { loadConfigFromEnv, parseConfig } from '../../../src/config/load-config.js';
import type { MappingConfig, RunConfig } from '../../../src/config/run-config.js';
import { LAG_METRIC } from '../../../src/metrics/lag-metric.js';
import { HEALTH_FILE_ENV, healthFilePath } from '../../../src/poller/health-beat.js';
import { compileRocketMQResources } from '../../../src/serverless/compile-rocketmq-resources.js';
import { defaultMessageAgeSeconds } from '../../../src/serverless/poller-alarms.js';
import { dashboardBody } from '../../../src/serverless/poller-dashboard.js';
import { ecrRepositoryArnOf } from '../../../src/serverless/poller-image.js';
import {
  POLLER_STATE_ENVIRONMENT,
  POLLER_STATE_MOUNT_POINT,
  POLLER_STATE_TASK_VOLUME,
} from '../../../src/serverless/poller-state-volume.js';
import { publishedImage } from '../../../src/serverless/published-image.js';
import {
  CfnEvaluationError,
  CfnEvaluator,
  CfnParameterError,
  type CfnTemplate,
  type CfnValue,
  parseCfnTemplate,
  TEST_PSEUDO_PARAMETERS,
} from './cfn-evaluate.js';

const TEMPLATE_FILE = fileURLToPath(
  new URL('../../../infra/cloudformation/rocketmq-poller.yml', import.meta.url),
);
const template: CfnTemplate = parseCfnTemplate(readFileSync(TEMPLATE_FILE, 'utf8'));

const REGION = TEST_PSEUDO_PARAMETERS['AWS::Region'];
const FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:orders-handler';
const SQS_ARN = 'arn:aws:sqs:eu-west-1:123456789012:orders-failures';
const SNS_ARN = 'arn:aws:sns:eu-west-1:123456789012:orders-failures';
const ACL_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-acl-AbCdEf';

/** The parameters without a Default. */
const REQUIRED: Readonly<Record<string, string>> = {
  FunctionArn: FUNCTION_ARN,
  Topic: 'Orders',
  ConsumerGroup: 'orders-fn',
  NameServers: '10.0.0.1:9876;10.0.0.2:9876',
  SubnetIds: 'subnet-0a,subnet-0b',
  SecurityGroupIds: 'sg-0a',
};

/** A parameter's Default as the template declares it. */
function defaultOf(parameter: string): string {
  const declared = z
    .object({ Default: z.union([z.string(), z.number()]) })
    .parse(template.Parameters[parameter]).Default;
  return String(declared);
}

const containerSchema = z.object({
  Name: z.string(),
  Environment: z.array(z.object({ Name: z.string(), Value: z.string() })),
  Secrets: z.array(z.object({ Name: z.string(), ValueFrom: z.string() })).optional(),
});
type Container = z.infer<typeof containerSchema>;

interface Deployment {
  readonly evaluator: CfnEvaluator;
  readonly container: Container;
  /** The container's environment; a secret's value stands in as `<ValueFrom>`. */
  readonly env: Readonly<Record<string, string>>;
  readonly config: RunConfig;
}

function evaluatorFor(parameters: Readonly<Record<string, string>>): CfnEvaluator {
  return new CfnEvaluator(template, { parameters: { ...REQUIRED, ...parameters } });
}

function pollerContainer(evaluator: CfnEvaluator): Container {
  const definitions = z
    .array(z.looseObject(containerSchema.shape))
    .parse(evaluator.evaluateAt('Resources', 'TaskDefinition', 'Properties', 'ContainerDefinitions'));
  const poller = definitions.find((definition) => definition.Name === 'poller');
  if (poller === undefined) throw new Error('the task definition has no container named poller');
  return poller;
}

/** ROCKETMQ_LAMBDA_CONFIG is not JSON (the poller would exit: `run` reads it with loadConfigFromEnv). */
class NotJsonError extends Error {
  override readonly name = 'NotJsonError';
}

/** Evaluates the template for `parameters` and parses ROCKETMQ_LAMBDA_CONFIG as the container would. */
function deploy(parameters: Readonly<Record<string, string>> = {}): Deployment {
  const evaluator = evaluatorFor(parameters);
  const container = pollerContainer(evaluator);
  const env: Record<string, string> = {};
  for (const { Name, Value } of container.Environment) env[Name] = Value;
  for (const { Name, ValueFrom } of container.Secrets ?? []) env[Name] = `<${ValueFrom}>`;
  const text = env.ROCKETMQ_LAMBDA_CONFIG;
  if (text === undefined) throw new Error('the poller container has no ROCKETMQ_LAMBDA_CONFIG');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new NotJsonError(
      `ROCKETMQ_LAMBDA_CONFIG is not JSON for ${JSON.stringify(parameters)}: ${why}\n${text}`,
      {
        cause,
      },
    );
  }
  return { evaluator, container, env, config: parseConfig(raw, { baseDir: '/app', env }) };
}

function mappingOf(parameters: Readonly<Record<string, string>>): MappingConfig {
  const [mapping, ...others] = deploy(parameters).config.mappings;
  expect(others).toEqual([]);
  if (mapping === undefined) throw new Error('no mapping');
  return mapping;
}

/** What becomes of parameters CloudFormation takes: the poller accepts the config, or exits with problems. */
function outcomeOf(parameters: Readonly<Record<string, string>>): string {
  try {
    evaluatorFor(parameters);
  } catch (error) {
    if (error instanceof CfnParameterError) return `CloudFormation refuses the parameters: ${error.message}`;
    throw error;
  }
  try {
    deploy(parameters);
    return 'the poller accepts the config';
  } catch (error) {
    if (error instanceof ConfigError) return `the poller exits: ${error.problems.join('; ')}`;
    if (error instanceof NotJsonError) return `the poller exits: ${error.message}`;
    throw error;
  }
}

describe('ROCKETMQ_LAMBDA_CONFIG of the standalone template', () => {
  it('with the parameter defaults: valid JSON the parser accepts, with the mapping, table, region and metrics', () => {
    const { config, env } = deploy();
    expect(env.AWS_REGION).toBe(REGION);
    expect(env.LOG_LEVEL).toBe('info');
    expect({ ...config, mappings: [] }).toEqual({
      source: undefined,
      baseDir: '/app',
      nameServerAddresses: ['10.0.0.1:9876', '10.0.0.2:9876'],
      acl: undefined,
      tls: undefined,
      shutdownTimeoutMs: 110_000,
      offsets: {
        store: 'dynamodb',
        table: 'OffsetsTable',
        region: REGION,
        endpoint: undefined,
        createTable: false,
        path: '/app/.rocketmq-lambda/offsets',
        persistIntervalMs: 5000,
      },
      lambda: { region: REGION, endpoint: undefined },
      destinations: { sqsEndpoint: undefined, snsEndpoint: undefined },
      // EMF lines on stdout, which the awslogs driver ships to the stack's log group (no PutMetricData).
      metrics: { emf: { namespace: LAG_METRIC.namespace, intervalMs: 60_000 } },
      mappings: [],
    });
    expect(mappingOf({})).toMatchObject({
      name: 'orders-fn',
      topic: 'Orders',
      consumerGroup: 'orders-fn',
      functionRef: FUNCTION_ARN,
      filter: { type: 'TAG', expression: '*' },
      batchSize: 100,
      maximumBatchingWindowMs: 500,
      maxConcurrency: 10,
      orderly: false,
      orderlyFailure: 'skip',
      maxReconsumeTimes: 16,
      messageModel: 'CLUSTERING',
      startingPosition: 'LATEST',
      startingPositionTimestampMs: undefined,
      bisectBatchOnError: false,
      maxRecordAgeSeconds: -1,
      onFailure: undefined,
    });
  });

  it("has the parser's mapping defaults", () => {
    const fromTemplate = mappingOf({});
    const minimal = parseConfig(
      {
        nameServer: '10.0.0.1:9876',
        offsets: { store: 'dynamodb', table: 't-offsets' },
        mappings: [{ topic: 'Orders', consumerGroup: 'orders-fn', function: FUNCTION_ARN }],
      },
      { baseDir: '/app', env: {} },
    ).mappings[0];
    expect(fromTemplate).toEqual(minimal);
  });

  it('is what `rocketmq-lambda run` reads from the environment (loadConfigFromEnv)', () => {
    const { config, env } = deploy({ AclSecretArn: ACL_SECRET_ARN, OnFailureArn: SQS_ARN });
    expect(loadConfigFromEnv({ env, baseDir: '/app' })).toEqual({
      ...config,
      source: 'ROCKETMQ_LAMBDA_CONFIG',
    });
  });

  it('passes an SQL92 filter as { sql }', () => {
    const expression = "amount > 100 AND region = 'eu'";
    expect(mappingOf({ FilterType: 'SQL92', FilterExpression: expression }).filter).toEqual({
      type: 'SQL92',
      expression,
    });
  });

  it('passes a tag filter with || as a string', () => {
    expect(mappingOf({ FilterExpression: 'TagA || TagB' }).filter).toEqual({
      type: 'TAG',
      expression: 'TagA || TagB',
    });
  });

  it('passes orderly with its orderlyFailure block', () => {
    expect(mappingOf({ Orderly: 'true', OrderlyFailure: 'block', MaxReconsumeTimes: '3' })).toMatchObject({
      orderly: true,
      orderlyFailure: 'block',
      maxReconsumeTimes: 3,
    });
  });

  it('leaves orderlyFailure out when not orderly (the parser rejects it there)', () => {
    const { env } = deploy({ OrderlyFailure: 'block' });
    expect(env.ROCKETMQ_LAMBDA_CONFIG).not.toContain('orderlyFailure');
    expect(mappingOf({ OrderlyFailure: 'block' })).toMatchObject({ orderly: false, orderlyFailure: 'skip' });
  });

  it('passes AT_TIMESTAMP with its timestamp', () => {
    const timestamp = '2025-01-31T12:00:00Z';
    expect(
      mappingOf({ StartingPosition: 'AT_TIMESTAMP', StartingPositionTimestamp: timestamp }),
    ).toMatchObject({
      startingPosition: 'AT_TIMESTAMP',
      startingPositionTimestampMs: Date.parse(timestamp),
    });
    expect(
      mappingOf({ StartingPosition: 'AT_TIMESTAMP', StartingPositionTimestamp: '2025-01-31T14:00+02:00' })
        .startingPositionTimestampMs,
    ).toBe(Date.parse(timestamp));
  });

  it('passes TRIM_HORIZON', () => {
    expect(mappingOf({ StartingPosition: 'TRIM_HORIZON' })).toMatchObject({
      startingPosition: 'TRIM_HORIZON',
      startingPositionTimestampMs: undefined,
    });
  });

  it.each([
    ['an SQS queue', SQS_ARN],
    ['an SNS topic', SNS_ARN],
  ])('passes onFailure to %s', (_kind, arn) => {
    expect(mappingOf({ OnFailureArn: arn }).onFailure).toBe(arn);
  });

  it('uses an existing table instead of the one it creates', () => {
    const { config, evaluator } = deploy({ ExistingOffsetsTable: 'shared-offsets' });
    expect(evaluator.condition('CreateTable')).toBe(false);
    expect(config.offsets).toMatchObject({ store: 'dynamodb', table: 'shared-offsets', region: REGION });
  });

  it('takes the ACL keys from the secret, never from the config', () => {
    const { config, container } = deploy({ AclSecretArn: ACL_SECRET_ARN });
    expect(container.Secrets).toEqual([
      { Name: 'ROCKETMQ_ACCESS_KEY', ValueFrom: `${ACL_SECRET_ARN}:accessKey::` },
      { Name: 'ROCKETMQ_SECRET_KEY', ValueFrom: `${ACL_SECRET_ARN}:secretKey::` },
    ]);
    expect(config.acl).toEqual({
      accessKey: `<${ACL_SECRET_ARN}:accessKey::>`,
      secretKey: `<${ACL_SECRET_ARN}:secretKey::>`,
    });
    expect(deploy().container.Secrets).toBeUndefined();
  });

  it('passes TLS', () => {
    expect(deploy({ Tls: 'true' }).config.tls).toEqual({ verifyServer: true });
  });

  it('passes the numbers, the message model and bisecting', () => {
    const parameters = {
      BatchSize: '500',
      MaximumBatchingWindowMs: '2000',
      MaxConcurrency: '50',
      MaxReconsumeTimes: '0',
      MessageModel: 'BROADCASTING',
      BisectBatchOnError: 'true',
      MaxRecordAgeSeconds: '3600',
    };
    expect(mappingOf(parameters)).toMatchObject({
      batchSize: 500,
      maximumBatchingWindowMs: 2000,
      maxConcurrency: 50,
      maxReconsumeTimes: 0,
      messageModel: 'BROADCASTING',
      bisectBatchOnError: true,
      maxRecordAgeSeconds: 3600,
    });
  });

  it('passes every option at once', () => {
    const { config } = deploy({
      FilterType: 'SQL92',
      FilterExpression: 'a IS NOT NULL',
      Orderly: 'true',
      OrderlyFailure: 'block',
      StartingPosition: 'AT_TIMESTAMP',
      StartingPositionTimestamp: '2025-01-31T12:00:00Z',
      OnFailureArn: SNS_ARN,
      ExistingOffsetsTable: 'shared-offsets',
      AclSecretArn: ACL_SECRET_ARN,
      Tls: 'true',
    });
    expect(config).toMatchObject({
      tls: { verifyServer: true },
      offsets: { table: 'shared-offsets' },
      acl: expect.any(Object),
    });
    expect(config.mappings[0]).toMatchObject({
      filter: { type: 'SQL92', expression: 'a IS NOT NULL' },
      orderly: true,
      orderlyFailure: 'block',
      startingPositionTimestampMs: Date.parse('2025-01-31T12:00:00Z'),
      onFailure: SNS_ARN,
    });
  });

  it.each([
    ['BatchSize', '1', 'batchSize', 1],
    ['BatchSize', '10000', 'batchSize', 10_000],
    ['MaximumBatchingWindowMs', '300000', 'maximumBatchingWindowMs', 300_000],
    ['MaxConcurrency', '1', 'maxConcurrency', 1],
    ['MaxConcurrency', '1000', 'maxConcurrency', 1000],
    ['MaxReconsumeTimes', '10000', 'maxReconsumeTimes', 10_000],
    ['MaxRecordAgeSeconds', '60', 'maxRecordAgeSeconds', 60],
    ['MaxRecordAgeSeconds', '604800', 'maxRecordAgeSeconds', 604_800],
  ] as const)('accepts the template bound %s=%s', (parameter, value, key, expected) => {
    expect(mappingOf({ [parameter]: value })[key]).toBe(expected);
  });
});

describe('parameters CloudFormation takes must give a config the poller accepts', () => {
  // Each case names a combination the template lets through today (no constraint or Rule refuses it)
  // while the poller's parser rejects the config, so the task would exit at start and the deployment fail.
  it.each(['0', '59'])(
    'BUG (template line ~126-131): MaxRecordAgeSeconds=%s is within MinValue -1 / MaxValue 604800, but the poller takes only -1 or 60-604800',
    (seconds) => {
      expect(outcomeOf({ MaxRecordAgeSeconds: seconds })).not.toMatch(/^the poller exits/);
    },
  );

  it('BUG (template lines ~112-121, no Rules): StartingPosition=AT_TIMESTAMP without a StartingPositionTimestamp', () => {
    expect(outcomeOf({ StartingPosition: 'AT_TIMESTAMP' })).not.toMatch(/^the poller exits/);
  });

  it('BUG (template lines ~112-121, no Rules): a StartingPositionTimestamp with StartingPosition=LATEST', () => {
    expect(outcomeOf({ StartingPositionTimestamp: '2025-01-31T12:00:00Z' })).not.toMatch(/^the poller exits/);
  });

  it.each([
    ['FilterExpression', 'TagA ||\tTagB'],
    ['NameServers', '10.0.0.1:9876;\n10.0.0.2:9876'],
  ])(
    'BUG (template lines ~72 and ~140, AllowedPattern ^[^"\\\\]+$ lets control characters through): %s with a tab or line break gives invalid JSON',
    (parameter, value) => {
      expect(outcomeOf({ [parameter]: value })).not.toMatch(/^the poller exits/);
    },
  );

  it('CloudFormation itself refuses values outside the parameter constraints', () => {
    expect(outcomeOf({ BatchSize: '0' })).toMatch(
      /^CloudFormation refuses the parameters: parameter BatchSize/,
    );
    expect(outcomeOf({ FilterExpression: 'a = "x"' })).toMatch(/AllowedPattern/);
    expect(outcomeOf({ OnFailureArn: 'arn:aws:lambda:eu-west-1:123456789012:function:f' })).toMatch(
      /AllowedPattern/,
    );
  });
});

describe('lag-based scaling of the standalone template', () => {
  it('tracks the metric the pollers publish (LAG_METRIC) for the mapped consumer group', () => {
    const { evaluator, config } = deploy({
      EnableAutoScaling: 'true',
      ExistingOffsetsTable: 'shared-offsets',
    });
    expect(evaluator.condition('ScaleOnLag')).toBe(true);
    expect(z.object({ Condition: z.string() }).parse(template.Resources.LagScalingPolicy).Condition).toBe(
      'ScaleOnLag',
    );
    const spec = evaluator.evaluateAt(
      'Resources',
      'LagScalingPolicy',
      'Properties',
      'TargetTrackingScalingPolicyConfiguration',
      'CustomizedMetricSpecification',
    );
    expect(spec).toEqual({
      Namespace: LAG_METRIC.namespace,
      MetricName: LAG_METRIC.metricName,
      Dimensions: [{ Name: LAG_METRIC.dimension, Value: 'orders-fn' }],
      Statistic: LAG_METRIC.statistic,
      Unit: LAG_METRIC.unit,
    });
    expect(config.metrics.emf?.namespace).toBe(LAG_METRIC.namespace);
    expect(config.metrics.cloudwatch).toBeUndefined();
    expect(config.mappings[0]?.consumerGroup).toBe('orders-fn');
    // The scaling policy reads one-minute averages.
    expect(config.metrics.emf?.intervalMs).toBeLessThanOrEqual(60_000);

    const role = evaluator.evaluateAt('Resources', 'TaskRole');
    const statements = z
      .object({
        Properties: z.object({
          Policies: z.array(
            z.object({
              PolicyDocument: z.object({ Statement: z.array(z.looseObject({ Sid: z.string() })) }),
            }),
          ),
        }),
      })
      .parse(role)
      .Properties.Policies.flatMap((item) => item.PolicyDocument.Statement);
    // EMF needs no CloudWatch permission: the execution role's log rights ship the lines.
    expect(statements.map((statement) => statement.Sid)).toEqual(['InvokeMappedFunction', 'Offsets']);
    expect(JSON.stringify(role)).not.toContain('cloudwatch:');
  });
});

describe('the standalone template: scaling, function timeout and secret ARNs', () => {
  it('scales by default, and then the service sets no DesiredCount (a stack update would reset the count)', () => {
    const scaled = evaluatorFor({});
    expect(scaled.condition('ScaleOnLag')).toBe(true);
    expect(scaled.evaluateAt('Resources', 'Service', 'Properties')).not.toHaveProperty('DesiredCount');
    expect(scaled.evaluateAt('Resources', 'ScalableTarget', 'Properties', 'MaxCapacity')).toBe('8');
    const fixed = evaluatorFor({ EnableAutoScaling: 'false', DesiredCount: '2' });
    expect(fixed.evaluateAt('Resources', 'Service', 'Properties', 'DesiredCount')).toBe('2');
  });

  it("passes the function's timeout as functionTimeoutMs (default: Lambda's longest, 900 s)", () => {
    expect(mappingOf({ FunctionTimeoutSeconds: '30' }).functionTimeoutMs).toBe(30_000);
    expect(mappingOf({}).functionTimeoutMs).toBe(900_000);
  });

  it.each([
    ['a full ARN', ACL_SECRET_ARN],
    ['a partial ARN (no random suffix)', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq-acl'],
  ])('grants the ACL secret given as %s, with and without the -?????? suffix', (_kind, arn) => {
    const statement = executionStatements(withLogGroup({ AclSecretArn: arn })).find(
      (item) => item.Sid === 'ReadAclSecret',
    );
    expect(statement).toMatchObject({ Resource: [arn, `${arn}-??????`] });
    expect(deploy({ AclSecretArn: arn }).container.Secrets?.[0]?.ValueFrom).toBe(`${arn}:accessKey::`);
  });

  it('refuses a secret ARN with a JSON key or a plain name', () => {
    expect(outcomeOf({ AclSecretArn: `${ACL_SECRET_ARN}:accessKey::` })).toMatch(/AllowedPattern/);
    expect(outcomeOf({ AclSecretArn: 'rocketmq-acl' })).toMatch(/AllowedPattern/);
  });
});

/** An evaluator that knows the log group's ARN (the execution role names it). */
function withLogGroup(parameters: Readonly<Record<string, string>>, partition = 'aws'): CfnEvaluator {
  return new CfnEvaluator(template, {
    parameters: { ...REQUIRED, ...parameters },
    attributes: { 'LogGroup.Arn': 'log-group-arn' },
    pseudoParameters: { ...TEST_PSEUDO_PARAMETERS, 'AWS::Partition': partition },
  });
}

/** The execution role's statements. */
function executionStatements(evaluator: CfnEvaluator): { Sid: string; Action: unknown; Resource: unknown }[] {
  return z
    .array(
      z.object({ Sid: z.string(), Effect: z.literal('Allow'), Action: z.unknown(), Resource: z.unknown() }),
    )
    .parse(
      evaluator.evaluateAt(
        'Resources',
        'ExecutionRole',
        'Properties',
        'Policies',
        0,
        'PolicyDocument',
        'Statement',
      ),
    );
}

describe('the standalone template: the poller image and its pull rights', () => {
  it("defaults PollerImage to the plugin's default, the published image of this version", () => {
    const declared = z.object({ Default: z.string() }).parse(template.Parameters.PollerImage).Default;
    expect(declared).toBe(publishedImage());
    expect(deploy().container).toMatchObject({ Image: publishedImage() });
  });

  it.each([
    ['a tag', '123456789012.dkr.ecr.eu-west-1.amazonaws.com/rocketmq-lambda:1.0.0', 'aws'],
    ['no tag', '123456789012.dkr.ecr.eu-west-1.amazonaws.com/rocketmq-lambda', 'aws'],
    [
      'a digest',
      `123456789012.dkr.ecr.us-east-2.amazonaws.com/rocketmq-lambda@sha256:${'a1'.repeat(32)}`,
      'aws',
    ],
    ['a namespace', '210987654321.dkr.ecr.eu-west-1.amazonaws.com/team/infra/rocketmq-lambda:0.1.0', 'aws'],
    ['China', '123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/rocketmq-lambda:0.1.0', 'aws-cn'],
  ])(
    "pulls an ECR image with %s from exactly its repository, as the plugin's role does",
    (_case, image, partition) => {
      const statements = executionStatements(withLogGroup({ PollerImage: image }, partition));
      const repository = ecrRepositoryArnOf(image);
      expect(repository).toMatch(/^arn:aws(-cn)?:ecr:[a-z0-9-]+:\d{12}:repository\/[a-z0-9/._-]+$/);
      expect(statements).toEqual([
        {
          Sid: 'WriteLogs',
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: 'log-group-arn',
        },
        { Sid: 'EcrLogin', Effect: 'Allow', Action: 'ecr:GetAuthorizationToken', Resource: '*' },
        {
          Sid: 'PullImage',
          Effect: 'Allow',
          Action: ['ecr:BatchCheckLayerAvailability', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchGetImage'],
          Resource: repository,
        },
      ]);
    },
  );

  it.each([
    ['the default (GHCR)', undefined],
    ['ECR Public', 'public.ecr.aws/rocketmq-lambda/rocketmq-lambda:0.1.0'],
    ['Docker Hub, no registry host', 'rocketmq-lambda:0.1.0'],
    ['a registry with a port', 'registry.internal:5000/rocketmq-lambda:0.1.0'],
    ['a host that only looks like ECR', '123456789012.dkr.ecr.eu-west-1.example.com/rocketmq-lambda:0.1.0'],
  ])('grants no ECR right for an image outside private ECR: %s', (_case, image) => {
    const parameters: Record<string, string> = image === undefined ? {} : { PollerImage: image };
    expect(ecrRepositoryArnOf(image ?? publishedImage())).toBeUndefined();
    expect(executionStatements(withLogGroup(parameters)).map((item) => item.Sid)).toEqual(['WriteLogs']);
  });

  it('refuses an empty PollerImage', () => {
    expect(outcomeOf({ PollerImage: '' })).toMatch(/MinLength/);
  });
});

describe('the standalone template: a read-only root filesystem', () => {
  it("mounts the plugin's state volume, the one writable directory, and points the heartbeat and TMPDIR into it", () => {
    const evaluator = evaluatorFor({});
    const volumes = evaluator.evaluateAt('Resources', 'TaskDefinition', 'Properties', 'Volumes');
    const container = pollerContainer(evaluator);
    const plugin = compileRocketMQResources({
      stage: 'prod',
      custom: { nameServers: '10.0.0.1:9876', vpc: { subnetIds: ['subnet-0a'] } },
      functions: [
        {
          key: 'orders',
          logicalId: 'OrdersLambdaFunction',
          events: [{ rocketmq: { topic: 'Orders', consumerGroup: 'orders-fn' } }],
        },
      ],
    }).resources.RocketMQPollerTaskDefinition?.Properties;
    const pluginContainer = (plugin?.ContainerDefinitions as Record<string, unknown>[] | undefined)?.[0];
    expect(volumes).toEqual([POLLER_STATE_TASK_VOLUME]);
    expect(plugin?.Volumes).toEqual([POLLER_STATE_TASK_VOLUME]);
    for (const poller of [container, pluginContainer]) {
      expect(poller).toMatchObject({
        ReadonlyRootFilesystem: true,
        MountPoints: [POLLER_STATE_MOUNT_POINT],
      });
      expect(poller?.Environment).toEqual(expect.arrayContaining([...POLLER_STATE_ENVIRONMENT]));
    }
  });

  it('holds everything the poller writes: the heartbeat, the broadcasting offsets, temporary files', () => {
    const { env, config } = deploy({ MessageModel: 'BROADCASTING' });
    const inside = (file: string) => file.startsWith(`${POLLER_STATE_MOUNT_POINT.ContainerPath}/`);
    expect(POLLER_STATE_MOUNT_POINT.ContainerPath).toBe('/app/.rocketmq-lambda');
    expect(inside(healthFilePath(env))).toBe(true);
    // Local offset files of BROADCASTING mappings, under the image's working directory /app.
    expect(config.mappings[0]?.messageModel).toBe('BROADCASTING');
    expect(inside(`${config.offsets.path}/`)).toBe(true);
    expect(env.TMPDIR).toBe(POLLER_STATE_MOUNT_POINT.ContainerPath);
    expect(POLLER_STATE_ENVIRONMENT.map((variable) => variable.Name)).toContain(HEALTH_FILE_ENV);
  });
});

describe('the test evaluator (cfn-evaluate.ts)', () => {
  it('turns short forms into long forms', () => {
    expect(template.Conditions.HasAcl).toEqual({
      'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AclSecretArn' }, ''] }],
    });
    expect(parseCfnTemplate('Resources:\n  A: !GetAtt B.Arn\n').Resources.A).toEqual({
      'Fn::GetAtt': ['B', 'Arn'],
    });
  });

  it('evaluates Fn::Select, Fn::Split and Fn::Join as CloudFormation does', () => {
    const evaluator = evaluatorFor({});
    expect(evaluator.evaluate({ 'Fn::Split': ['/', 'a/b//c'] })).toEqual(['a', 'b', '', 'c']);
    expect(evaluator.evaluate({ 'Fn::Split': ['/', 'abc'] })).toEqual(['abc']);
    expect(evaluator.evaluate({ 'Fn::Select': ['1', { 'Fn::Split': [':', { Ref: 'NameServers' }] }] })).toBe(
      '9876;10.0.0.2',
    );
    expect(evaluator.evaluate({ 'Fn::Join': ['-', [{ Ref: 'Topic' }, 'x', { Ref: 'AWS::Region' }]] })).toBe(
      'Orders-x-eu-west-1',
    );
  });

  it('evaluates both forms of Fn::Sub, pseudo parameters and the ! escape', () => {
    const evaluator = evaluatorFor({});
    expect(
      evaluator.evaluate({
        'Fn::Sub': `arn:\${AWS::Partition}:x:\${AWS::Region}:\${AWS::AccountId}:\${Topic}`,
      }),
    ).toBe('arn:aws:x:eu-west-1:123456789012:Orders');
    expect(
      evaluator.evaluate({ 'Fn::Sub': [`\${A}-\${!Topic}-\${LogGroup}`, { A: { Ref: 'ConsumerGroup' } }] }),
    ).toBe(`orders-fn-\${Topic}-LogGroup`);
  });

  it('names what it does not support or cannot resolve, never passing silently', () => {
    const evaluator = evaluatorFor({});
    // The created table's ARN is a Fn::GetAtt.
    expect(() => evaluator.evaluateAt('Resources', 'TaskRole')).toThrow(
      /Resources\.TaskRole\..*Fn::GetAtt is not supported/,
    );
    expect(() => evaluator.evaluate({ 'Fn::Sub': `\${OffsetsTable.Arn}` })).toThrow(
      /Fn::GetAtt is not supported/,
    );
    expect(() => evaluator.evaluate({ 'Fn::FindInMap': ['M', 'a', 'b'] })).toThrow(
      /Fn::FindInMap is not supported/,
    );
    // CloudFormation fails the stack on an index outside the list, and takes only a literal delimiter.
    expect(() => evaluator.evaluate({ 'Fn::Select': [2, { 'Fn::Split': ['.', 'a.b'] }] })).toThrow(
      /index 2 is outside \["a","b"\]/,
    );
    expect(() => evaluator.evaluate({ 'Fn::Split': [{ Ref: 'Topic' }, 'a'] })).toThrow(/literal string/);
    expect(() => evaluator.evaluate({ Ref: 'Nothing' })).toThrow(CfnEvaluationError);
    expect(() => evaluator.evaluate({ 'Fn::Sub': `\${SubnetIds}` })).toThrow(/not a string/);
    expect(() => evaluatorFor({ ExistingCluster: 'c' }).evaluate({ Ref: 'Cluster' })).toThrow(
      /condition CreateCluster is false/,
    );
    expect(() => new CfnEvaluator(template, { parameters: {} })).toThrow(/has no Default/);
    expect(() => evaluatorFor({ Unknown: 'x' })).toThrow(/not in the template/);
  });
});

describe('alarms and dashboard of the standalone template', () => {
  const SERVICE_NAME = 'rocketmq-poller-test-Service-1A2B3C';
  const evaluatorWithService = (parameters: Readonly<Record<string, string>> = {}) =>
    new CfnEvaluator(template, {
      parameters: { ...REQUIRED, ...parameters },
      attributes: { 'Service.Name': SERVICE_NAME },
    });
  const ALARMS = ['DeadLettersAlarm', 'MessageAgeAlarm', 'UnhealthyAlarm', 'CannotConsumeAlarm'] as const;
  const alarm = (evaluator: CfnEvaluator, id: (typeof ALARMS)[number]) =>
    z.record(z.string(), z.unknown()).parse(evaluator.evaluateAt('Resources', id, 'Properties'));
  const conditionOf = (id: string) =>
    z.object({ Condition: z.string().optional() }).parse(template.Resources[id]).Condition;

  it('ships the EMF lines with the awslogs driver to the log group the stack owns', () => {
    const definitions = z
      .array(z.looseObject({ LogConfiguration: z.unknown() }))
      .parse(
        deploy().evaluator.evaluateAt('Resources', 'TaskDefinition', 'Properties', 'ContainerDefinitions'),
      );
    expect(definitions[0]?.LogConfiguration).toEqual({
      LogDriver: 'awslogs',
      Options: { 'awslogs-group': 'LogGroup', 'awslogs-region': REGION, 'awslogs-stream-prefix': 'poller' },
    });
    expect(z.object({ Type: z.string() }).parse(template.Resources.LogGroup).Type).toBe(
      'AWS::Logs::LogGroup',
    );
  });

  it("are the plugin's alarms for the mapped group (metric, statistic, periods, threshold, missing data)", () => {
    const plugin = compileRocketMQResources({
      stage: 'prod',
      custom: { nameServers: '10.0.0.1:9876', image: 'poller:1', vpc: { subnetIds: ['subnet-0a'] } },
      functions: [
        {
          key: 'orders',
          logicalId: 'OrdersLambdaFunction',
          // The template's defaults: FunctionTimeoutSeconds 900, the same 500 ms batching window.
          timeoutSeconds: Number(defaultOf('FunctionTimeoutSeconds')),
          events: [{ rocketmq: { topic: 'Orders', consumerGroup: 'orders-fn' } }],
        },
      ],
    }).resources;
    const evaluator = evaluatorWithService();
    const withoutDescription = (properties: Readonly<Record<string, unknown>> | undefined) => {
      const { AlarmDescription: _description, Threshold, ...rest } = properties ?? {};
      return { ...rest, Threshold: Number(Threshold) };
    };
    for (const id of ALARMS) {
      expect(conditionOf(id)).toBe('CreateAlarms');
      expect(withoutDescription(alarm(evaluator, id)), id).toEqual(
        withoutDescription(plugin[`RocketMQ${id}OrdersFn`]?.Properties),
      );
      expect(String(alarm(evaluator, id).AlarmDescription)).toContain('orders-fn');
    }
    expect(alarm(evaluator, 'MessageAgeAlarm')).toMatchObject({
      MetricName: 'OldestMessageAge',
      Threshold: '1020',
    });
    expect(alarm(evaluator, 'UnhealthyAlarm').TreatMissingData).toBe('breaching');
  });

  it("default MessageAgeThresholdSeconds to the plugin's rule for the default function timeout and window", () => {
    const timeoutSeconds = Number(defaultOf('FunctionTimeoutSeconds'));
    const windowSeconds = Number(defaultOf('MaximumBatchingWindowMs')) / 1000;
    const threshold = Number(defaultOf('MessageAgeThresholdSeconds'));
    expect(threshold).toBe(defaultMessageAgeSeconds(timeoutSeconds + windowSeconds));
    // Above what a message waits in a healthy flow: one invoke of the slowest function, its window, 10 s.
    expect(threshold).toBeGreaterThan(timeoutSeconds + windowSeconds + 10);
    expect(timeoutSeconds).toBe(900);
    expect(threshold).toBe(1020);
  });

  it('notify AlarmTopicArn on ALARM and OK, take MessageAgeThresholdSeconds, and refuse bad values', () => {
    const topic = 'arn:aws:sns:eu-west-1:123456789012:rocketmq-alarms';
    const evaluator = evaluatorWithService({ AlarmTopicArn: topic, MessageAgeThresholdSeconds: '900' });
    for (const id of ALARMS) {
      expect(alarm(evaluator, id)).toMatchObject({ AlarmActions: [topic], OKActions: [topic] });
      expect(alarm(evaluatorWithService(), id)).not.toHaveProperty('AlarmActions');
      expect(alarm(evaluatorWithService(), id)).not.toHaveProperty('OKActions');
    }
    expect(alarm(evaluator, 'MessageAgeAlarm').Threshold).toBe('900');
    expect(outcomeOf({ MessageAgeThresholdSeconds: '59' })).toMatch(/below MinValue 60/);
    expect(outcomeOf({ AlarmTopicArn: SQS_ARN })).toMatch(/AllowedPattern/);
  });

  it('do not count silence as unhealthy when a fixed DesiredCount of 0 runs no poller', () => {
    const fixedNone = evaluatorWithService({ EnableAutoScaling: 'false', DesiredCount: '0' });
    expect(alarm(fixedNone, 'UnhealthyAlarm').TreatMissingData).toBe('notBreaching');
    const fixedOne = evaluatorWithService({ EnableAutoScaling: 'false', DesiredCount: '1' });
    expect(alarm(fixedOne, 'UnhealthyAlarm').TreatMissingData).toBe('breaching');
    // With scaling, MinCount is at least 1 (MinValue 1): a poller always runs.
    expect(z.object({ MinValue: z.number() }).parse(template.Parameters.MinCount).MinValue).toBe(1);
  });

  it('turn off with EnableAlarms / EnableDashboard false, each on its own', () => {
    expect(conditionOf('Dashboard')).toBe('CreateDashboard');
    const off = evaluatorWithService({ EnableAlarms: 'false', EnableDashboard: 'false' });
    expect(off.condition('CreateAlarms')).toBe(false);
    expect(off.condition('CreateDashboard')).toBe(false);
    const onlyDashboard = evaluatorWithService({ EnableAlarms: 'false' });
    expect(onlyDashboard.condition('CreateDashboard')).toBe(true);
    expect(onlyDashboard.condition('HasAlarmTopic')).toBe(false);
    expect(
      evaluatorWithService({ EnableAlarms: 'false', AlarmTopicArn: SNS_ARN }).condition('HasAlarmTopic'),
    ).toBe(false);
  });

  it.each([
    ['the defaults', {}, { targetLagPerTask: 1000, messageAgeSeconds: new Map([['orders-fn', 1020]]) }],
    [
      'other target and threshold',
      { TargetLagPerTask: '250', MessageAgeThresholdSeconds: '600' },
      { targetLagPerTask: 250, messageAgeSeconds: new Map([['orders-fn', 600]]) },
    ],
    [
      'no scaling and no alarms',
      { EnableAutoScaling: 'false', EnableAlarms: 'false' },
      { targetLagPerTask: undefined, messageAgeSeconds: undefined },
    ],
    [
      'an existing cluster',
      { ExistingCluster: 'shared' },
      { targetLagPerTask: 1000, messageAgeSeconds: new Map([['orders-fn', 1020]]) },
    ],
  ])("has the plugin's dashboard body, valid JSON, with %s", (_case, parameters, drawn) => {
    const evaluator = evaluatorWithService(parameters);
    const text = evaluator.evaluateAt('Resources', 'Dashboard', 'Properties', 'DashboardBody');
    if (typeof text !== 'string') throw new Error('the dashboard body is not a string');
    const cluster = 'ExistingCluster' in parameters ? 'shared' : 'Cluster';
    // The plugin's Fn::Sub, as plain JSON data the evaluator reads.
    const pluginSub = JSON.parse(
      JSON.stringify(
        dashboardBody({
          consumerGroups: ['orders-fn'],
          clusterName: cluster,
          serviceLogicalId: 'Service',
          ...drawn,
        }),
      ),
    ) as CfnValue;
    const plugin = evaluator.evaluate(pluginSub);
    if (typeof plugin !== 'string') throw new Error("the plugin's body is not a string");
    const parsed = JSON.parse(text) as unknown;
    expect(parsed).toEqual(JSON.parse(plugin));
    expect(text).toContain(`"ConsumerGroup","orders-fn"`);
    expect(text).toContain(`"ClusterName","${cluster}","ServiceName","${SERVICE_NAME}"`);
    expect(text).toContain(`"region":"${REGION}"`);
    expect(evaluator.evaluateAt('Resources', 'Dashboard', 'Properties', 'DashboardName')).toBe(
      `${TEST_PSEUDO_PARAMETERS['AWS::StackName']}-rocketmq-poller`,
    );
  });
});
