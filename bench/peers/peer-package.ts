/**
 * Checks a peer's npm package before its runs: installed at the version the bench pins (package.json's
 * devDependencies), so that results never name another release than the one measured, and loadable
 * by this Node, so that a client that does not run here fails prepare() with Node's own words rather
 * than every run with a child's stack trace. The load happens in a throwaway node process: the
 * harness's memory stays free of the peer's modules.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { runCommand, tailLines } from '../../src/local-broker/run-command.js';

const require = createRequire(import.meta.url);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const LOAD_TIMEOUT_MS = 60_000;

/**
 * Throws when `name` is missing, holds another version than `version`, or fails to load under this
 * Node (the message then carries the tail of Node's error verbatim).
 *
 * @example
 * ```ts
 * await assertPeerPackage('ali-ons', '3.12.0');
 * ```
 */
export async function assertPeerPackage(name: string, version: string): Promise<void> {
  let manifestPath: string;
  try {
    manifestPath = require.resolve(`${name}/package.json`);
  } catch (cause) {
    throw new Error(`${name} is not installed (npm install --save-dev --save-exact ${name}@${version})`, {
      cause,
    });
  }
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { version?: unknown };
  if (manifest.version !== version) {
    throw new Error(`${name} ${String(manifest.version)} is installed, the bench pins ${version}`);
  }
  const load = await runCommand(
    process.execPath,
    ['--input-type=module', '-e', `await import(${JSON.stringify(name)});`],
    { cwd: REPO, timeoutMs: LOAD_TIMEOUT_MS },
  );
  if (load.exitCode !== 0) {
    throw new Error(
      `${name} ${version} does not load under Node ${process.version} (exit ${String(load.exitCode)}):\n${tailLines(load.stderr, 30)}`,
    );
  }
}
