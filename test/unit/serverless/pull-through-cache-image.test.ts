/**
 * `image.pullThroughCache`: the published image through an ECR pull-through cache of the account, for
 * tasks in private subnets without NAT. The schema's defaults and refusals (each naming the inner key),
 * and what the compiler adds: the rule, the task definition's dependency on it, the image in the
 * account's registry, and execution role rights on exactly the cached repository.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type CfnResource,
  compileRocketMQResources,
  RocketMQLogicalIds as Ids,
} from '../../../src/serverless/index.js';
import {
  PULL_THROUGH_CACHE_DEFAULTS,
  pullThroughCacheSettings,
} from '../../../src/serverless/pull-through-cache-schema.js';
import { rocketmqCustomSchema } from '../../../src/serverless/rocketmq-custom-schema.js';
import { validateWith } from '../../../src/serverless/schema-problems.js';
import { fixtureInput } from './fixture-input.js';

const VERSION = (
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../package.json'), 'utf8')) as {
    version: string;
  }
).version;

const CREDENTIAL_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ecr-pullthroughcache/ghcr-AbCdEf';

const BASE = {
  nameServers: '10.0.0.10:9876',
  vpc: { subnetIds: ['subnet-0f3e2d1c4b5a69788'] },
};

function problemsOf(image: unknown): string[] {
  const checked = validateWith(rocketmqCustomSchema, { ...BASE, image }, ['custom', 'rocketmq']);
  return checked.ok ? [] : checked.problems;
}

function compiled(image: unknown): Readonly<Record<string, CfnResource>> {
  return compileRocketMQResources({
    custom: { ...BASE, image },
    stage: 'test',
    functions: [
      {
        key: 'orders',
        logicalId: 'OrdersLambdaFunction',
        events: [{ rocketmq: { topic: 'Orders', consumerGroup: 'orders-fn' } }],
        timeoutSeconds: 30,
      },
    ],
  }).resources;
}

function containerImage(resources: Readonly<Record<string, CfnResource>>): unknown {
  const definitions = (resources[Ids.taskDefinition]?.Properties.ContainerDefinitions ?? []) as {
    Image: unknown;
  }[];
  return definitions[0]?.Image;
}

function executionStatements(resources: Readonly<Record<string, CfnResource>>): Record<string, unknown>[] {
  const policies = resources[Ids.executionRole]?.Properties.Policies as {
    PolicyDocument: { Statement: Record<string, unknown>[] };
  }[];
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}

/** `Fn::Sub` text: CloudFormation's `${...}` variables, escaped from the template literal. */
const ARN_PREFIX = `arn:\${AWS::Partition}:ecr:\${AWS::Region}:\${AWS::AccountId}:repository`;
const REGISTRY = `\${AWS::AccountId}.dkr.ecr.\${AWS::Region}.\${AWS::URLSuffix}`;

describe('image.pullThroughCache: the schema', () => {
  it('takes true for every default: ECR Public (where the release publishes the same image, no credentials), prefix rocketmq-lambda, a rule of the stack', () => {
    expect(problemsOf({ pullThroughCache: true })).toEqual([]);
    expect(PULL_THROUGH_CACHE_DEFAULTS).toEqual({
      upstream: 'ecrPublic',
      prefix: 'rocketmq-lambda',
      createRule: true,
    });
    expect(pullThroughCacheSettings(true)).toEqual({
      upstream: 'ecrPublic',
      prefix: 'rocketmq-lambda',
      createRule: true,
      credentialArn: undefined,
    });
    expect(pullThroughCacheSettings({ prefix: 'ab' })).toMatchObject({ upstream: 'ecrPublic', prefix: 'ab' });
  });

  it('accepts GHCR with its credential, an existing rule without one, and prefixes at the bounds', () => {
    expect(problemsOf({ pullThroughCache: { upstream: 'ghcr', credentialArn: CREDENTIAL_ARN } })).toEqual([]);
    expect(problemsOf({ pullThroughCache: { upstream: 'ghcr', createRule: false } })).toEqual([]);
    expect(problemsOf({ pullThroughCache: { credentialArn: undefined, createRule: false } })).toEqual([]);
    expect(problemsOf({ pullThroughCache: { prefix: 'ab' } })).toEqual([]);
    expect(problemsOf({ pullThroughCache: { prefix: `team/${'a'.repeat(25)}` } })).toEqual([]);
    expect(problemsOf({ pullThroughCache: { prefix: 'my.cache_1-x' } })).toEqual([]);
    expect(
      problemsOf({ pullThroughCache: { upstream: 'ghcr', credentialArn: { Ref: 'GhcrCredential' } } }),
    ).toEqual([]);
  });

  it('refuses a credential where ECR would not use it, and GHCR without one, naming credentialArn', () => {
    const at = 'custom.rocketmq.image.pullThroughCache.credentialArn';
    expect(problemsOf({ pullThroughCache: { upstream: 'ghcr' } })).toEqual([
      `${at}: required with upstream ghcr: ECR signs in to the GitHub Container Registry with a Secrets Manager secret whose name starts with ecr-pullthroughcache/ (or use upstream ecrPublic, which needs none)`,
    ]);
    expect(problemsOf({ pullThroughCache: { credentialArn: CREDENTIAL_ARN } })).toEqual([
      `${at}: only used with upstream ghcr: ECR pulls from Amazon ECR Public without credentials`,
    ]);
    expect(
      problemsOf({
        pullThroughCache: { upstream: 'ghcr', createRule: false, credentialArn: CREDENTIAL_ARN },
      }),
    ).toEqual([
      `${at}: only used when the stack creates the rule (createRule: true); an existing rule keeps its own credentials`,
    ]);
    const notForEcr = `${at}: must be the ARN of a Secrets Manager secret whose name starts with ecr-pullthroughcache/ (arn:aws:secretsmanager:<region>:<account>:secret:ecr-pullthroughcache/<name>, 50–612 characters), as ECR requires of a pull-through cache credential`;
    expect(
      problemsOf({
        pullThroughCache: {
          upstream: 'ghcr',
          credentialArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rocketmq/ghcr-AbCdEf',
        },
      }),
    ).toEqual([notForEcr]);
    expect(
      problemsOf({
        pullThroughCache: { upstream: 'ghcr', credentialArn: `${CREDENTIAL_ARN}${'x'.repeat(600)}` },
      }),
    ).toEqual([`${at}: must be at most 612 characters long`]);
  });

  it('refuses a prefix ECR would refuse, naming prefix', () => {
    const at = 'custom.rocketmq.image.pullThroughCache.prefix';
    const characters = `${at}: must be lowercase letters and digits, parts joined by one of . _ - and path segments by /, starting and ending with a letter or digit (ECR repository prefix)`;
    expect(problemsOf({ pullThroughCache: { prefix: 'a' } })).toEqual([
      `${at}: must be at least 2 characters long`,
    ]);
    expect(problemsOf({ pullThroughCache: { prefix: 'a'.repeat(31) } })).toEqual([
      `${at}: must be at most 30 characters long`,
    ]);
    expect(problemsOf({ pullThroughCache: { prefix: 'RocketMQ' } })).toEqual([characters]);
    expect(problemsOf({ pullThroughCache: { prefix: 'cache/' } })).toEqual([characters]);
    expect(problemsOf({ pullThroughCache: { prefix: 'a--b' } })).toEqual([characters]);
  });

  it('names the inner key that is wrong, not the whole image union', () => {
    expect(problemsOf({ pullThroughCache: { upstream: 'dockerHub' } })).toEqual([
      'custom.rocketmq.image.pullThroughCache.upstream: must be one of ecrPublic, ghcr, got "dockerHub"',
    ]);
    expect(problemsOf({ pullThroughCache: { prefx: 'cache' } })).toEqual([
      'custom.rocketmq.image.pullThroughCache.prefx: unknown key (did you mean prefix?)',
    ]);
    expect(problemsOf({ pullThroughCache: { createRule: 'yes' } })).toEqual([
      'custom.rocketmq.image.pullThroughCache.createRule: must be true or false, got "yes"',
    ]);
    expect(problemsOf({ pullThroughCache: false })).toEqual([
      'custom.rocketmq.image.pullThroughCache: must be true or { upstream, prefix, createRule, credentialArn }, got false',
    ]);
    // Both forms at once is neither form.
    expect(problemsOf({ pullThroughCache: true, build: true })).toEqual([
      'custom.rocketmq.image: must be an image URI, an intrinsic function, { build: true } / { build: { context, dockerfile, args } }, or { pullThroughCache: true } / { pullThroughCache: { upstream, prefix, createRule, credentialArn } }, got an object',
    ]);
  });
});

describe('image.pullThroughCache: the compiled resources', () => {
  it('by default: an ECR Public rule, the task definition after it, the image in the account registry at this version', () => {
    const resources = compiled({ pullThroughCache: true });
    expect(resources[Ids.pullThroughCacheRule]).toEqual({
      Type: 'AWS::ECR::PullThroughCacheRule',
      Properties: {
        EcrRepositoryPrefix: 'rocketmq-lambda',
        UpstreamRegistry: 'ecr-public',
        UpstreamRegistryUrl: 'public.ecr.aws',
      },
    });
    expect(resources[Ids.taskDefinition]?.DependsOn).toEqual([Ids.pullThroughCacheRule]);
    expect(containerImage(resources)).toEqual({
      'Fn::Sub': `${REGISTRY}/rocketmq-lambda/rocketmq-lambda/rocketmq-lambda:${VERSION}`,
    });
    expect(resources[Ids.imageRepository]).toBeUndefined();
  });

  it('gives the execution role pull and import rights on the cached repository only', () => {
    const repository = { 'Fn::Sub': `${ARN_PREFIX}/rocketmq-lambda/rocketmq-lambda/rocketmq-lambda` };
    const statements = executionStatements(compiled({ pullThroughCache: true }));
    expect(statements.filter((s) => String(s.Sid) !== 'WriteLogs')).toEqual([
      { Sid: 'EcrLogin', Effect: 'Allow', Action: 'ecr:GetAuthorizationToken', Resource: '*' },
      {
        Sid: 'PullImage',
        Effect: 'Allow',
        Action: ['ecr:BatchCheckLayerAvailability', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchGetImage'],
        Resource: repository,
      },
      {
        Sid: 'PullThroughCache',
        Effect: 'Allow',
        Action: ['ecr:BatchImportUpstreamImage', 'ecr:CreateRepository'],
        Resource: repository,
      },
    ]);
  });

  it('GHCR with a prefix: the rule carries the credential; the image and rights follow the prefix', () => {
    const resources = compiled({
      pullThroughCache: { upstream: 'ghcr', prefix: 'team/cache', credentialArn: CREDENTIAL_ARN },
    });
    expect(resources[Ids.pullThroughCacheRule]?.Properties).toEqual({
      EcrRepositoryPrefix: 'team/cache',
      UpstreamRegistry: 'github-container-registry',
      UpstreamRegistryUrl: 'ghcr.io',
      CredentialArn: CREDENTIAL_ARN,
    });
    expect(containerImage(resources)).toEqual({
      'Fn::Sub': `${REGISTRY}/team/cache/rocketmq-lambda/rocketmq-lambda:${VERSION}`,
    });
    const cached = executionStatements(resources).find((s) => s.Sid === 'PullThroughCache');
    expect(cached?.Resource).toEqual({
      'Fn::Sub': `${ARN_PREFIX}/team/cache/rocketmq-lambda/rocketmq-lambda`,
    });
  });

  it('with createRule: false, no rule and no dependency, the same image and rights', () => {
    const resources = compiled({ pullThroughCache: { prefix: 'shared-cache', createRule: false } });
    expect(resources[Ids.pullThroughCacheRule]).toBeUndefined();
    expect(resources[Ids.taskDefinition]?.DependsOn).toBeUndefined();
    expect(containerImage(resources)).toEqual({
      'Fn::Sub': `${REGISTRY}/shared-cache/rocketmq-lambda/rocketmq-lambda:${VERSION}`,
    });
    expect(executionStatements(resources).map((s) => s.Sid)).toEqual([
      'WriteLogs',
      'EcrLogin',
      'PullImage',
      'PullThroughCache',
    ]);
  });

  it('other images get no pull-through cache rights or rule', () => {
    const resources = compiled('111122223333.dkr.ecr.eu-west-1.amazonaws.com/rocketmq-lambda:0.1.0');
    expect(resources[Ids.pullThroughCacheRule]).toBeUndefined();
    expect(executionStatements(resources).map((s) => s.Sid)).toEqual(['WriteLogs', 'EcrLogin', 'PullImage']);
  });

  it('the fixture service compiles as it packages', () => {
    const { resources } = compileRocketMQResources(fixtureInput('pull-through-cache'));
    expect(resources[Ids.pullThroughCacheRule]?.Properties).toMatchObject({
      EcrRepositoryPrefix: 'rmq-cache',
      UpstreamRegistry: 'github-container-registry',
    });
  });
});
