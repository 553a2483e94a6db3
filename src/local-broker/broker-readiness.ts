/**
 * When is a local broker ready: the name server lists it as master of `TBW102` (every broker registers
 * that auto-create template at boot). Polls without sleeps beyond a short interval, fails fast when a
 * JVM exits, nudges a broker that booted but did not register, and reports the JVMs' last output (with
 * secrets masked) when something goes wrong.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { RequestCode } from '../protocol/request-code.js';
import type { Logger } from '../util/logger.js';
import { settlesWithin } from '../util/settles-within.js';
import type { JvmProcess } from './jvm-process.js';
import { LocalBrokerError } from './local-broker-error.js';
import { oneShotRequest, type ProbeConnectOptions, probeTopicRoute } from './route-probe.js';
import { tailLines } from './run-command.js';

/** The topic every broker registers at start (auto-create template): its route proves registration. */
const READINESS_TOPIC = 'TBW102';
const POLL_INTERVAL_MS = 200;
const PROBE_TIMEOUT_MS = 3000;
/** After the broker's boot line, wait this long for its own registration before nudging it. */
const NUDGE_AFTER_BOOT_MS = 1500;
const NUDGE_INTERVAL_MS = 2000;
const LOG_TAIL_LINES = 40;
const MASK = '***';

/**
 * The broker a readiness check looks for, and how to reach the servers.
 */
export interface RegistrationTarget {
  namesrvAddr: string;
  brokerAddr: string;
  brokerName: string;
  /** The id the broker registers under: 0 for a master, 1.. for its slaves. @default 0 */
  brokerId?: number | undefined;
  /** The broker's `brokerPermission`, re-sent unchanged by the nudge. */
  brokerPermission: string;
  /** TLS options and ACL credentials of the probes. */
  connect: ProbeConnectOptions;
  log: Logger;
}

/**
 * The name server JVM a readiness check fails fast on: one JVM, or (a cluster's name server, which can be
 * stopped on purpose: cluster-namesrv.ts) a function giving the JVMs meant to run at each poll.
 */
export type NamesrvWatch = JvmProcess | (() => readonly JvmProcess[]);

/**
 * A JVM exited while we waited for readiness.
 */
export class JvmExitedError extends LocalBrokerError {
  constructor(jvm: JvmProcess) {
    const status = jvm.exitStatus;
    super(
      `the ${jvm.name} JVM exited early (exit code ${String(status?.exitCode ?? null)}, signal ${String(status?.signal ?? null)})`,
    );
  }
}

/**
 * The condition did not hold before the deadline; `cause` is the last probe error, if any.
 */
export class ReadinessTimeoutError extends LocalBrokerError {}

/**
 * Resolves once the name server lists `target.brokerAddr` under `target.brokerId` (the master by default)
 * of `target.brokerName`. A broker that
 * booted (its "boot success" line) but is not listed 1.5 s later gets `brokerPermission` re-set, which
 * makes it register at once. Rejects with {@link JvmExitedError} when a JVM exits, with
 * {@link ReadinessTimeoutError} at `deadline`.
 */
export async function waitForRegistration(
  target: RegistrationTarget,
  namesrv: NamesrvWatch,
  broker: JvmProcess,
  deadline: number,
): Promise<void> {
  let bootSeenAt: number | undefined;
  let lastNudgeAt = 0;
  await waitUntil(
    () => [...watchedNamesrv(namesrv), broker],
    deadline,
    async () => {
      if (await isRegistered(target)) return true;
      // The broker registers once at boot, but only with name servers its client has already found
      // reachable (NettyRemotingClient.getAvailableNameSrvList, filled by an async scan): losing that
      // race means no route until the periodic registration 10 s later. Re-setting brokerPermission
      // makes it register at once (AdminBrokerProcessor.updateBrokerConfig).
      bootSeenAt ??= broker.outputTail().includes('boot success') ? Date.now() : undefined;
      const now = Date.now();
      if (
        bootSeenAt !== undefined &&
        now - bootSeenAt >= NUDGE_AFTER_BOOT_MS &&
        now - lastNudgeAt >= NUDGE_INTERVAL_MS
      ) {
        lastNudgeAt = now;
        target.log.debug(
          { brokerAddr: target.brokerAddr },
          'broker not in the route yet; asking it to register',
        );
        await askToRegister(target);
      }
      return false;
    },
  );
}

/**
 * Makes a running broker register with the name server now, by re-setting its `brokerPermission`
 * (AdminBrokerProcessor.updateBrokerConfig registers at once). A slave learns its master's HA address
 * from the registration's answer, so this also starts replication without waiting for the periodic
 * registration.
 */
export async function askToRegister(target: RegistrationTarget): Promise<void> {
  await oneShotRequest(
    target.brokerAddr,
    {
      code: RequestCode.UPDATE_BROKER_CONFIG,
      extFields: {},
      body: Buffer.from(`brokerPermission=${target.brokerPermission}\n`),
    },
    PROBE_TIMEOUT_MS,
    target.connect,
  );
}

/**
 * Resolves once the name server no longer lists the broker: it drops a broker whose connection closed
 * (killed) or that unregistered (stopped). Waiting for this before starting a new broker JVM makes the
 * next {@link waitForRegistration} prove that the new JVM registered, not the old one.
 */
export async function waitForDeregistration(
  target: RegistrationTarget,
  namesrv: NamesrvWatch,
  deadline: number,
): Promise<void> {
  await waitUntil(
    () => watchedNamesrv(namesrv),
    deadline,
    async () => !(await isRegistered(target)),
  );
}

function watchedNamesrv(namesrv: NamesrvWatch): readonly JvmProcess[] {
  return typeof namesrv === 'function' ? namesrv() : [namesrv];
}

async function isRegistered(target: RegistrationTarget): Promise<boolean> {
  const { route } = await probeTopicRoute(target.namesrvAddr, READINESS_TOPIC, {
    ...target.connect,
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  return (
    route?.brokerDatas.some(
      (data) =>
        data.brokerName === target.brokerName &&
        data.brokerAddrs[String(target.brokerId ?? 0)] === target.brokerAddr,
    ) ?? false
  );
}

/**
 * Polls `check` until it returns true; fails fast when any of the JVMs `jvms()` lists (asked at each
 * poll: a name server stopped on purpose is not listed) exits, and at `deadline`. A check that throws
 * (connection refused while the JVM boots) counts as "not yet".
 */
async function waitUntil(
  jvms: () => readonly JvmProcess[],
  deadline: number,
  check: () => Promise<boolean>,
): Promise<void> {
  let lastError: unknown;
  while (Date.now() < deadline) {
    const watched = jvms();
    const dead = watched.find((jvm) => jvm.exitStatus !== undefined);
    if (dead) throw new JvmExitedError(dead);
    try {
      if (await check()) return;
    } catch (err) {
      lastError = err;
    }
    const firstExit = Promise.race(watched.map((jvm) => jvm.exited.then(() => jvm)));
    if (await settlesWithin(firstExit, POLL_INTERVAL_MS)) {
      const exited = await firstExit;
      if (jvms().includes(exited)) throw new JvmExitedError(exited);
    }
  }
  throw new ReadinessTimeoutError('not ready before the deadline', { cause: lastError });
}

/**
 * The last output of each JVM and the last lines of the given log files, for an error message, with
 * every secret replaced by `***` (the broker logs its configuration, ACL users included).
 */
export async function describeJvms(
  jvms: readonly JvmProcess[],
  logFiles: Readonly<Record<string, string>>,
  secrets: readonly string[],
): Promise<string> {
  const parts: string[] = [];
  for (const jvm of jvms) {
    const output = jvm.outputTail(LOG_TAIL_LINES);
    parts.push(`--- ${jvm.name} stdout/stderr ---\n${output === '' ? '(nothing)' : output}`);
  }
  for (const [name, path] of Object.entries(logFiles)) {
    if (!existsSync(path)) continue;
    try {
      parts.push(
        `--- ${name} (last ${LOG_TAIL_LINES} lines) ---\n${tailLines(await readFile(path, 'utf8'), LOG_TAIL_LINES)}`,
      );
    } catch (err) {
      parts.push(`--- ${name}: unreadable (${String(err)}) ---`);
    }
  }
  return maskSecrets(parts.join('\n'), secrets);
}

/**
 * `text` with every occurrence of each non-empty secret replaced by `***`.
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets) {
    if (secret !== '') masked = masked.split(secret).join(MASK);
  }
  return masked;
}
