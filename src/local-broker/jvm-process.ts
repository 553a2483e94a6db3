/**
 * A long-running JVM child (namesrv or broker) that cannot outlive us: its output is kept (last
 * lines) for error messages, `stop()` sends SIGTERM then SIGKILL after a grace period (`kill()`
 * sends SIGKILL at once), and a tiny `sh` watchdog kills it when our process dies in any way (even
 * SIGKILL), because the watchdog reads a pipe from us and sees end-of-file when we are gone.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { componentLogger, type Logger } from '../util/logger.js';
import { settlesWithin } from '../util/settles-within.js';

const OUTPUT_LINES_KEPT = 200;

/** How a JVM ended. */
export interface JvmExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of {@link spawnJvm}. */
export interface SpawnJvmOptions {
  /** Short name for logs and errors (`namesrv`, `broker`). */
  name: string;
  /** Everything after `java`: JVM flags, `-cp`, main class, program arguments. */
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A directory the watchdog removes after killing the JVM when our process died without stop(). */
  removeDirIfOrphaned?: string | undefined;
  log?: Logger | undefined;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
}

/**
 * A started JVM. Create with {@link spawnJvm}.
 */
export class JvmProcess {
  readonly name: string;
  /** Resolves when the JVM has exited (never rejects). */
  readonly exited: Promise<JvmExit>;
  private readonly child: ChildProcess;
  private readonly watchdog: ChildProcess;
  private readonly outputLines: string[] = [];
  private partialLine = '';
  private exit: JvmExit | undefined;
  private readonly log: Logger;

  /** @internal use {@link spawnJvm} */
  constructor(options: SpawnJvmOptions) {
    this.name = options.name;
    this.log = options.log ?? componentLogger('local-broker.jvm');
    installExitHook();
    this.child = spawn('java', [...options.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a terminal Ctrl-C (sent to our whole group) must not stop the broker
      // while the poller still shuts down gracefully against it; we stop it ourselves, and the watchdog
      // kills it if we die.
      detached: true,
    });
    live.add(this.child);
    this.child.stdout?.on('data', (chunk: Buffer) => this.collect(chunk));
    this.child.stderr?.on('data', (chunk: Buffer) => this.collect(chunk));
    this.exited = new Promise<JvmExit>((resolve) => {
      this.child.on('error', (err) => {
        this.collect(Buffer.from(`spawn failed: ${err.message}\n`));
      });
      this.child.on('close', (exitCode, signal) => {
        live.delete(this.child);
        this.exit = { exitCode, signal };
        this.stopWatchdog();
        resolve(this.exit);
      });
    });
    this.watchdog = spawnWatchdog(this.child.pid, options.removeDirIfOrphaned);
  }

  /** The JVM's process id (undefined when spawning failed). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How the JVM ended, once it has. */
  get exitStatus(): JvmExit | undefined {
    return this.exit;
  }

  /** The last lines the JVM wrote to stdout/stderr. */
  outputTail(maxLines = 50): string {
    const lines = this.partialLine === '' ? this.outputLines : [...this.outputLines, this.partialLine];
    return lines.slice(Math.max(0, lines.length - maxLines)).join('\n');
  }

  /**
   * Stops the JVM: SIGTERM, then SIGKILL when it has not exited after `graceMs`. Resolves when it
   * has exited. Safe to call more than once.
   */
  async stop(graceMs: number): Promise<JvmExit> {
    // The watchdog stays armed until the JVM has exited: should we die during the grace period, it
    // still kills the JVM (it is disarmed in the 'close' handler).
    if (this.exit) return this.exit;
    this.child.kill('SIGTERM');
    if (!(await settlesWithin(this.exited, graceMs))) {
      this.log.debug(
        { jvm: this.name, pid: this.pid, graceMs },
        'JVM still running after SIGTERM, sending SIGKILL',
      );
      this.child.kill('SIGKILL');
    }
    return this.exited;
  }

  /**
   * Kills the JVM with SIGKILL at once, as a crash or an OOM kill would: no shutdown hook runs, nothing
   * is flushed. Resolves when it has exited. Safe to call more than once.
   */
  async kill(): Promise<JvmExit> {
    if (this.exit) return this.exit;
    this.child.kill('SIGKILL');
    return this.exited;
  }

  private stopWatchdog(): void {
    if (this.watchdog.exitCode === null && this.watchdog.signalCode === null) this.watchdog.kill('SIGKILL');
  }

  private collect(chunk: Buffer): void {
    const text = this.partialLine + chunk.toString('utf8');
    const lines = text.split('\n');
    this.partialLine = lines.pop() ?? '';
    for (const line of lines) {
      this.outputLines.push(line);
      if (this.outputLines.length > OUTPUT_LINES_KEPT) this.outputLines.shift();
    }
  }
}

/**
 * Spawns `java` with the given arguments, with output capture and an orphan watchdog.
 */
export function spawnJvm(options: SpawnJvmOptions): JvmProcess {
  return new JvmProcess(options);
}

/**
 * `sh` reads its stdin, a pipe whose only writer is this process. When we die the read returns and
 * the shell SIGKILLs the JVM (and removes its directory). A signal to our whole process group (a
 * terminal's Ctrl-C or close, `kill -- -<pgid>`, a supervisor stopping the group) must not reach it: a
 * watchdog that died with us would leave the JVM running, orphaned (its own group, see the constructor).
 * So it runs in a session and group of its own (detached), and also ignores SIGINT, SIGTERM and SIGHUP;
 * the trap alone left a window: a signal in the first moments, before `sh` had run it, killed the
 * watchdog (test/integration/local-broker-watchdog.test.ts met it under load). It is disarmed with
 * SIGKILL when the JVM exits.
 */
function spawnWatchdog(pid: number | undefined, removeDir: string | undefined): ChildProcess {
  const script =
    'trap "" INT TERM HUP; read -r _line; kill -9 "$1" 2>/dev/null; ' +
    'if [ -n "$2" ]; then sleep 1; rm -rf -- "$2"; fi';
  const watchdog = spawn(
    'sh',
    ['-c', script, 'rocketmq-lambda-watchdog', String(pid ?? ''), removeDir ?? ''],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    },
  );
  watchdog.on('error', (err) => {
    componentLogger('local-broker.jvm').warn({ err }, 'could not start the JVM watchdog');
  });
  watchdog.unref();
  const stdin = watchdog.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null;
  stdin?.unref?.();
  stdin?.on('error', (err: Error) => {
    componentLogger('local-broker.jvm').debug({ err }, 'watchdog pipe closed');
  });
  if (pid === undefined) watchdog.kill('SIGKILL');
  return watchdog;
}
