/**
 * Which image the poller tasks run, as the template names it:
 * - left out: the published image of the installed package's version;
 * - an image URI or intrinsic: that image;
 * - `{ build: ... }`: an image built and pushed at deploy time into an ECR repository of the stack. The
 *   template names it by the package's version as a tag; the deploy hook replaces that with the pushed
 *   digest, so a rebuilt image rolls the tasks;
 * - `{ pullThroughCache: ... }`: the published image of the package's version through an ECR
 *   pull-through cache of the account (pull-through-cache-rule.ts).
 */
import { type CfnIntrinsic, type CfnResource, type CfnString, isCfnIntrinsic } from './cfn-intrinsic.js';
import { RocketMQLogicalIds as Ids } from './logical-ids.js';
import { packageVersion, publishedImage } from './published-image.js';
import { pullThroughCachePlan } from './pull-through-cache-rule.js';
import type { RocketMQCustomOptions, RocketMQImageBuildOptions } from './rocketmq-custom-schema.js';

/** Images the repository keeps: older ones expire (a rollback needs only the previous few). */
const KEPT_IMAGES = 10;

/** `<account>.dkr.ecr.<region>.amazonaws.com[.cn]/<repository>[:tag|@digest]` */
const ECR_IMAGE =
  /^(\d{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?\/([a-z0-9._/-]+?)(:[\w.-]+|@sha256:[a-f0-9]{64})?$/;

/**
 * The image of the poller tasks and what comes with it.
 */
export interface PollerImagePlan {
  /** The container's `Image`. */
  readonly image: CfnString;
  /** The ECR repository the execution role pulls from (`*` when the image is an intrinsic); none outside ECR. */
  readonly ecrRepositoryArn: CfnString | undefined;
  /** The stack's own repository, when the image is built. */
  readonly repository: CfnResource | undefined;
  /** The build settings, when the image is built (and not bootstrapped, see {@link pollerImagePlan}). */
  readonly build: RocketMQImageBuildOptions | undefined;
  /**
   * The pull-through cache rule the stack creates, if any (the task definition must depend on it), and
   * whether the image comes through one (the execution role may then have ECR import the image).
   */
  readonly pullThroughCache: { readonly rule: CfnResource | undefined } | undefined;
}

/**
 * The plan for `custom.rocketmq.image`. `bootstrapImage` (deploy's `--param rocketmq-bootstrap-image=<uri>`)
 * runs that image for one deploy while the stack gains the repository of a built image: a stack created
 * before `image.build` was set has no repository to push to yet.
 */
export function pollerImagePlan(
  image: RocketMQCustomOptions['image'],
  bootstrapImage?: string | undefined,
): PollerImagePlan {
  if (image === undefined) return uriPlan(publishedImage());
  if (typeof image === 'string' || isCfnIntrinsic(image)) return uriPlan(image);
  if ('pullThroughCache' in image) {
    const cached = pullThroughCachePlan(image.pullThroughCache, packageVersion());
    return {
      image: cached.image,
      ecrRepositoryArn: cached.repositoryArn,
      repository: undefined,
      build: undefined,
      pullThroughCache: { rule: cached.rule },
    };
  }
  const repository = imageRepository();
  if (bootstrapImage !== undefined) return { ...uriPlan(bootstrapImage), repository, build: undefined };
  return {
    image: builtImageReference(packageVersion()),
    ecrRepositoryArn: { 'Fn::GetAtt': [Ids.imageRepository, 'Arn'] },
    repository,
    build: image.build,
    pullThroughCache: undefined,
  };
}

/**
 * The `Image` of a built image: by tag (as packaged) or by digest (`sha256:...`, once pushed).
 */
export function builtImageReference(tagOrDigest: string): CfnIntrinsic {
  const separator = tagOrDigest.startsWith('sha256:') ? '@' : ':';
  return { 'Fn::Sub': `\${${Ids.imageRepository}.RepositoryUri}${separator}${tagOrDigest}` };
}

/**
 * The ARN of the ECR repository an image URI names, if it is an ECR (private) image.
 */
export function ecrRepositoryArnOf(image: CfnString): CfnString | undefined {
  // An intrinsic image may be any repository: pull rights on all of the account's.
  if (isCfnIntrinsic(image)) return '*';
  const match = ECR_IMAGE.exec(image);
  if (match === null) return undefined;
  const [, account, region, china, repository] = match;
  const partition = china === undefined ? 'aws' : 'aws-cn';
  return `arn:${partition}:ecr:${region}:${account}:repository/${repository}`;
}

function uriPlan(image: CfnString): PollerImagePlan {
  return {
    image,
    ecrRepositoryArn: ecrRepositoryArnOf(image),
    repository: undefined,
    build: undefined,
    pullThroughCache: undefined,
  };
}

function imageRepository(): CfnResource {
  const lifecyclePolicy = {
    rules: [
      {
        rulePriority: 1,
        description: `Keep the ${KEPT_IMAGES} newest poller images`,
        selection: { tagStatus: 'any', countType: 'imageCountMoreThan', countNumber: KEPT_IMAGES },
        action: { type: 'expire' },
      },
    ],
  };
  return {
    Type: 'AWS::ECR::Repository',
    // Its images are the stack's own builds: `serverless remove` deletes them with the repository.
    DeletionPolicy: 'Delete',
    UpdateReplacePolicy: 'Delete',
    Properties: {
      EmptyOnDelete: true,
      ImageScanningConfiguration: { ScanOnPush: true },
      LifecyclePolicy: { LifecyclePolicyText: JSON.stringify(lifecyclePolicy) },
    },
  };
}

/**
 * Whether `template` runs a built image not pushed yet (the tag form {@link builtImageReference} gives at
 * package time), which the deploy must build and push before the stack update.
 */
export function awaitsBuiltImage(template: {
  readonly Resources: Readonly<Record<string, unknown>>;
}): boolean {
  const definition = template.Resources[Ids.taskDefinition] as
    | { Properties?: { ContainerDefinitions?: readonly { Image?: unknown }[] } }
    | undefined;
  const image = definition?.Properties?.ContainerDefinitions?.[0]?.Image;
  if (typeof image !== 'object' || image === null || !('Fn::Sub' in image)) return false;
  const text = image['Fn::Sub'];
  return typeof text === 'string' && text.startsWith(`\${${Ids.imageRepository}.RepositoryUri}:`);
}
