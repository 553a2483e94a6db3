/**
 * The deploy step of `image.build`, run after the Framework created (or found) the stack and before it
 * uploads and applies the template: build the image, push it to the stack's ECR repository, and point
 * the task definition at the pushed digest. The repository is in the Framework's core template, so a new
 * stack has it from its creation; a stack created before `image.build` was set gets it from one deploy
 * with `--param rocketmq-bootstrap-image=<uri>` (see {@link BOOTSTRAP_IMAGE_PARAM}).
 */
import path from 'node:path';
import { describeError } from '../util/describe-error.js';
import {
  buildAndPushImage,
  type CommandRunner,
  ImageBuildError,
  type ImageBuildSpec,
} from './docker-image-build.js';
import { RocketMQLogicalIds as Ids } from './logical-ids.js';
import { builtImageReference } from './poller-image.js';
import { packageRoot, packageVersion } from './published-image.js';
import type { RocketMQImageBuildOptions } from './rocketmq-custom-schema.js';

/**
 * The deploy parameter of the bootstrap deploy.
 *
 * @example
 * ```ts
 * `serverless deploy --param="${BOOTSTRAP_IMAGE_PARAM}=ghcr.io/rocketmq-lambda/rocketmq-lambda:0.1.0"`;
 * ```
 */
export const BOOTSTRAP_IMAGE_PARAM = 'rocketmq-bootstrap-image';

/**
 * The poller's Dockerfile in the package (relative to the package directory, which is the build context):
 * the default of `image: { build: true }`, and what the release builds the published image with.
 */
export const PACKAGE_DOCKERFILE = 'infra/docker/Dockerfile';

/**
 * The build argument that tells the package's Dockerfile which version it builds (`build: true` passes
 * the installed package's version; a Dockerfile that does not declare it ignores it).
 */
export const PACKAGE_VERSION_BUILD_ARG = 'ROCKETMQ_LAMBDA_VERSION';

/**
 * The part of the Framework's AWS provider the deploy step uses (osls and Serverless v3 have them).
 */
export interface ImageDeployProvider {
  getRegion(): string;
  getAccountId(): Promise<string>;
  getStackResources(): Promise<readonly { LogicalResourceId?: string; PhysicalResourceId?: string }[]>;
  /** `docker login` to the account's ECR registry with a token from ECR (the Framework's own login). */
  dockerLoginToEcr(): Promise<void>;
}

/**
 * What the deploy step needs.
 */
export interface ImageDeployInput {
  readonly build: RocketMQImageBuildOptions;
  readonly serviceDir: string;
  readonly cpuArchitecture: 'X86_64' | 'ARM64';
  readonly stackName: string;
  /** The compiled template about to be deployed; its task definition gets the pushed digest. */
  readonly template: { readonly Resources: Record<string, unknown> };
  readonly provider: ImageDeployProvider;
  readonly run: CommandRunner;
}

/**
 * Builds and pushes the image, and sets the task definition's image to `<repository>@<digest>`.
 * Returns the pushed image.
 */
export async function deployBuiltImage(input: ImageDeployInput): Promise<{ image: string; digest: string }> {
  const bootstrap = `Deploy once with --param="${BOOTSTRAP_IMAGE_PARAM}=<the image the poller runs now, or the published one>" to add the repository, then deploy again.`;
  let resources: Awaited<ReturnType<ImageDeployProvider['getStackResources']>>;
  try {
    resources = await input.provider.getStackResources();
  } catch (error) {
    // With provider.deploymentBucket the Framework creates a new stack only at the update, after the push.
    const why = describeError(error);
    throw new ImageBuildError(
      `custom.rocketmq.image.build: cannot list the resources of stack ${input.stackName} (${why}), so there is no repository to push to yet. ${bootstrap}`,
      { cause: error },
    );
  }
  const repositoryName = resources.find(
    (resource) => resource.LogicalResourceId === Ids.imageRepository,
  )?.PhysicalResourceId;
  if (repositoryName === undefined) {
    throw new ImageBuildError(
      `custom.rocketmq.image.build: stack ${input.stackName} has no ${Ids.imageRepository} yet (it was created before image.build was set), and the image must be pushed there before the stack update that starts tasks from it. ${bootstrap}`,
    );
  }
  const region = input.provider.getRegion();
  const account = await input.provider.getAccountId();
  const domain = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  const repositoryUri = `${account}.dkr.ecr.${region}.${domain}/${repositoryName}`;
  await input.provider.dockerLoginToEcr();
  const spec = imageBuildSpec(input.build, input.serviceDir, input.cpuArchitecture, repositoryUri);
  const digest = await buildAndPushImage(spec, input.run);
  setPollerImage(input.template, builtImageReference(digest));
  return { image: `${repositoryUri}@${digest}`, digest };
}

/**
 * The build of `image.build` for the tasks' architecture, tagged with the package's version.
 */
export function imageBuildSpec(
  build: RocketMQImageBuildOptions,
  serviceDir: string,
  cpuArchitecture: 'X86_64' | 'ARM64',
  repositoryUri: string,
): ImageBuildSpec {
  const settings = build === true ? {} : build;
  const ownPackage = settings.context === undefined;
  const contextDir = ownPackage ? packageRoot() : path.resolve(serviceDir, settings.context ?? '.');
  const dockerfile =
    settings.dockerfile !== undefined
      ? path.resolve(serviceDir, settings.dockerfile)
      : path.join(contextDir, ownPackage ? PACKAGE_DOCKERFILE : 'Dockerfile');
  const versionArg: Record<string, string> = ownPackage
    ? { [PACKAGE_VERSION_BUILD_ARG]: packageVersion() }
    : {};
  return {
    contextDir,
    dockerfile,
    platform: cpuArchitecture === 'ARM64' ? 'linux/arm64' : 'linux/amd64',
    buildArgs: { ...versionArg, ...settings.args },
    tag: `${repositoryUri}:${packageVersion()}`,
  };
}

/**
 * Points the poller container of `template` at `image`.
 */
export function setPollerImage(
  template: { readonly Resources: Record<string, unknown> },
  image: unknown,
): void {
  const definition = template.Resources[Ids.taskDefinition] as
    | { Properties?: { ContainerDefinitions?: { Image?: unknown }[] } }
    | undefined;
  const container = definition?.Properties?.ContainerDefinitions?.[0];
  if (container === undefined) {
    throw new ImageBuildError(`the template has no ${Ids.taskDefinition} container to give the built image`);
  }
  container.Image = image;
}
