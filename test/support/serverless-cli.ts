/**
 * What the tests that run the Serverless Framework (osls) on a fixture service share: the plugin installed
 * into the service as `rocketmq-lambda/serverless` straight from our TypeScript sources, and an environment
 * that keeps the Framework offline (no real credentials, no telemetry, every proxy a dead port).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const TSX_CJS_API = path.join(REPO_ROOT, 'node_modules/tsx/dist/cjs/api/index.cjs');
const PLUGIN_SOURCE = path.join(REPO_ROOT, 'src/serverless/index.ts');

/** The Framework's own CLI, as npm installed it. */
export const SERVERLESS_BIN = path.join(REPO_ROOT, 'node_modules/serverless/bin/serverless.js');

/**
 * Puts `node_modules/rocketmq-lambda` into the service at `dir`: a package whose `./serverless` export loads
 * src/serverless/index.ts through tsx, so the Framework runs the plugin from this checkout, unbuilt.
 *
 * @example
 * ```ts
 * await installPluginShim(serviceDir);
 * ```
 */
export async function installPluginShim(dir: string): Promise<void> {
  const shim = path.join(dir, 'node_modules', 'rocketmq-lambda');
  await mkdir(shim, { recursive: true });
  await writeFile(
    path.join(shim, 'package.json'),
    JSON.stringify({
      name: 'rocketmq-lambda',
      version: '0.0.0-test',
      exports: { './serverless': { default: './serverless.cjs' } },
    }),
  );
  await writeFile(
    path.join(shim, 'serverless.cjs'),
    [
      `const { require: tsxRequire } = require(${JSON.stringify(TSX_CJS_API)});`,
      `module.exports = tsxRequire(${JSON.stringify(PLUGIN_SOURCE)}, __filename);`,
      '',
    ].join('\n'),
  );
}

/**
 * The environment of `serverless package` that can reach nothing: example credentials, a fixed region,
 * every proxy on a dead port, no telemetry or notifications, no colour.
 *
 * @example
 * ```ts
 * execFile(process.execPath, [SERVERLESS_BIN, 'package'], { cwd, env: offlineServerlessEnv(process.env.PATH) });
 * ```
 */
export function offlineServerlessEnv(searchPath: string | undefined): NodeJS.ProcessEnv {
  return {
    PATH: searchPath,
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
  };
}
