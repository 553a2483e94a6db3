/**
 * Runs `rocketmq-lambda dev` as a child process (from the TypeScript sources, as `npm run demo` does) and
 * lets a test wait for its JSON log lines.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** How long one awaited step may take. */
export const STEP_TIMEOUT_MS = 60_000;

/** One JSON log line of the child. */
export type Line = Record<string, unknown>;

/** Collects the child's stdout JSON lines and lets the test wait for one. */
export class LineWatch {
  readonly lines: Line[] = [];
  readonly raw: string[] = [];
  #waiters: { match: (line: Line) => boolean; resolve: (line: Line) => void }[] = [];

  constructor(child: ChildProcess) {
    if (child.stdout === null) throw new Error('no stdout');
    createInterface({ input: child.stdout }).on('line', (text) => {
      this.raw.push(text);
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        return; // not a JSON line (plain text is fine)
      }
      this.lines.push(line);
      this.#waiters = this.#waiters.filter((waiter) => {
        if (!waiter.match(line)) return true;
        waiter.resolve(line);
        return false;
      });
    });
  }

  waitFor(what: string, match: (line: Line) => boolean, timeoutMs = STEP_TIMEOUT_MS): Promise<Line> {
    const found = this.lines.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<Line>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`timed out waiting for ${what}; last lines:\n${this.raw.slice(-15).join('\n')}`));
      }, timeoutMs);
      this.#waiters.push({
        match,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  }
}

/** A running `dev` child. */
export interface DevProcess {
  readonly child: ChildProcess;
  readonly watch: LineWatch;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  /** What the child wrote to stderr so far. */
  stderr(): string;
  /** SIGKILLs the child if it still runs, and waits for it to exit. */
  kill(): Promise<void>;
}

/**
 * Spawns `node --import tsx src/cli/main.ts dev <args>` in the repository, with info-level JSON logs.
 * `env` is laid over this process's environment (an undefined value removes the variable).
 *
 * @example
 * ```ts
 * const dev = spawnDev(['--local-broker', '--state-dir', stateDir]);
 * cleanups.push(() => dev.kill());
 * await dev.watch.waitFor('dev to start', (l) => l.msg === 'dev started: watching handlers, Ctrl-C stops');
 * ```
 */
export function spawnDev(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): DevProcess {
  // Tests run side by side: the console on any free port unless the test says otherwise.
  const consoleArgs = args.some((arg) => arg.startsWith('--console-port') || arg === '--no-console')
    ? []
    : ['--console-port', '0'];
  return spawnScript('src/cli/main.ts', ['dev', ...args, ...consoleArgs], env);
}

/**
 * Spawns `node [nodeArgs] --import tsx <script> <args>` in the repository, with info-level JSON logs
 * unless `env` says otherwise; a `.mjs` script (`src/cli/demo-launch.mjs`, the demo as `npm run demo`
 * runs it) without tsx.
 */
export function spawnScript(
  script: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
  nodeArgs: readonly string[] = [],
): DevProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info' };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  const loader = script.endsWith('.mjs') ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, script, ...args], {
    cwd: REPO,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return {
    child,
    watch: new LineWatch(child),
    exited,
    stderr: () => stderr,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
