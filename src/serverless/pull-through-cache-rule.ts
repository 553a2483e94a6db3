/**
 * The template side of `image.pullThroughCache`: the ECR pull-through cache rule (unless an existing
 * rule is used), the image the tasks run from the account's registry, and the cached repository the
 * execution role may pull from and have ECR import into.
 *
 * The first pull of a tag through the rule makes ECR create the repository `<prefix>/<upstream path>`
 * and fetch the image from the upstream registry itself; later pulls are served from the cache (ECR
 * checks the upstream for a newer image of the tag at most once in 24 hours). The tasks only talk to
 * ECR and S3, which VPC endpoints reach.
 */
import type { CfnIntrinsic, CfnResource } from './cfn-intrinsic.js';
import {
  PULL_THROUGH_CACHE_UPSTREAMS,
  type PullThroughCacheOptions,
  pullThroughCacheSettings,
} from './pull-through-cache-schema.js';

/**
 * What `image.pullThroughCache` adds to the template.
 */
export interface PullThroughCachePlan {
  /** The container's `Image`: the cached repository in the account's registry, tagged `version`. */
  readonly image: CfnIntrinsic;
  /** The cached repository's ARN: the execution role pulls from it and has ECR create and fill it. */
  readonly repositoryArn: CfnIntrinsic;
  /** The rule, when the stack creates it (`createRule`); the task definition depends on it. */
  readonly rule: CfnResource | undefined;
}

/**
 * The plan of `image.pullThroughCache` for the published image of `version`: with every default, the
 * image is `${AWS::AccountId}.dkr.ecr.${AWS::Region}.${AWS::URLSuffix}/rocketmq-lambda/rocketmq-lambda/rocketmq-lambda:<version>`.
 */
export function pullThroughCachePlan(
  options: PullThroughCacheOptions,
  version: string,
): PullThroughCachePlan {
  const settings = pullThroughCacheSettings(options);
  const upstream = PULL_THROUGH_CACHE_UPSTREAMS[settings.upstream];
  const repository = `${settings.prefix}/${upstream.repositoryPath}`;
  const rule: CfnResource | undefined = settings.createRule
    ? {
        Type: 'AWS::ECR::PullThroughCacheRule',
        Properties: {
          EcrRepositoryPrefix: settings.prefix,
          UpstreamRegistry: upstream.upstreamRegistry,
          UpstreamRegistryUrl: upstream.upstreamRegistryUrl,
          ...(settings.credentialArn === undefined ? {} : { CredentialArn: settings.credentialArn }),
        },
      }
    : undefined;
  return {
    image: {
      'Fn::Sub': `\${AWS::AccountId}.dkr.ecr.\${AWS::Region}.\${AWS::URLSuffix}/${repository}:${version}`,
    },
    repositoryArn: {
      'Fn::Sub': `arn:\${AWS::Partition}:ecr:\${AWS::Region}:\${AWS::AccountId}:repository/${repository}`,
    },
    rule,
  };
}
