/**
 * A Dockerfile's stages replayed on the host, for tests on machines without a Docker engine: the
 * Dockerfile is parsed, then each stage's COPY / RUN / WORKDIR / ENV is applied to a sandbox directory
 * that stands for the image's root file system (`/app` is `<root>/app`, `/usr/local/bin` is
 * `<root>/usr/local/bin`, `/tmp` is `<root>/tmp`). COPY reads the build context as BuildKit sends it (the
 * Dockerfile's `.dockerignore` applied), and RUN's npm commands run for real. The final stage's ENTRYPOINT
 * and HEALTHCHECK then run from that sandbox with only the image's environment, as the image's USER when
 * the host runs as root.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, cp, lstat, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildExit } from '../cli/poller-process.js';
import { planStages, type StagePlan, type StageStep } from './dockerfile-stages.js';
import { type ContextFilter, contextFilter } from './dockerignore.js';

/** The final stage replayed into a sandbox: where its files are and how to start its processes. */
export interface ReplayedImage {
  /** The sandbox that stands for the image's `/`. */
  readonly root: string;
  readonly runtime: StagePlan;
  /** The runtime stage's WORKDIR on the host: the containers' working directory. */
  readonly workdir: string;
  /** Where a path of the image is on the host. */
  hostPath(imagePath: string): string;
  /** Runs `argv` (ENTRYPOINT, HEALTHCHECK, ...) as the image would, with `env` added to the image's ENV. */
  start(argv: readonly string[], env?: Readonly<Record<string, string>>): ImageProcess;
  /** Removes every sandbox. */
  remove(): Promise<void>;
}

/** A process started from the replayed image. */
export interface ImageProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<ChildExit>;
  stdout(): string;
  stderr(): string;
}

/** Options of {@link replayImage}. */
export interface ReplayImageOptions {
  dockerfile: string;
  /** The build context (a package directory: an unpacked `npm pack` tarball). */
  context: string;
  /** Flags added to every `npm install` / `npm ci` of the Dockerfile (e.g. `--prefer-offline`). */
  extraNpmInstallFlags?: readonly string[];
  log?: (line: string) => void;
}

/**
 * Replays every stage of `dockerfile` in its own sandbox under the OS temp dir (outside the repository,
 * so module resolution cannot climb into its node_modules).
 *
 * @example
 * ```ts
 * const image = await replayImage({ dockerfile: `${pkg}/infra/docker/Dockerfile`, context: pkg });
 * const health = image.start(image.runtime.healthcheck ?? []);
 * ```
 */
export async function replayImage(options: ReplayImageOptions): Promise<ReplayedImage> {
  const stages = planStages(await readFile(options.dockerfile, 'utf8'), options.dockerfile);
  const runtime = stages.at(-1);
  if (runtime === undefined) throw new Error(`${options.dockerfile} has no FROM`);
  const { sends } = await contextFilter(options.dockerfile, options.context);
  const roots = new Map<string, string>();
  const remove = async (): Promise<void> => {
    await Promise.all([...roots.values()].map((root) => rm(root, { recursive: true, force: true })));
  };
  for (const stage of stages) {
    const root = await mkdtemp(path.join(tmpdir(), `rl-image-${stage.name}-`));
    roots.set(stage.name, root);
    await chmod(root, 0o755);
    await mkdir(path.join(root, 'tmp'), { mode: 0o1777 });
    await chmod(path.join(root, 'tmp'), 0o1777); // mkdir's mode is masked by the umask
  }
  const runtimeRoot = roots.get(runtime.name) ?? '';
  await assertNoNodeModulesAbove(path.join(runtimeRoot, runtime.workdir)).catch(async (error: unknown) => {
    await remove();
    throw error;
  });
  // Stages run side by side, as BuildKit runs independent stages; a COPY --from waits for its stage.
  const finished = new Map<string, Promise<void>>();
  for (const stage of stages) {
    const ctx = {
      root: roots.get(stage.name) ?? '',
      context: options.context,
      sends,
      roots,
      finished,
      extraNpmInstallFlags: options.extraNpmInstallFlags ?? [],
    };
    finished.set(
      stage.name,
      (async () => {
        for (const step of stage.steps) {
          const startedMs = Date.now();
          await replayStep(step, ctx);
          options.log?.(`[${stage.name}] ${describeStep(step)} (${Date.now() - startedMs} ms)`);
        }
      })(),
    );
  }
  const failure = (await Promise.allSettled(finished.values())).find(
    (result) => result.status === 'rejected',
  );
  if (failure !== undefined) {
    await remove();
    throw failure.reason;
  }
  const root = runtimeRoot;
  const hostPath = (imagePath: string): string =>
    path.join(root, path.posix.resolve(runtime.workdir, imagePath));
  const asUser = runtime.user !== undefined && process.getuid?.() === 0 ? runtime.user : undefined;
  const home = path.join(root, 'home', 'image-user');
  await mkdir(home, { recursive: true });
  if (asUser !== undefined) await chown(home, asUser.uid, asUser.gid);
  return {
    root,
    runtime,
    workdir: hostPath('.'),
    hostPath,
    start(argv, env = {}) {
      const [command = '', ...args] = argv;
      return startProcess(command, args, {
        cwd: hostPath('.'),
        // Only what a container has: the image's PATH (with the host's node for `#!/usr/bin/env node`),
        // HOME, /tmp (the sandbox's), and the image's ENV. No NODE_PATH, no npm_* variables.
        env: {
          PATH: [path.join(root, 'usr/local/bin'), path.dirname(process.execPath), '/usr/bin', '/bin'].join(
            ':',
          ),
          HOME: home,
          TMPDIR: path.join(root, 'tmp'),
          // The image's ENV, with absolute paths (the image's /) moved into the sandbox.
          ...Object.fromEntries(
            Object.entries(runtime.env).map(([key, value]) => [
              key,
              value.startsWith('/') ? path.join(root, value) : value,
            ]),
          ),
          ...env,
        },
        ...(asUser === undefined ? {} : { uid: asUser.uid, gid: asUser.gid }),
      });
    },
    remove,
  };
}

interface ReplayContext {
  root: string;
  context: string;
  /** Whether the build context sends a path (its `.dockerignore`). */
  sends: ContextFilter;
  roots: ReadonlyMap<string, string>;
  finished: ReadonlyMap<string, Promise<void>>;
  extraNpmInstallFlags: readonly string[];
}

async function replayStep(step: StageStep, ctx: ReplayContext): Promise<void> {
  const inRoot = (imagePath: string): string =>
    path.join(ctx.root, path.posix.resolve(step.workdir, imagePath));
  const cwd = inRoot('.');
  await mkdir(cwd, { recursive: true });
  if (step.kind === 'copy') {
    const fromRoot = step.from === undefined ? undefined : ctx.roots.get(step.from);
    await (step.from === undefined ? undefined : ctx.finished.get(step.from));
    if (step.from !== undefined && fromRoot === undefined)
      throw new Error(`COPY --from=${step.from}: no such earlier stage`);
    const intoDirectory = step.dest.endsWith('/') || step.sources.length > 1;
    for (const source of step.sources) {
      const from =
        fromRoot === undefined
          ? path.join(ctx.context, source)
          : path.join(fromRoot, path.posix.resolve('/', source));
      const isDirectory = (await lstat(from)).isDirectory();
      const to =
        intoDirectory && !isDirectory
          ? path.join(inRoot(step.dest), path.basename(source))
          : inRoot(step.dest);
      if (fromRoot !== undefined) {
        await cp(from, to, { recursive: true });
        continue;
      }
      // From the context: only what its .dockerignore lets BuildKit send; a source it holds back entirely
      // fails a real build ("not found"), so it fails here too.
      let sent = 0;
      await cp(from, to, {
        recursive: true,
        filter: async (file) => {
          if ((await lstat(file)).isDirectory()) return true;
          const kept = ctx.sends(path.relative(ctx.context, file).split(path.sep).join('/'));
          if (kept) sent++;
          return kept;
        },
      });
      if (sent === 0) throw new Error(`COPY ${source}: the build context's .dockerignore sends none of it`);
    }
    return;
  }
  const command = step.command;
  switch (command.kind) {
    case 'npm': {
      // The host's npm cache is shared with everything else; the image only drops its own copy.
      if (command.args[0] === 'cache') return;
      const installs = ['install', 'i', 'ci'].includes(command.args[0] ?? '');
      const args = [...command.args, ...(installs ? ctx.extraNpmInstallFlags : [])];
      await runToEnd('npm', args, cwd, step.env);
      return;
    }
    case 'chmod':
      for (const target of command.paths) await chmod(inRoot(target), command.mode);
      return;
    case 'symlink': {
      const link = inRoot(command.link);
      await mkdir(path.dirname(link), { recursive: true });
      await symlink(command.target.startsWith('/') ? inRoot(command.target) : command.target, link);
      return;
    }
    case 'mkdir':
      for (const target of command.paths) await mkdir(inRoot(target), { recursive: true });
      return;
    case 'chown':
      // Only root can give files away; a non-root host runs the image's processes as itself anyway.
      if (process.getuid?.() !== 0) return;
      for (const target of command.paths) await chown(inRoot(target), command.uid, command.gid);
      return;
    case 'find-delete':
      // The host's find, as the image's; the directory must be inside the sandbox's WORKDIR.
      if (path.isAbsolute(command.dir) || command.dir.split('/').includes('..'))
        throw new Error(`find ${command.dir}: only a directory under the WORKDIR is replayed`);
      await runToEnd('find', [command.dir, '-type', 'f', '-name', command.name, '-delete'], cwd, step.env);
      return;
  }
}

function describeStep(step: StageStep): string {
  if (step.kind === 'copy')
    return `COPY ${step.from === undefined ? '' : `--from=${step.from} `}${step.sources.join(' ')} ${step.dest}`;
  const { kind, ...args } = step.command;
  return `RUN ${kind} ${JSON.stringify(args)}`;
}

/** Throws when a directory above `dir` holds node_modules that module resolution could climb into. */
async function assertNoNodeModulesAbove(dir: string): Promise<void> {
  for (let parent = path.dirname(dir); ; parent = path.dirname(parent)) {
    const candidate = path.join(parent, 'node_modules');
    if (existsSync(candidate)) {
      throw new Error(
        `${candidate} exists above the sandbox ${dir}: the image's imports could resolve there`,
      );
    }
    if (parent === path.dirname(parent)) return;
  }
}

/** Runs a host tool (npm) with the host's environment minus npm_* settings, plus the stage's ENV. */
async function runToEnd(
  command: string,
  args: string[],
  cwd: string,
  stageEnv: Readonly<Record<string, string>>,
): Promise<void> {
  const hostEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  const child = startProcess(command, args, { cwd, env: { ...hostEnv, ...stageEnv } });
  const exit = await child.exited;
  if (exit.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) ended with ${JSON.stringify(exit)}:\n${child.stderr().slice(-4000)}\n${child.stdout().slice(-2000)}`,
    );
  }
}

function startProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; uid?: number; gid?: number },
): ImageProcess {
  const child = spawn(command, [...args], { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<ChildExit>((resolve, reject) => {
    child.once('error', (error) =>
      reject(
        new Error(`cannot start ${command} (not on PATH, or a dangling link?): ${error.message}`, {
          cause: error,
        }),
      ),
    );
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, exited, stdout: () => out, stderr: () => err };
}
