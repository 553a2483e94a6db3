/**
 * Building and pushing the poller image with the deployer's Docker (`image.build`): `docker buildx build`
 * for the tasks' platform, pushed to the stack's ECR repository in the same command, the pushed digest
 * read from buildx's metadata file. Docker runs as a child process; a missing `docker` (or buildx) is
 * reported by name before anything is built.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { RocketMQError } from '../errors.js';

/** The last bytes of a failed command's output kept for its error (builds print a lot). */
const OUTPUT_TAIL_BYTES = 8192;

/**
 * The outcome of one command.
 */
export interface CommandResult {
  readonly exitCode: number;
  /** stdout and stderr together, the last {@link OUTPUT_TAIL_BYTES} of it. */
  readonly output: string;
}

/**
 * Runs a command to its end. Rejects with {@link ImageBuildError} when the command is not installed.
 */
export type CommandRunner = (command: string, args: readonly string[]) => Promise<CommandResult>;

/**
 * The image could not be built or pushed: Docker or buildx missing, a failed build or push. Permanent:
 * the same deploy fails the same way until the machine or the build is fixed.
 */
export class ImageBuildError extends RocketMQError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, permanent: true });
  }
}

/**
 * What to build and where to push it.
 */
export interface ImageBuildSpec {
  readonly contextDir: string;
  readonly dockerfile: string;
  readonly platform: 'linux/amd64' | 'linux/arm64';
  readonly buildArgs: Readonly<Record<string, string>>;
  /** `<repository URI>:<tag>`. */
  readonly tag: string;
}

/**
 * A runner of real child processes with `env` (its PATH finds the commands).
 */
export function createCommandRunner(env: NodeJS.ProcessEnv = process.env): CommandRunner {
  return (command, args) =>
    new Promise((resolve, reject) => {
      const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_BYTES);
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') {
          reject(
            new ImageBuildError(
              `custom.rocketmq.image.build: \`${command}\` was not found on PATH; install Docker (with buildx) to build the poller image, or leave image.build out to run the published image`,
              { cause: error },
            ),
          );
        } else {
          reject(new ImageBuildError(`could not run ${command}: ${error.message}`, { cause: error }));
        }
      });
      child.on('close', (code, signal) => resolve({ exitCode: code ?? (signal === null ? 0 : 128), output }));
    });
}

/**
 * Checks that `docker` and its buildx plugin answer.
 */
export async function ensureDockerBuildx(run: CommandRunner): Promise<void> {
  const docker = await run('docker', ['--version']);
  if (docker.exitCode !== 0) throw failed('docker --version', docker);
  const buildx = await run('docker', ['buildx', 'version']);
  if (buildx.exitCode !== 0) {
    throw new ImageBuildError(
      `custom.rocketmq.image.build: \`docker buildx\` is not available (docker buildx version exited with ${buildx.exitCode}); install the buildx plugin (Docker Desktop and docker-ce include it)\n${buildx.output}`,
    );
  }
}

/**
 * The arguments of `docker buildx build` for `spec`, pushing to its tag and writing the metadata
 * (pushed digest) to `metadataFile`. Provenance attestations are left out so the tag names a plain
 * image manifest.
 */
export function buildxArguments(spec: ImageBuildSpec, metadataFile: string): string[] {
  const buildArgs = Object.entries(spec.buildArgs).flatMap(([name, value]) => [
    '--build-arg',
    `${name}=${value}`,
  ]);
  return [
    'buildx',
    'build',
    '--platform',
    spec.platform,
    '--file',
    spec.dockerfile,
    '--tag',
    spec.tag,
    ...buildArgs,
    '--provenance=false',
    '--push',
    '--metadata-file',
    metadataFile,
    spec.contextDir,
  ];
}

/**
 * Builds the image of `spec`, pushes it, and returns its digest (`sha256:...`). The registry login is
 * the caller's (the Framework's ECR login).
 */
export async function buildAndPushImage(spec: ImageBuildSpec, run: CommandRunner): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rocketmq-lambda-image-'));
  try {
    const metadataFile = path.join(dir, 'metadata.json');
    const args = buildxArguments(spec, metadataFile);
    const result = await run('docker', args);
    if (result.exitCode !== 0) throw failed(`docker ${args.join(' ')}`, result);
    const digest = digestOf(await readFile(metadataFile, 'utf8'));
    if (digest === undefined) {
      throw new ImageBuildError(`docker buildx pushed ${spec.tag} but its metadata names no image digest`);
    }
    return digest;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function digestOf(metadata: string): string | undefined {
  const parsed = JSON.parse(metadata) as Record<string, unknown>;
  const digest = parsed['containerimage.digest'];
  return typeof digest === 'string' && /^sha256:[a-f0-9]{64}$/.test(digest) ? digest : undefined;
}

function failed(command: string, result: CommandResult): ImageBuildError {
  return new ImageBuildError(`${command} exited with ${result.exitCode}:\n${result.output}`);
}
