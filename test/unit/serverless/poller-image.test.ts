/**
 * The poller image: the published image of the installed version by default; `image.build`
 * builds with the deployer's Docker into an ECR repository of the stack and runs the pushed digest.
 * Docker itself is faked here (no engine on the test machines); a missing `docker` is real.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildxArguments,
  type CommandResult,
  type CommandRunner,
  createCommandRunner,
  ensureDockerBuildx,
  ImageBuildError,
} from '../../../src/serverless/docker-image-build.js';
import {
  type CfnResource,
  compileRocketMQResources,
  RocketMQLogicalIds as Ids,
} from '../../../src/serverless/index.js';
import { awaitsBuiltImage } from '../../../src/serverless/poller-image.js';
import {
  BOOTSTRAP_IMAGE_PARAM,
  deployBuiltImage,
  type ImageDeployProvider,
  imageBuildSpec,
  PACKAGE_VERSION_BUILD_ARG,
} from '../../../src/serverless/poller-image-deploy.js';
import { PUBLISHED_IMAGE_REPOSITORIES, packageRoot } from '../../../src/serverless/published-image.js';
import { fixtureInput } from './fixture-input.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
const DIGEST = `sha256:${'ab'.repeat(32)}`;

async function repositoryVersion(): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

function containerImage(resources: Readonly<Record<string, CfnResource>>): unknown {
  const [container] = (resources[Ids.taskDefinition]?.Properties.ContainerDefinitions ?? []) as {
    Image: unknown;
  }[];
  return container?.Image;
}

function statementSids(
  resources: Readonly<Record<string, CfnResource>>,
): { Sid: string; Resource: unknown }[] {
  const policies = resources[Ids.executionRole]?.Properties.Policies as {
    PolicyDocument: { Statement: { Sid: string; Resource: unknown }[] };
  }[];
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}

describe('the default image', () => {
  it("is the published image at exactly this package's version, which needs no ECR pull rights", async () => {
    const version = await repositoryVersion();
    const { resources, coreResources, imageBuild } = compileRocketMQResources(fixtureInput('minimal'));
    expect(containerImage(resources)).toBe(`ghcr.io/rocketmq-lambda/rocketmq-lambda:${version}`);
    expect(containerImage(resources)).toBe(`${PUBLISHED_IMAGE_REPOSITORIES.ghcr}:${version}`);
    expect(PUBLISHED_IMAGE_REPOSITORIES.ecrPublic).toBe('public.ecr.aws/rocketmq-lambda/rocketmq-lambda');
    expect(statementSids(resources).map((s) => s.Sid)).toEqual(['WriteLogs']);
    expect(coreResources).toEqual({});
    expect(imageBuild).toBeUndefined();
    expect(packageRoot()).toBe(REPO_ROOT);
  });
});

describe('image.build at package time', () => {
  it('adds a repository to the template and to the core template, and names the image by tag until pushed', async () => {
    const version = await repositoryVersion();
    const { resources, coreResources, imageBuild } = compileRocketMQResources(fixtureInput('built-image'));
    const repository = resources[Ids.imageRepository];
    expect(repository).toMatchObject({
      Type: 'AWS::ECR::Repository',
      DeletionPolicy: 'Delete',
      Properties: { EmptyOnDelete: true, ImageScanningConfiguration: { ScanOnPush: true } },
    });
    expect(coreResources).toEqual({ [Ids.imageRepository]: repository });
    expect(containerImage(resources)).toEqual({
      'Fn::Sub': `\${${Ids.imageRepository}.RepositoryUri}:${version}`,
    });
    expect(statementSids(resources).find((s) => s.Sid === 'PullImage')?.Resource).toEqual({
      'Fn::GetAtt': [Ids.imageRepository, 'Arn'],
    });
    expect(imageBuild).toBe(true);
    expect(awaitsBuiltImage({ Resources: resources })).toBe(true);
    expect(resources[Ids.taskDefinition]?.Properties.RuntimePlatform).toEqual({
      OperatingSystemFamily: 'LINUX',
      CpuArchitecture: 'ARM64',
    });
  });

  it(`--param ${BOOTSTRAP_IMAGE_PARAM}=<uri>: the repository joins an existing stack while that image runs`, () => {
    const bootstrapImage = 'ghcr.io/rocketmq-lambda/rocketmq-lambda:0.1.0';
    const { resources, imageBuild } = compileRocketMQResources({
      ...fixtureInput('built-image'),
      bootstrapImage,
    });
    expect(resources[Ids.imageRepository]?.Type).toBe('AWS::ECR::Repository');
    expect(containerImage(resources)).toBe(bootstrapImage);
    expect(imageBuild).toBeUndefined();
    expect(awaitsBuiltImage({ Resources: resources })).toBe(false);
  });
});

describe('the build', () => {
  it('build: true builds the installed package with its Dockerfile, for the tasks architecture', async () => {
    const spec = imageBuildSpec(
      true,
      '/srv/app',
      'ARM64',
      '123456789012.dkr.ecr.eu-west-1.amazonaws.com/repo',
    );
    expect(spec).toMatchObject({
      contextDir: REPO_ROOT,
      dockerfile: path.join(REPO_ROOT, 'infra/docker/Dockerfile'),
      platform: 'linux/arm64',
      buildArgs: { [PACKAGE_VERSION_BUILD_ARG]: await repositoryVersion() },
    });
    expect(spec.tag).toMatch(/^123456789012\.dkr\.ecr\.eu-west-1\.amazonaws\.com\/repo:\d+\.\d+\.\d+/);
    expect(
      imageBuildSpec({ context: 'poller', args: { A: '1' } }, '/srv/app', 'X86_64', 'r').dockerfile,
    ).toBe('/srv/app/poller/Dockerfile');
    expect(
      imageBuildSpec({ dockerfile: 'docker/Poller.Dockerfile' }, '/srv/app', 'X86_64', 'r'),
    ).toMatchObject({
      contextDir: REPO_ROOT,
      dockerfile: '/srv/app/docker/Poller.Dockerfile',
      platform: 'linux/amd64',
    });
  });

  it('is one `docker buildx build --platform ... --push` writing the pushed digest to a metadata file', () => {
    const spec = imageBuildSpec(
      { context: 'ctx', args: { NODE_IMAGE: 'node:22' } },
      '/srv',
      'X86_64',
      'acct/repo',
    );
    expect(buildxArguments(spec, '/tmp/meta.json')).toEqual([
      'buildx',
      'build',
      '--platform',
      'linux/amd64',
      '--file',
      '/srv/ctx/Dockerfile',
      '--tag',
      spec.tag,
      '--build-arg',
      'NODE_IMAGE=node:22',
      '--provenance=false',
      '--push',
      '--metadata-file',
      '/tmp/meta.json',
      '/srv/ctx',
    ]);
  });
});

describe('the deploy step', () => {
  const calls: string[] = [];
  const provider = (
    resources: { LogicalResourceId: string; PhysicalResourceId: string }[],
  ): ImageDeployProvider => ({
    getRegion: () => 'eu-west-1',
    getAccountId: async () => '123456789012',
    getStackResources: async () => resources,
    dockerLoginToEcr: async () => {
      calls.push('login');
    },
  });
  /** A docker that "pushes" by writing the metadata file buildx would write. */
  const fakeDocker: CommandRunner = async (command, args): Promise<CommandResult> => {
    calls.push(`${command} ${args.slice(0, 4).join(' ')}`);
    const metadataFile = args[args.indexOf('--metadata-file') + 1];
    if (metadataFile !== undefined)
      await writeFile(metadataFile, JSON.stringify({ 'containerimage.digest': DIGEST }));
    return { exitCode: 0, output: '' };
  };

  afterEach(() => {
    calls.length = 0;
  });

  it('logs in to ECR, builds and pushes, and points the task definition at the pushed digest', async () => {
    const { resources } = compileRocketMQResources(fixtureInput('built-image'));
    const template = { Resources: structuredClone(resources) as Record<string, unknown> };
    const pushed = await deployBuiltImage({
      build: true,
      serviceDir: '/srv/app',
      cpuArchitecture: 'ARM64',
      stackName: 'rmq-built-image-test',
      template,
      provider: provider([
        { LogicalResourceId: Ids.imageRepository, PhysicalResourceId: 'rmq-built-image-repo' },
      ]),
      run: fakeDocker,
    });
    expect(pushed).toEqual({
      image: `123456789012.dkr.ecr.eu-west-1.amazonaws.com/rmq-built-image-repo@${DIGEST}`,
      digest: DIGEST,
    });
    expect(calls).toEqual(['login', 'docker buildx build --platform linux/arm64']);
    expect(containerImage(template.Resources as Record<string, CfnResource>)).toEqual({
      'Fn::Sub': `\${${Ids.imageRepository}.RepositoryUri}@${DIGEST}`,
    });
    expect(awaitsBuiltImage(template)).toBe(false);
  });

  it('a stack created before image.build (no repository yet) is told how to add it', async () => {
    const { resources } = compileRocketMQResources(fixtureInput('built-image'));
    const attempt = deployBuiltImage({
      build: true,
      serviceDir: '/srv/app',
      cpuArchitecture: 'X86_64',
      stackName: 'rmq-built-image-test',
      template: { Resources: structuredClone(resources) as Record<string, unknown> },
      provider: provider([{ LogicalResourceId: Ids.service, PhysicalResourceId: 'svc' }]),
      run: fakeDocker,
    });
    await expect(attempt).rejects.toThrow(ImageBuildError);
    await expect(attempt).rejects.toThrow(
      `stack rmq-built-image-test has no ${Ids.imageRepository} yet (it was created before image.build was set)`,
    );
    await expect(attempt).rejects.toThrow(
      `--param="${BOOTSTRAP_IMAGE_PARAM}=<the image the poller runs now, or the published one>"`,
    );
    expect(calls).toEqual([]);
  });

  it('a stack not created yet (provider.deploymentBucket defers the creation) is told the same way out', async () => {
    const { resources } = compileRocketMQResources(fixtureInput('built-image'));
    const attempt = deployBuiltImage({
      build: true,
      serviceDir: '/srv/app',
      cpuArchitecture: 'X86_64',
      stackName: 'rmq-built-image-test',
      template: { Resources: structuredClone(resources) as Record<string, unknown> },
      provider: {
        ...provider([]),
        getStackResources: async () => {
          throw new Error('Stack with id rmq-built-image-test does not exist');
        },
      },
      run: fakeDocker,
    });
    await expect(attempt).rejects.toThrow(
      'cannot list the resources of stack rmq-built-image-test (Stack with id rmq-built-image-test does not exist), so there is no repository to push to yet',
    );
    expect(calls).toEqual([]);
  });
});

describe('Docker missing', () => {
  let emptyDir: string | undefined;
  afterEach(async () => {
    if (emptyDir !== undefined) await rm(emptyDir, { recursive: true, force: true });
  });

  it('a PATH without docker: the error names the missing tool and the way out', async () => {
    emptyDir = await mkdtemp(path.join(os.tmpdir(), 'no-docker-'));
    const run = createCommandRunner({ PATH: emptyDir });
    const attempt = ensureDockerBuildx(run);
    await expect(attempt).rejects.toThrow(ImageBuildError);
    await expect(attempt).rejects.toThrow(
      'custom.rocketmq.image.build: `docker` was not found on PATH; install Docker (with buildx) to build the poller image, or leave image.build out to run the published image',
    );
    await expect(attempt).rejects.toMatchObject({ permanent: true, retriable: false });
  });

  it('docker without buildx: the error says buildx', async () => {
    const run: CommandRunner = async (_command, args) =>
      args[0] === 'buildx'
        ? { exitCode: 1, output: "docker: 'buildx' is not a docker command." }
        : { exitCode: 0, output: 'Docker version 27.3.1' };
    await expect(ensureDockerBuildx(run)).rejects.toThrow(
      /`docker buildx` is not available \(docker buildx version exited with 1\); install the buildx plugin/,
    );
  });
});
