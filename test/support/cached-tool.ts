/**
 * Command-line tools the tests install once into the user's cache (`~/.cache/rocketmq-lambda/<name>-<version>`,
 * or under `XDG_CACHE_HOME`): Go tools built with `go install` (go-tool.ts), Python tools in a virtualenv
 * (python-tool.ts). An install is marked complete at its end; a directory without the mark (an interrupted
 * install) is removed and installed again. Concurrent callers in one process share one install.
 */
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Written into the tool's directory once its install succeeded. */
const INSTALLED_MARKER = '.rocketmq-lambda-installed';

const installing = new Map<string, Promise<string>>();

/**
 * How to install one tool.
 *
 * @example
 * ```ts
 * const install: CachedToolInstall = { name: 'cfn-lint', version: '1.58.0', binary: (dir) => `${dir}/bin/cfn-lint`,
 *   build: async (dir) => { ...; return 'cfn-lint==1.58.0'; } };
 * ```
 */
export interface CachedToolInstall {
  readonly name: string;
  readonly version: string;
  /** Where the executable is once installed into `dir`. */
  binary(dir: string): string;
  /** Installs into the (removed) `dir`, checks the executable is there; resolves with what it installed. */
  build(dir: string, binary: string): Promise<string>;
}

/**
 * The path of the tool's executable, installing it on first use.
 *
 * @example
 * ```ts
 * const cfnLint = await ensureCachedTool(install); // ~/.cache/rocketmq-lambda/cfn-lint-1.58.0/bin/cfn-lint
 * ```
 */
export function ensureCachedTool(install: CachedToolInstall): Promise<string> {
  const key = `${install.name}-${install.version}`;
  let pending = installing.get(key);
  if (pending === undefined) {
    pending = installInto(install, key);
    installing.set(key, pending);
  }
  return pending;
}

async function installInto(install: CachedToolInstall, key: string): Promise<string> {
  const base = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  const dir = path.join(base, 'rocketmq-lambda', key);
  const binary = install.binary(dir);
  if (existsSync(path.join(dir, INSTALLED_MARKER)) && existsSync(binary)) return binary;
  await rm(dir, { recursive: true, force: true });
  const installed = await install.build(dir, binary);
  await writeFile(path.join(dir, INSTALLED_MARKER), `${installed}\n`);
  return binary;
}
