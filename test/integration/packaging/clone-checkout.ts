/**
 * A copy of this checkout as a fresh clone of it would be once the working tree is committed: the files
 * git tracks or would track (untracked files that .gitignore does not exclude), so no dist/, no
 * `.rocketmq-lambda/`, no tarballs. Its node_modules is a link to the checkout's, standing for the
 * `npm ci` a clone needs: never run `npm ci` or `npm install` in it (that would rewrite the checkout's
 * node_modules).
 */
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The copies run tsc, npm pack and the Framework; none of them takes minutes. */
const COMMAND_TIMEOUT_MS = 240_000;

/**
 * A clone-like copy of the checkout.
 *
 * @example
 * ```ts
 * const clone = await cloneCheckout();
 * onTestFinished(() => clone.remove());
 * ```
 */
export interface CloneCheckout {
  /** The copy's root (its package.json is rocketmq-lambda's). */
  readonly dir: string;
  /** Runs a command in the copy's root; resolves with its stdout, rejects with its output on failure. */
  run(command: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string>;
  /** Removes the copy. */
  remove(): Promise<void>;
}

/**
 * Copies the checkout's clone-worthy files to a temp directory (in `parentDir`, the system's by default)
 * and links its node_modules.
 *
 * @example
 * ```ts
 * const clone = await cloneCheckout();
 * await clone.run('npm', ['run', 'build']);
 * ```
 */
export async function cloneCheckout(parentDir: string = tmpdir()): Promise<CloneCheckout> {
  const listing = await runCommand(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    REPO_ROOT,
    process.env,
  );
  const files = listing.split('\0').filter((file) => file !== '');
  if (!files.includes('package.json')) throw new Error(`git ls-files in ${REPO_ROOT} listed no package.json`);
  const dir = await mkdtemp(path.join(parentDir, 'rl-clone-'));
  try {
    for (const file of files) {
      const from = path.join(REPO_ROOT, file);
      // A tracked file deleted in the working tree is not part of the commit-to-be.
      const info = await stat(from).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (info === undefined || !info.isFile()) continue;
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await copyFile(from, path.join(dir, file));
      await chmod(path.join(dir, file), info.mode);
    }
    await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    run: (command, args, env = process.env) => runCommand(command, args, dir, env),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Runs a command to completion in `cwd`; resolves with its stdout, rejects with its output on failure.
 *
 * @example
 * ```ts
 * const output = await runCommand('npm', ['pack', '--json'], dir, process.env);
 * ```
 */
export function runCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, env, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else
          reject(
            new Error(`${command} ${args.join(' ')} (in ${cwd}) failed:\n${stdout}${stderr}`, {
              cause: error,
            }),
          );
      },
    );
  });
}
