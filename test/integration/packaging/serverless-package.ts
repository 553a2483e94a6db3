/**
 * `serverless package` (osls, the checkout's devDependency) on a service directory, as a deployer runs it:
 * the plugin and every dependency come from that service's own node_modules, nothing is bundled. Dummy
 * AWS credentials; proxies pointing nowhere make any network attempt fail fast instead of hanging.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { offlineServerlessEnv, SERVERLESS_BIN } from '../../support/serverless-cli.js';

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
  const childEnv: NodeJS.ProcessEnv = { ...offlineServerlessEnv(process.env.PATH), ...env };
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
