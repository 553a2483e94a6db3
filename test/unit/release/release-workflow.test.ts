/**
 * .github/workflows/release.yml against what the rest of the project expects of a release: the plugin's
 * default image repositories, the package's Dockerfile and version build argument, both npm packages with
 * provenance, both platforms, least-privilege permissions and actions pinned by commit. The tag check is
 * run as GitHub runs a step (bash -eo pipefail with GITHUB_OUTPUT). actionlint's checks are in
 * test/integration/release.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  PACKAGE_DOCKERFILE,
  PACKAGE_VERSION_BUILD_ARG,
} from '../../../src/serverless/poller-image-deploy.js';
import { PUBLISHED_IMAGE_REPOSITORIES } from '../../../src/serverless/published-image.js';

const WORKFLOW = fileURLToPath(new URL('../../../.github/workflows/release.yml', import.meta.url));

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}

interface Job {
  needs?: string | string[];
  permissions?: Record<string, string>;
  steps: Step[];
}

interface Workflow {
  on: unknown;
  permissions: unknown;
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

/** A GitHub Actions expression as the workflow spells it: `${{ <inner> }}`. */
function expression(inner: string): string {
  return `${'$'}{{ ${inner} }}`;
}

let text: string;
let workflow: Workflow;

beforeAll(async () => {
  text = await readFile(WORKFLOW, 'utf8');
  workflow = parse(text) as Workflow;
});

function job(name: string): Job {
  const found = workflow.jobs[name];
  if (found === undefined)
    throw new Error(`release.yml has no job ${name}: ${Object.keys(workflow.jobs).join(', ')}`);
  return found;
}

/** The one step of `jobName` whose `run` contains `marker` (or whose `uses` starts with it). */
function step(jobName: string, marker: string): Step {
  const matches = job(jobName).steps.filter(
    (candidate) =>
      candidate.run?.includes(marker) === true || candidate.uses?.startsWith(`${marker}@`) === true,
  );
  if (matches.length !== 1) throw new Error(`${matches.length} steps of job ${jobName} match "${marker}"`);
  return matches[0] as Step;
}

/** Runs a step's script as GitHub's default bash shell does, in `cwd`; returns its exit, output and outputs. */
async function runStep(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; outputs: string }> {
  const outputFile = path.join(cwd, 'github-output');
  await writeFile(outputFile, '');
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve, reject) => {
    execFile(
      'bash',
      ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script],
      { cwd, env: { PATH: process.env.PATH ?? '', GITHUB_OUTPUT: outputFile, ...env }, timeout: 30_000 },
      (error, out) => {
        // A non-zero exit is a result here; only a bash that could not run is an error.
        if (error !== null && typeof error.code !== 'number') reject(error);
        else resolve({ code: error === null ? 0 : Number(error.code), stdout: out });
      },
    );
  });
  return { code, stdout, outputs: await readFile(outputFile, 'utf8') };
}

describe('.github/workflows/release.yml', () => {
  it('runs on v* tags only, with no default permissions', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v*'] } });
    expect(workflow.permissions).toEqual({});
    expect(job('npm').permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(job('image').permissions).toEqual({ contents: 'read', packages: 'write', 'id-token': 'write' });
    expect(job('image').needs).toBe('npm');
  });

  it('pins every action by commit, naming the release in a comment', () => {
    const uses = [...text.matchAll(/^\s*(?:-\s+)?uses:\s*(.*)$/gm)].map((match) => match[1] ?? '');
    expect(uses.length).toBeGreaterThan(0);
    for (const use of uses) expect(use).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });

  it('pushes to the repositories the plugin defaults to, for both platforms, from the package Dockerfile', () => {
    expect(workflow.env.GHCR_IMAGE).toBe(PUBLISHED_IMAGE_REPOSITORIES.ghcr);
    expect(workflow.env.ECR_PUBLIC_IMAGE).toBe(PUBLISHED_IMAGE_REPOSITORIES.ecrPublic);
    const build = step('image', 'docker buildx build').run ?? '';
    expect(build).toContain('--platform linux/amd64,linux/arm64');
    expect(build).toContain(`--file "$CONTEXT/${PACKAGE_DOCKERFILE}"`);
    expect(build).toContain(`--build-arg "${PACKAGE_VERSION_BUILD_ARG}=$VERSION"`);
    expect(build).toContain('--tag "$GHCR_IMAGE:$VERSION" --tag "$ECR_PUBLIC_IMAGE:$VERSION"');
    expect(build).toContain('--push');
    // The context is the package as the registry serves it, checked against the tarball this run packed.
    const fetch = step('image', 'npm pack "rocketmq-lambda@$VERSION"');
    expect(fetch.env?.EXPECTED_INTEGRITY).toBe(expression('needs.npm.outputs.integrity'));
    expect(fetch.run).toContain('echo "CONTEXT=$RUNNER_TEMP/package" >> "$GITHUB_ENV"');
    expect(step('image', 'docker/setup-qemu-action').with).toEqual({ platforms: 'arm64' });
  });

  it('logs in to ECR Public through the AWS role and to GHCR with the job token', () => {
    expect(step('image', 'aws-actions/configure-aws-credentials').with).toEqual({
      'role-to-assume': expression('vars.AWS_RELEASE_ROLE_ARN'),
      'aws-region': 'us-east-1',
    });
    expect(step('image', 'aws-actions/amazon-ecr-login').with).toEqual({ 'registry-type': 'public' });
    expect(step('image', 'docker login ghcr.io').env).toEqual({
      GITHUB_TOKEN: expression('secrets.GITHUB_TOKEN'),
    });
  });

  it('packs and publishes both npm packages with provenance', () => {
    const pack = step('npm', 'npm pack --pack-destination').run ?? '';
    expect(pack).toContain('npm run --silent pack:handler -- --pack-destination');
    const publish = step('npm', 'npm publish');
    expect(publish.run).toContain('for name in rocketmq-lambda rocketmq-lambda-handler; do');
    expect(publish.run).toContain('npm publish "$tarball" --provenance --access public --tag "$DIST_TAG"');
    expect(publish.env?.NODE_AUTH_TOKEN).toBe(expression('secrets.NPM_TOKEN'));
  });

  describe('the tag check', () => {
    let cwd: string;
    let script: string;

    beforeAll(async () => {
      script = step('npm', 'GITHUB_REF_NAME').run ?? '';
      cwd = await mkdtemp(path.join(tmpdir(), 'rl-release-'));
    });

    afterAll(async () => {
      await rm(cwd, { recursive: true, force: true });
    });

    async function checkTag(version: string, tag: string) {
      await writeFile(path.join(cwd, 'package.json'), JSON.stringify({ name: 'rocketmq-lambda', version }));
      return runStep(script, cwd, { GITHUB_REF_NAME: tag });
    }

    it("passes when the tag is v + package.json's version, and gives the npm dist-tag", async () => {
      expect(await checkTag('1.2.3', 'v1.2.3')).toMatchObject({
        code: 0,
        outputs: 'version=1.2.3\ndist-tag=latest\n',
      });
      expect((await checkTag('1.3.0-rc.1', 'v1.3.0-rc.1')).outputs).toBe(
        'version=1.3.0-rc.1\ndist-tag=next\n',
      );
    });

    it('fails, saying which tag to push, when they differ', async () => {
      const result = await checkTag('1.2.3', 'v1.2.4');
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(
        "::error::tag v1.2.4 does not name package.json's version 1.2.3 (tag v1.2.3 instead)",
      );
      expect(result.outputs).toBe('');
    });
  });
});
