/**
 * A local RocketMQ kept up between dev sessions, so that the next `npm run demo` (or `rocketmq-lambda
 * dev --local-broker --keep-broker <minutes>`) skips the JVMs' boot: like Gradle's daemon, the broker
 * runs in a process of its own (kept-broker-host.ts, detached from the terminal) and stops by itself
 * once no session has held it for the idle time. Its files (kept-broker-files.ts) live in one directory.
 *
 * A session takes it with {@link startKeptBroker}: it holds the lease first (so a host reading it from
 * then on keeps its broker), reuses the running broker when the host is alive, runs the same RocketMQ
 * version and its name server still routes the broker, and otherwise stops a stale host and starts a new
 * one. While the session runs it renews the lease; {@link KeptBroker.release} leaves the broker up for
 * the idle time. A second session while the first holds it gets {@link KeptBrokerInUseError} (two
 * sessions of one service would split its queues). {@link stopKeptBroker} stops it at once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describeError } from '../util/describe-error.js';
import type { Logger } from '../util/logger.js';
import { isProcessAlive } from '../util/process-alive.js';
import { markStartupPhase } from '../util/startup-timeline.js';
import { selectedBrokerVersion } from './broker-version.js';
import {
  KEPT_BROKER_FILES,
  type KeptBrokerLease,
  type KeptBrokerState,
  keptBrokerLeaseSchema,
  keptBrokerPath,
  keptBrokerStateSchema,
  readKeptBrokerFile,
  removeKeptBrokerFile,
  writeKeptBrokerFile,
} from './kept-broker-files.js';
import { LocalBrokerError } from './local-broker-error.js';
import { probeTopicRoute } from './route-probe.js';

/** A session renews its lease this often. */
const RENEW_MS = 5_000;
/** While a session holds the broker, the lease runs at least this far ahead (several renewals). */
const HELD_LEASE_MS = 30_000;
/** A new broker's start (jars cached) may take this long on a loaded machine. @see KeptBrokerOptions */
const DEFAULT_START_TIMEOUT_MS = 120_000;
/** A stopping host gets this long (its broker's graceful stop) before SIGKILL. */
const HOST_STOP_GRACE_MS = 30_000;
/** The probe of a kept broker's name server: loopback answers in milliseconds. */
const PROBE_TIMEOUT_MS = 1_000;
/** How often the start waits for `state.json`. */
const READY_POLL_MS = 25;
/** The tail of host.log put into an error (bytes). */
const HOST_LOG_TAIL_BYTES = 4096;
/** The topic every broker of a local RocketMQ registers (autoCreateTopicEnable): its route lists the broker. */
const DEFAULT_TOPIC = 'TBW102';

/** Options of {@link startKeptBroker}. */
export interface KeptBrokerOptions {
  /** The kept broker's directory (absolute; created when missing). */
  readonly dir: string;
  /** How long the broker stays up after the last session left it. */
  readonly idleMs: number;
  readonly log: Logger;
  /** Give up on a new broker after this long. @default 120 000 */
  readonly startTimeoutMs?: number;
}

/** A kept broker a session holds. */
export interface KeptBroker {
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  readonly brokerName: string;
  readonly clusterName: string;
  /** The pid of the host process (kept-broker-host.ts). */
  readonly hostPid: number;
  /** True when a broker an earlier session left was taken; false when this session started it. */
  readonly reused: boolean;
  /** namesrv.log and broker.log. */
  readonly logDir: string;
  /** How long the broker stays up after {@link KeptBroker.release}. */
  readonly idleMs: number;
  /** Stops renewing the lease and leaves the broker up for the idle time. Idempotent. */
  release(): Promise<void>;
}

/** {@link startKeptBroker} in two steps: whether it reuses is known before a new broker has booted. */
export interface KeptBrokerStart {
  /** Resolves once it is known whether a kept broker is taken (true) or a new one starts (false). */
  readonly reused: Promise<boolean>;
  /** The broker, once it is ready. */
  readonly ready: Promise<KeptBroker>;
}

/** Another live session holds the kept broker. */
export class KeptBrokerInUseError extends LocalBrokerError {
  /** The pid of the session that holds it. */
  readonly holder: number;

  constructor(dir: string, holder: number) {
    super(`the kept local broker in ${dir} is in use by another session (pid ${holder})`);
    this.holder = holder;
  }
}

/**
 * Takes the kept broker in `options.dir`, or starts one there.
 */
export function startKeptBroker(options: KeptBrokerOptions): KeptBrokerStart {
  const decision = decide(options);
  const ready = decision.then(async (reuse) => {
    const leaseFile = keptBrokerPath(options.dir, 'lease');
    try {
      const state = reuse ?? (await startHost(options));
      markStartupPhase(
        reuse === undefined ? 'local broker: kept one started (ready)' : 'local broker: kept one taken',
      );
      return holdBroker(options, state, reuse !== undefined);
    } catch (error) {
      // Nobody holds it: a host that did start stops at its next look at the lease.
      await writeKeptBrokerFile(leaseFile, { version: 1, until: 0 }).catch(() => undefined);
      throw error;
    }
  });
  const reused = decision.then((reuse) => reuse !== undefined);
  // Either is awaited by the caller; the other must not count as unhandled.
  reused.catch(() => undefined);
  ready.catch(() => undefined);
  return { reused, ready };
}

/**
 * Stops the kept broker in `dir` now (SIGTERM to its host, which stops the JVMs): resolves with its
 * name server address, or undefined when none was running.
 */
export async function stopKeptBroker(dir: string): Promise<string | undefined> {
  const state = await readKeptBrokerFile(keptBrokerPath(dir, 'state'), keptBrokerStateSchema);
  await writeKeptBrokerFile(keptBrokerPath(dir, 'lease'), { version: 1, until: 0 });
  if (state.value === undefined || !isProcessAlive(state.value.hostPid)) return undefined;
  await stopHost(state.value.hostPid);
  return state.value.namesrvAddr;
}

/** Holds the lease, then finds a kept broker to reuse (undefined: a new one must start). */
async function decide(options: KeptBrokerOptions): Promise<KeptBrokerState | undefined> {
  const { dir, log } = options;
  await mkdir(dir, { recursive: true });
  const leaseFile = keptBrokerPath(dir, 'lease');
  const lease = await readKeptBrokerFile(leaseFile, keptBrokerLeaseSchema);
  const holder = lease.value?.holder;
  if (
    holder !== undefined &&
    holder !== process.pid &&
    isProcessAlive(holder) &&
    (lease.value?.until ?? 0) > Date.now()
  ) {
    throw new KeptBrokerInUseError(dir, holder);
  }
  if (lease.problem !== undefined)
    log.warn({ problem: lease.problem }, 'kept broker lease unreadable: replacing it');
  // Held before anything else: a host that reads the lease from now on keeps its broker up.
  await writeLease(leaseFile, {
    version: 1,
    until:
      Date.now() +
      Math.max(options.idleMs, HELD_LEASE_MS) +
      (options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS),
    holder: process.pid,
  });
  const stateFile = keptBrokerPath(dir, 'state');
  const state = await readKeptBrokerFile(stateFile, keptBrokerStateSchema);
  if (state.problem !== undefined)
    log.warn({ problem: state.problem }, 'kept broker state unreadable: starting a new broker');
  if (state.value !== undefined) {
    const unusable = await whyUnusable(state.value);
    if (unusable === undefined) return state.value;
    log.info({ namesrvAddr: state.value.namesrvAddr, reason: unusable }, 'not reusing the kept local broker');
    if (isProcessAlive(state.value.hostPid)) await stopHost(state.value.hostPid);
  }
  await removeKeptBrokerFile(stateFile);
  return undefined;
}

/** Why a kept broker cannot be taken, or undefined when it can. */
async function whyUnusable(state: KeptBrokerState): Promise<string | undefined> {
  if (!isProcessAlive(state.hostPid)) return `its host (pid ${state.hostPid}) is gone`;
  const wanted = selectedBrokerVersion().name;
  if (state.rocketmqVersion !== wanted)
    return `it runs RocketMQ ${state.rocketmqVersion}, this session wants ${wanted}`;
  try {
    const probe = await probeTopicRoute(state.namesrvAddr, DEFAULT_TOPIC, { timeoutMs: PROBE_TIMEOUT_MS });
    const routed = probe.route?.brokerDatas.some(
      (broker) => broker.brokerName === state.brokerName && broker.brokerAddrs['0'] === state.brokerAddr,
    );
    return routed === true
      ? undefined
      : `its name server does not route ${state.brokerName} at ${state.brokerAddr}`;
  } catch (error) {
    return `its name server at ${state.namesrvAddr} does not answer: ${describeError(error)}`;
  }
}

/**
 * The node flags that run a TypeScript host from the sources: the dev loop's TypeScript loader, found
 * from this file (an optional package: only the sources, which the dev loop's install brings, use it).
 */
function typeScriptLoaderFlags(): string[] {
  return ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];
}

/** Starts a host process and resolves with its state once its broker is ready. */
async function startHost(options: KeptBrokerOptions): Promise<KeptBrokerState> {
  const { dir, log } = options;
  // The path, not the URL: in the demo's bundle the URL carries a fragment (src/dev/demo-bundle.mjs).
  const fromTypeScript = fileURLToPath(import.meta.url).endsWith('.ts');
  const script = fileURLToPath(
    new URL(`./kept-broker-host.${fromTypeScript ? 'ts' : 'js'}`, import.meta.url),
  );
  const hostLog = keptBrokerPath(dir, 'hostLog');
  const out = openSync(hostLog, 'w');
  let child: ChildProcess;
  try {
    child = spawn(
      process.execPath,
      [...(fromTypeScript ? typeScriptLoaderFlags() : []), script, JSON.stringify({ dir })],
      {
        // The package root, so the host's relative paths mean what ours do.
        cwd: fileURLToPath(new URL('../../', import.meta.url)),
        // Its own session: a terminal's Ctrl-C or hang-up does not reach it; it outlives this process.
        detached: true,
        stdio: ['ignore', out, out],
        env: { ...process.env, LOG_LEVEL: 'info' },
      },
    );
  } finally {
    closeSync(out);
  }
  const pid = child.pid;
  if (pid === undefined) {
    throw new LocalBrokerError(
      `could not start the kept local broker's host (${process.execPath} ${script})`,
    );
  }
  log.info({ hostPid: pid, dir }, 'starting a kept local broker');
  let exit: string | undefined;
  child.once('exit', (code, signal) => {
    exit = signal === null ? `exit code ${code}` : `signal ${signal}`;
  });
  const deadline = Date.now() + (options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  try {
    for (;;) {
      const state = await readKeptBrokerFile(keptBrokerPath(dir, 'state'), keptBrokerStateSchema);
      if (state.value?.hostPid === pid) return state.value;
      if (exit !== undefined) {
        throw new LocalBrokerError(
          `the kept local broker's host ended (${exit}) before its broker was ready: ${hostFailure(await fileTail(hostLog))} (its log: ${hostLog})`,
        );
      }
      if (Date.now() > deadline) {
        child.kill('SIGTERM');
        throw new LocalBrokerError(
          `the kept local broker was not ready within ${(options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS) / 1000} s; the end of ${hostLog}:\n${await fileTail(hostLog)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
    }
  } finally {
    child.unref();
  }
}

/** Renews the lease until released. */
async function holdBroker(
  options: KeptBrokerOptions,
  state: KeptBrokerState,
  reused: boolean,
): Promise<KeptBroker> {
  const leaseFile = keptBrokerPath(options.dir, 'lease');
  const renew = (): Promise<void> =>
    writeLease(leaseFile, {
      version: 1,
      until: Date.now() + Math.max(options.idleMs, HELD_LEASE_MS),
      holder: process.pid,
    });
  await renew();
  const renewal = setInterval(() => {
    renew().catch((error: unknown) =>
      options.log.warn({ err: error }, 'could not renew the kept broker lease'),
    );
  }, RENEW_MS);
  renewal.unref();
  let released: Promise<void> | undefined;
  return {
    namesrvAddr: state.namesrvAddr,
    brokerAddr: state.brokerAddr,
    brokerName: state.brokerName,
    clusterName: state.clusterName,
    hostPid: state.hostPid,
    reused,
    logDir: path.join(options.dir, KEPT_BROKER_FILES.brokerLogs),
    idleMs: options.idleMs,
    release() {
      released ??= (async () => {
        clearInterval(renewal);
        await writeLease(leaseFile, { version: 1, until: Date.now() + options.idleMs });
      })();
      return released;
    },
  };
}

function writeLease(file: string, lease: KeptBrokerLease): Promise<void> {
  return writeKeptBrokerFile(file, lease);
}

/** SIGTERM to a host, SIGKILL after {@link HOST_STOP_GRACE_MS}; resolves once it is gone. */
async function stopHost(pid: number): Promise<void> {
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(pid, name);
    } catch {
      // Gone already.
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + HOST_STOP_GRACE_MS;
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) {
      // Its JVMs' watchdogs kill them once it is gone.
      signal('SIGKILL');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * What a failed host said: the message of the last error among its JSON log lines
 * (kept-broker-host.ts logs its failure so), else the log's last lines as they are.
 */
export function hostFailure(logTail: string): string {
  const lines = logTail.split('\n').filter((line) => line.trim() !== '');
  for (const line of lines.reverse()) {
    try {
      const entry = JSON.parse(line) as { level?: unknown; msg?: unknown };
      if (typeof entry.level === 'number' && entry.level >= 50 && typeof entry.msg === 'string')
        return entry.msg;
    } catch {
      // Not a log line of the host's (a JVM's or node's own output).
    }
  }
  return lines.reverse().slice(-10).join('\n') || 'it wrote nothing';
}

/** The last {@link HOST_LOG_TAIL_BYTES} of `file` ('' when unreadable). */
async function fileTail(file: string): Promise<string> {
  try {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, HOST_LOG_TAIL_BYTES);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      return buffer.toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return '';
  }
}
