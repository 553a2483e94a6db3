/**
 * The `rocketmq-lambda` CLI as a child process with NO AWS credentials anywhere in the standard chain:
 * the credential and profile variables removed from its environment, the shared credentials and config
 * files pointed at paths that do not exist, the instance metadata service off. What a developer without
 * an AWS account has, for the tests of src/util/local-endpoint-credentials.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** Variables through which the standard chain finds credentials or a profile. */
const CREDENTIAL_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_CREDENTIAL_EXPIRATION',
  'AWS_PROFILE',
  'AWS_DEFAULT_PROFILE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
];

/** `env` without AWS credentials, profiles or regions, and with the chain's files and IMDS out of reach. */
export function credentialFreeEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !CREDENTIAL_VARIABLES.includes(name)) result[name] = value;
  }
  result.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/rocketmq-lambda-test/credentials';
  result.AWS_CONFIG_FILE = '/nonexistent/rocketmq-lambda-test/config';
  result.AWS_EC2_METADATA_DISABLED = 'true';
  return result;
}

/** A CLI child and what it wrote. */
export interface CliChild {
  readonly child: ChildProcess;
  /** Resolves with the exit code (a signal's death: `null`). */
  readonly exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/**
 * Spawns `rocketmq-lambda <args>` without AWS credentials (plus `env`); killed at the end of the test if
 * still running.
 *
 * @example
 * ```ts
 * const cli = spawnCliWithoutCredentials(['validate', '--config', file, '--connect']);
 * expect(await cli.exited).toBe(0);
 * ```
 */
export function spawnCliWithoutCredentials(
  args: readonly string[],
  env: Record<string, string> = {},
): CliChild {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    cwd: REPO,
    env: { ...credentialFreeEnv(process.env), VITEST: '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  // 'close': the exit and the end of its output, so stdout() is whole once `exited` resolves.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let done = false;
  void exited.then(() => {
    done = true;
  });
  onTestFinished(async () => {
    if (!done) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return { child, exited, stdout: () => out, stderr: () => err };
}
