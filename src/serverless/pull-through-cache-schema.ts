/**
 * `custom.rocketmq.image.pullThroughCache`: run the published image through an Amazon ECR pull-through
 * cache of the account, so that tasks in private subnets pull it from ECR (over the ECR and S3 VPC
 * endpoints) and never reach a registry on the internet themselves: ECR fetches the image from the
 * upstream registry on the first pull of a tag.
 *
 * ```yaml
 * custom:
 *   rocketmq:
 *     image:
 *       pullThroughCache: true          # ECR Public upstream, prefix rocketmq-lambda, a rule of the stack
 * ```
 */
import { z } from 'zod';
import { info } from '../config/schema-meta.js';
import { cfnIntrinsicSchema } from './cfn-intrinsic.js';
import { PUBLISHED_IMAGE_REPOSITORIES } from './published-image.js';

/**
 * The upstream registries the published image lives on, as a pull-through cache rule names them.
 * `repositoryPath` is the image's repository without its registry host: the cached repository is
 * `<prefix>/<repositoryPath>`.
 */
export const PULL_THROUGH_CACHE_UPSTREAMS = {
  ecrPublic: {
    upstreamRegistry: 'ecr-public',
    upstreamRegistryUrl: 'public.ecr.aws',
    repositoryPath: repositoryPathOf(PUBLISHED_IMAGE_REPOSITORIES.ecrPublic),
    words: 'Amazon ECR Public',
  },
  ghcr: {
    upstreamRegistry: 'github-container-registry',
    upstreamRegistryUrl: 'ghcr.io',
    repositoryPath: repositoryPathOf(PUBLISHED_IMAGE_REPOSITORIES.ghcr),
    words: 'GitHub Container Registry',
  },
} as const;

/** An upstream registry of {@link PULL_THROUGH_CACHE_UPSTREAMS}. */
export type PullThroughCacheUpstream = keyof typeof PULL_THROUGH_CACHE_UPSTREAMS;

/**
 * Defaults of `image.pullThroughCache`. ECR Public is the default upstream: the release publishes the
 * same image there, and ECR pulls from it without credentials (GHCR needs a Secrets Manager secret).
 */
export const PULL_THROUGH_CACHE_DEFAULTS = {
  upstream: 'ecrPublic',
  prefix: 'rocketmq-lambda',
  createRule: true,
} as const satisfies { upstream: PullThroughCacheUpstream; prefix: string; createRule: boolean };

/** The name prefix ECR requires of a pull-through cache rule's credential secret. */
export const CREDENTIAL_SECRET_PREFIX = 'ecr-pullthroughcache/';

/** ECR's limits of a rule's repository prefix (`EcrRepositoryPrefix`): 2–30 characters, this pattern. */
const PREFIX_PATTERN = /^(?:[a-z0-9]+(?:[._-][a-z0-9]+)*\/)*[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
const PREFIX_MIN_CHARS = 2;
const PREFIX_MAX_CHARS = 30;

/** ECR's limits of a rule's `CredentialArn`: 50–612 characters, a secret named `ecr-pullthroughcache/...`. */
const CREDENTIAL_ARN_PATTERN =
  /^arn:aws:secretsmanager:[a-zA-Z0-9-:]+:secret:ecr-pullthroughcache\/[a-zA-Z0-9/_+=.@-]+$/;
const CREDENTIAL_ARN_MIN_CHARS = 50;
const CREDENTIAL_ARN_MAX_CHARS = 612;

const CREDENTIAL_ARN_WORDS = `must be the ARN of a Secrets Manager secret whose name starts with ${CREDENTIAL_SECRET_PREFIX} (arn:aws:secretsmanager:<region>:<account>:secret:${CREDENTIAL_SECRET_PREFIX}<name>, ${CREDENTIAL_ARN_MIN_CHARS}–${CREDENTIAL_ARN_MAX_CHARS} characters), as ECR requires of a pull-through cache credential`;

const pullThroughCacheSettingsSchema = z
  .strictObject({
    upstream: z
      .enum(['ecrPublic', 'ghcr'], { error: 'must be ecrPublic or ghcr' })
      .optional()
      .meta(
        info({
          description:
            'The registry ECR fetches the published image from: `ecrPublic` (`public.ecr.aws`, no credentials) or `ghcr` (`ghcr.io`, needs `credentialArn`).',
          default: PULL_THROUGH_CACHE_DEFAULTS.upstream,
        }),
      ),
    prefix: z
      .string()
      .min(PREFIX_MIN_CHARS, { error: `must be at least ${PREFIX_MIN_CHARS} characters long` })
      .max(PREFIX_MAX_CHARS, { error: `must be at most ${PREFIX_MAX_CHARS} characters long` })
      .regex(PREFIX_PATTERN, {
        error:
          'must be lowercase letters and digits, parts joined by one of . _ - and path segments by /, starting and ending with a letter or digit (ECR repository prefix)',
      })
      .optional()
      .meta(
        info({
          description: `The ECR repository prefix of the rule (${PREFIX_MIN_CHARS}–${PREFIX_MAX_CHARS} characters, ECR repository name characters): the tasks pull \`<prefix>/<upstream repository>\` from the account's registry. With \`createRule: false\`, the prefix of your existing rule.`,
          default: PULL_THROUGH_CACHE_DEFAULTS.prefix,
        }),
      ),
    createRule: z
      .boolean()
      .optional()
      .meta(
        info({
          description:
            'Create the pull-through cache rule in the stack (`AWS::ECR::PullThroughCacheRule`). `false`: a rule with this prefix and upstream exists in the account and region already (a prefix has one rule there).',
          default: PULL_THROUGH_CACHE_DEFAULTS.createRule,
        }),
      ),
    credentialArn: z
      .union(
        [
          z
            .string()
            .min(CREDENTIAL_ARN_MIN_CHARS, { error: CREDENTIAL_ARN_WORDS })
            .max(CREDENTIAL_ARN_MAX_CHARS, { error: CREDENTIAL_ARN_WORDS })
            .regex(CREDENTIAL_ARN_PATTERN, { error: CREDENTIAL_ARN_WORDS }),
          cfnIntrinsicSchema,
        ],
        { error: `${CREDENTIAL_ARN_WORDS}, or Ref / Fn::GetAtt / Fn::ImportValue / Fn::Sub / Fn::Join` },
      )
      .optional()
      .meta(
        info({
          description: `With \`upstream: ghcr\` and \`createRule\` (only): the Secrets Manager secret (its name starts with \`${CREDENTIAL_SECRET_PREFIX}\`) holding JSON \`{"username": ..., "accessToken": ...}\`, a GitHub token that can read packages.`,
          defaultText: 'none',
        }),
      ),
  })
  .superRefine((settings, context) => {
    const upstream = settings.upstream ?? PULL_THROUGH_CACHE_DEFAULTS.upstream;
    const createRule = settings.createRule ?? PULL_THROUGH_CACHE_DEFAULTS.createRule;
    const problem = credentialProblem(upstream, createRule, settings.credentialArn !== undefined);
    if (problem !== undefined)
      context.addIssue({ code: 'custom', path: ['credentialArn'], message: problem });
  });

function credentialProblem(
  upstream: PullThroughCacheUpstream,
  createRule: boolean,
  hasCredential: boolean,
): string | undefined {
  if (hasCredential && !createRule) {
    return 'only used when the stack creates the rule (createRule: true); an existing rule keeps its own credentials';
  }
  if (hasCredential && upstream === 'ecrPublic') {
    return 'only used with upstream ghcr: ECR pulls from Amazon ECR Public without credentials';
  }
  if (!hasCredential && createRule && upstream === 'ghcr') {
    return `required with upstream ghcr: ECR signs in to the GitHub Container Registry with a Secrets Manager secret whose name starts with ${CREDENTIAL_SECRET_PREFIX} (or use upstream ecrPublic, which needs none)`;
  }
  return undefined;
}

/**
 * The schema of `image.pullThroughCache`: `true` (every default), or the settings.
 */
export const pullThroughCacheSchema = z
  .union([z.literal(true), pullThroughCacheSettingsSchema], {
    error: 'must be true or { upstream, prefix, createRule, credentialArn }',
  })
  .meta(
    info({
      description:
        "Run the published image of the installed package's version through an ECR pull-through cache of your account: the tasks pull it from your private registry (ECR and S3 VPC endpoints, no NAT, no Docker), and ECR fetches it from the upstream registry on the first pull of each version. `true`: every default below.",
    }),
  );

/** `image.pullThroughCache` as the schema accepts it. */
export type PullThroughCacheOptions = z.output<typeof pullThroughCacheSchema>;

/** The settings of `image.pullThroughCache` with every default applied. */
export interface PullThroughCacheSettings {
  readonly upstream: PullThroughCacheUpstream;
  readonly prefix: string;
  readonly createRule: boolean;
  readonly credentialArn: z.output<typeof pullThroughCacheSettingsSchema>['credentialArn'];
}

/**
 * `image.pullThroughCache` with its defaults applied (`true`: every default).
 */
export function pullThroughCacheSettings(options: PullThroughCacheOptions): PullThroughCacheSettings {
  const settings = options === true ? {} : options;
  return {
    upstream: settings.upstream ?? PULL_THROUGH_CACHE_DEFAULTS.upstream,
    prefix: settings.prefix ?? PULL_THROUGH_CACHE_DEFAULTS.prefix,
    createRule: settings.createRule ?? PULL_THROUGH_CACHE_DEFAULTS.createRule,
    credentialArn: settings.credentialArn,
  };
}

function repositoryPathOf(repository: string): string {
  return repository.slice(repository.indexOf('/') + 1);
}
