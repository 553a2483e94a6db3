/**
 * A Serverless service in a temp directory, deployed with osls (the checkout's devDependency, Serverless
 * Framework v3 line) against an AWS API emulator. The plugin is installed there as the package
 * `rocketmq-lambda` whose `./serverless` export loads this checkout's TypeScript source (through tsx).
 * Every AWS SDK v3 client osls creates reads its endpoint from `AWS_ENDPOINT_URL` (the SDK's own setting;
 * osls sets none of its own), so the whole deploy, S3 uploads included, goes to the emulator.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPluginShim, SERVERLESS_BIN } from '../../support/serverless-cli.js';

/**
 * The repository root.
 *
 * @example
 * ```ts
 * const template = path.join(REPO_ROOT, 'infra/cloudformation/rocketmq-poller.yml');
 * ```
 */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A deploy against moto takes ~20 s; a busy machine gets the rest. */
const COMMAND_TIMEOUT_MS = 240_000;
/** osls's CloudFormation polling interval (SLS_AWS_MONITORING_FREQUENCY). */
const STACK_POLL_MS = 250;

/**
 * What to copy into the service directory: files (relative to `from`) and files written as given.
 *
 * @example
 * ```ts
 * const source: ServiceSource = { from: REPO_ROOT, copy: ['serverless.yml'], write: { 'package.json': '{}' } };
 * ```
 */
export interface ServiceSource {
  readonly from: string;
  readonly copy: readonly string[];
  readonly write?: Readonly<Record<string, string>>;
}

/**
 * The outcome of one Framework command.
 *
 * @example
 * ```ts
 * const { exitCode, output } = await service.run(['deploy', '--stage', 'e2e']);
 * ```
 */
export interface CommandResult {
  readonly exitCode: number;
  /** stdout and stderr together (osls writes its errors to either). */
  readonly output: string;
  readonly durationMs: number;
}

/**
 * A service directory and the Framework run in it.
 *
 * @example
 * ```ts
 * const service = await serviceDirectory(source, { endpoint: moto.endpoint, region: 'us-east-1' });
 * onTestFinished(() => service.remove());
 * ```
 */
export interface ServerlessService {
  readonly dir: string;
  /** Runs `serverless <args>` in the directory. */
  run(args: readonly string[]): Promise<CommandResult>;
  /** The template the last package or deploy compiled (`.serverless/cloudformation-template-update-stack.json`). */
  readonly templateFile: string;
  readTemplate(): Promise<unknown>;
  /** Removes the directory. */
  remove(): Promise<void>;
}

/**
 * Where the Framework deploys to and what else its environment holds.
 *
 * @example
 * ```ts
 * const target: ServiceTarget = { endpoint: 'http://127.0.0.1:5000', region: 'us-east-1', env: { ROCKETMQ_NAME_SERVER: '10.0.0.10:9876' } };
 * ```
 */
export interface ServiceTarget {
  readonly endpoint: string;
  readonly region: string;
  /** Variables the service's `${env:...}` read. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Copies `source` into a temp directory and installs the plugin shim there.
 *
 * @example
 * ```ts
 * const service = await serviceDirectory(source, target);
 * const deployed = await service.run(['deploy', '--stage', 'e2e']);
 * ```
 */
export async function serviceDirectory(
  source: ServiceSource,
  target: ServiceTarget,
): Promise<ServerlessService> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rmq-deploy-'));
  for (const file of source.copy) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await copyFile(path.join(source.from, file), path.join(dir, file));
  }
  for (const [file, content] of Object.entries(source.write ?? {})) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
  }
  await installPluginShim(dir);
  const templateFile = path.join(dir, '.serverless', 'cloudformation-template-update-stack.json');
  return {
    dir,
    run: (args) => runServerless(dir, args, target),
    templateFile,
    readTemplate: async () => JSON.parse(await readFile(templateFile, 'utf8')) as unknown,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

function runServerless(cwd: string, args: readonly string[], target: ServiceTarget): Promise<CommandResult> {
  // A fresh environment: no proxy (osls would send the emulator's requests through it), no real profile.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: target.region,
    AWS_DEFAULT_REGION: target.region,
    AWS_ENDPOINT_URL: target.endpoint,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: path.join(cwd, '.aws-config-none'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(cwd, '.aws-credentials-none'),
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    SLS_SCHEMA_CACHE_BASE_DIR: path.join(os.tmpdir(), 'rocketmq-lambda-osls-cache'),
    // How often osls polls CloudFormation for a change set, the stack's progress on deploy and on remove:
    // it waits this long before every poll (5 s when unset), while moto has done each in well under a
    // second. Still a wait for the stack's status, polled more often.
    SLS_AWS_MONITORING_FREQUENCY: String(STACK_POLL_MS),
    FORCE_COLOR: '0',
    NO_COLOR: '1',
    ...target.env,
  };
  const startedAt = Date.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [SERVERLESS_BIN, ...args],
      { cwd, env, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        const durationMs = Date.now() - startedAt;
        if (error === null) {
          resolve({ exitCode: 0, output, durationMs });
          return;
        }
        if (typeof error.code === 'number') {
          resolve({ exitCode: error.code, output, durationMs });
          return;
        }
        reject(
          new Error(`serverless ${args.join(' ')} did not finish: ${error.message}\n${output}`, {
            cause: error,
          }),
        );
      },
    );
  });
}
