/**
 * `serverless package` (osls, the checkout's devDependency) on a service directory, as a deployer runs it:
 * the plugin and every dependency come from that service's own node_modules, nothing is bundled. Dummy
 * AWS credentials; proxies pointing nowhere make any network attempt fail fast instead of hanging.
 */
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './clone-checkout.js';

const SERVERLESS_BIN = path.join(REPO_ROOT, 'node_modules/serverless/bin/serverless.js');
const PACKAGE_TIMEOUT_MS = 180_000;

/**
 * Runs `serverless package --stage test` in `serviceDir` with `env` added; resolves with the path of the
 * service's zip (`.serverless/<service>.zip`), rejects with the Framework's output when it fails.
 *
 * @example
 * ```ts
 * const zip = await serverlessPackage(dir, 'rmq-handler-zip');
 * ```
 */
export function serverlessPackage(
  serviceDir: string,
  service: string,
  env: Readonly<Record<string, string>> = {},
): Promise<string> {
  const childEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    AWS_REGION: 'eu-west-1',
    AWS_DEFAULT_REGION: 'eu-west-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '',
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    SLS_SCHEMA_CACHE_BASE_DIR: path.join(os.tmpdir(), 'rocketmq-lambda-osls-cache'),
    FORCE_COLOR: '0',
    NO_COLOR: '1',
    ...env,
  };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [SERVERLESS_BIN, 'package', '--stage', 'test'],
      { cwd: serviceDir, env: childEnv, timeout: PACKAGE_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) resolve(path.join(serviceDir, '.serverless', `${service}.zip`));
        else
          reject(
            new Error(`serverless package in ${serviceDir} failed:\n${stdout}${stderr}`, { cause: error }),
          );
      },
    );
  });
}
