/**
 * A real RocketMQ 5.3.3 (one namesrv, one broker) on loopback, for integration tests and
 * `rocketmq-lambda dev --local-broker`: fresh temp directory and free ports per start, small heap
 * and mapped files, readiness by asking the namesrv for the broker's route (no sleeps), and JVMs
 * that never outlive the Node process.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { componentLogger, type Logger } from '../util/logger.js';
import {
  type BrokerConfigValues,
  brokerConfig,
  logbackConfig,
  namesrvConfig,
  toPropertiesText,
} from './broker-config.js';
import { findBrokerPorts } from './free-ports.js';
import { assertJavaAvailable, JAVA_MODULE_FLAGS } from './java-runtime.js';
import { type JvmProcess, spawnJvm } from './jvm-process.js';
import { LocalBrokerError } from './local-broker-error.js';
import { ensureRocketMQJars } from './rocketmq-jars.js';
import { oneShotRequest, probeTopicRoute } from './route-probe.js';
import { tailLines } from './run-command.js';

const NAMESRV_MAIN = 'org.apache.rocketmq.namesrv.NamesrvStartup';
const BROKER_MAIN = 'org.apache.rocketmq.broker.BrokerStartup';
/** The topic every broker registers at start (auto-create template): its route proves registration. */
const READINESS_TOPIC = 'TBW102';
/** RequestCode.UPDATE_BROKER_CONFIG: setting `brokerPermission` makes the broker register at once. */
const UPDATE_BROKER_CONFIG = 25;
const POLL_INTERVAL_MS = 200;
const PROBE_TIMEOUT_MS = 3000;
/** After the broker's boot line, wait this long for its own registration before nudging it. */
const NUDGE_AFTER_BOOT_MS = 1500;
const NUDGE_INTERVAL_MS = 2000;
const MAX_START_ATTEMPTS = 3;
const LOG_TAIL_LINES = 40;

/** Options of {@link startLocalBroker}; every field is optional. */
export interface LocalBrokerOptions {
  /** Broker properties that win over the test defaults (e.g. `{ maxMessageSize: 4194304 }`). */
  brokerConfig?: BrokerConfigValues;
  /** Broker max heap in MiB. @default 512 */
  heapMb?: number;
  /** Where namesrv.log and broker.log go; kept after stop() when given. @default `<temp dir>/logs` */
  logDir?: string;
  log?: Logger;
  /** @default 'broker-a' */
  brokerName?: string;
  /** @default 'DefaultCluster' */
  clusterName?: string;
  /** Give up waiting for the broker's route after this long. @default 90_000 */
  readyTimeoutMs?: number;
  /** SIGTERM-to-SIGKILL grace in stop(); the store is thrown away, so keep it short. @default 3000 */
  stopGraceMs?: number;
  /** Jar cache directory. @default {@link defaultRocketMQCacheDir}() */
  cacheDir?: string;
  /** More JVM flags for both JVMs, after ours (e.g. `['-XX:+UseSerialGC']`). @default [] */
  extraJvmOptions?: readonly string[];
}

/** A running local RocketMQ. */
export interface LocalBroker {
  /** `127.0.0.1:<port>` of the name server. */
  namesrvAddr: string;
  /** `127.0.0.1:<port>` of the broker master (what routes list under id 0). */
  brokerAddr: string;
  brokerName: string;
  clusterName: string;
  /** The broker's store root (inside the temp directory). */
  storeDir: string;
  /** The temp directory (ROCKETMQ_HOME and user.home of both JVMs); removed by stop(). */
  homeDir: string;
  /** Where namesrv.log and broker.log are written. */
  logDir: string;
  /** Stops both JVMs (SIGTERM, SIGKILL after the grace period) and removes the temp directory. */
  stop(): Promise<void>;
}

interface ResolvedOptions {
  overrides: BrokerConfigValues | undefined;
  heapMb: number;
  logDir: string | undefined;
  log: Logger;
  brokerName: string;
  clusterName: string;
  readyTimeoutMs: number;
  stopGraceMs: number;
  cacheDir: string | undefined;
  extraJvmOptions: readonly string[];
}

/**
 * Starts a namesrv and a broker on free loopback ports and resolves once the namesrv lists the broker
 * in the route of `TBW102`. Fetches the jars with Maven on first use (cached afterwards). Throws
 * {@link LocalBrokerError} when Java/Maven are missing, a JVM exits early, or readiness times out
 * (with the tail of both logs).
 *
 * @example
 * ```ts
 * const broker = await startLocalBroker({ brokerConfig: { maxMessageSize: 4194304 } });
 * try {
 *   console.log(broker.namesrvAddr, broker.brokerAddr);
 * } finally {
 *   await broker.stop();
 * }
 * ```
 */
export async function startLocalBroker(options: LocalBrokerOptions = {}): Promise<LocalBroker> {
  const resolved: ResolvedOptions = {
    overrides: options.brokerConfig,
    heapMb: options.heapMb ?? 512,
    logDir: options.logDir,
    log: options.log ?? componentLogger('local-broker'),
    brokerName: options.brokerName ?? 'broker-a',
    clusterName: options.clusterName ?? 'DefaultCluster',
    readyTimeoutMs: options.readyTimeoutMs ?? 90_000,
    stopGraceMs: options.stopGraceMs ?? 3000,
    cacheDir: options.cacheDir,
    extraJvmOptions: options.extraJvmOptions ?? [],
  };
  await assertJavaAvailable();
  const jars = await ensureRocketMQJars({ cacheDir: resolved.cacheDir, log: resolved.log });
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(jars.classpath, resolved);
    } catch (err) {
      const portClash = err instanceof LocalBrokerError && /Address already in use/i.test(err.message);
      if (!portClash || attempt >= MAX_START_ATTEMPTS) throw err;
      resolved.log.warn({ attempt }, 'a local broker port was taken meanwhile; retrying with new ports');
    }
  }
}

async function startOnce(classpath: string, options: ResolvedOptions): Promise<LocalBroker> {
  const startedAt = Date.now();
  const homeDir = await mkdtemp(join(tmpdir(), 'rocketmq-lambda-broker-'));
  const confDir = join(homeDir, 'conf');
  const storeDir = join(homeDir, 'store');
  const logDir = options.logDir ?? join(homeDir, 'logs');
  await Promise.all([mkdir(confDir), mkdir(storeDir), mkdir(logDir, { recursive: true })]);

  const { namesrvPort, brokerPort } = await findBrokerPorts();
  const namesrvAddr = `127.0.0.1:${namesrvPort}`;
  const brokerAddr = `127.0.0.1:${brokerPort}`;
  const files = {
    namesrvConf: join(confDir, 'namesrv.properties'),
    brokerConf: join(confDir, 'broker.conf'),
    namesrvLogback: join(confDir, 'namesrv.logback.xml'),
    brokerLogback: join(confDir, 'broker.logback.xml'),
    namesrvLog: join(logDir, 'namesrv.log'),
    brokerLog: join(logDir, 'broker.log'),
  };
  const config = brokerConfig({
    clusterName: options.clusterName,
    brokerName: options.brokerName,
    brokerPort,
    namesrvAddr,
    storeDir,
    overrides: options.overrides,
  });
  await Promise.all([
    writeFile(files.namesrvConf, toPropertiesText(namesrvConfig(namesrvPort, homeDir))),
    writeFile(files.brokerConf, toPropertiesText(config)),
    writeFile(files.namesrvLogback, logbackConfig(files.namesrvLog)),
    writeFile(files.brokerLogback, logbackConfig(files.brokerLog)),
  ]);

  const env: NodeJS.ProcessEnv = { ...process.env, ROCKETMQ_HOME: homeDir };
  delete env.NAMESRV_ADDR;
  const jvmArgs = (heapMb: number, logback: string): string[] => [
    `-Xms${Math.min(256, heapMb)}m`,
    `-Xmx${heapMb}m`,
    '-XX:MaxDirectMemorySize=512m',
    '-XX:-UsePerfData',
    // C1 only: boots in about half the time on 2 cores; pass -XX:TieredStopAtLevel=4 in
    // extraJvmOptions for benchmarks.
    '-XX:TieredStopAtLevel=1',
    // TLS "permissive" (the default) builds a self-signed certificate at start: ~10 s on a small box.
    '-Dtls.server.mode=disabled',
    ...JAVA_MODULE_FLAGS,
    `-Duser.home=${homeDir}`,
    `-Drocketmq.home.dir=${homeDir}`,
    `-Drmq.logback.configurationFile=${logback}`,
    ...options.extraJvmOptions,
    '-cp',
    classpath,
  ];

  const jvms: JvmProcess[] = [];
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      await Promise.all(jvms.map((jvm) => jvm.stop(options.stopGraceMs)));
      await rm(homeDir, { recursive: true, force: true });
    })();
    return stopped;
  };
  const failure = async (what: string, cause?: unknown): Promise<LocalBrokerError> => {
    const report = await describeJvms(jvms, files);
    await stop();
    return new LocalBrokerError(`${what}\n${report}`, { cause });
  };

  // Both JVMs start at once: the broker registers ~5 s into its boot, by when the namesrv (quicker to
  // boot) listens; should it not, registerNameServerPeriod (10 s) makes the broker try again soon.
  try {
    const namesrv = spawnJvm({
      name: 'namesrv',
      args: [...jvmArgs(256, files.namesrvLogback), NAMESRV_MAIN, '-c', files.namesrvConf],
      cwd: homeDir,
      env,
      log: options.log,
    });
    jvms.push(namesrv);
    const broker = spawnJvm({
      name: 'broker',
      args: [...jvmArgs(options.heapMb, files.brokerLogback), BROKER_MAIN, '-c', files.brokerConf],
      cwd: homeDir,
      env,
      removeDirIfOrphaned: homeDir,
      log: options.log,
    });
    jvms.push(broker);
    const brokerPermission = String(config.brokerPermission ?? 6);
    let bootSeenAt: number | undefined;
    let lastNudgeAt = 0;
    await waitUntil([namesrv, broker], startedAt + options.readyTimeoutMs, async () => {
      const { route } = await probeTopicRoute(namesrvAddr, READINESS_TOPIC, { timeoutMs: PROBE_TIMEOUT_MS });
      const registered =
        route?.brokerDatas.some(
          (data) => data.brokerName === options.brokerName && data.brokerAddrs['0'] === brokerAddr,
        ) ?? false;
      if (registered) return true;
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
        options.log.debug({ brokerAddr }, 'broker not in the route yet; asking it to register');
        await oneShotRequest(
          brokerAddr,
          {
            code: UPDATE_BROKER_CONFIG,
            extFields: {},
            body: Buffer.from(`brokerPermission=${brokerPermission}\n`),
          },
          PROBE_TIMEOUT_MS,
        );
      }
      return false;
    });
  } catch (err) {
    if (err instanceof JvmExitedError) throw await failure(err.message, err);
    if (err instanceof ReadinessTimeoutError) {
      throw await failure(
        `the local broker was not ready within ${options.readyTimeoutMs} ms (namesrv ${namesrvAddr}, broker ${brokerAddr})`,
        err,
      );
    }
    throw await failure('starting the local broker failed', err);
  }

  options.log.info(
    { namesrvAddr, brokerAddr, brokerName: options.brokerName, homeDir, elapsedMs: Date.now() - startedAt },
    'local RocketMQ ready',
  );
  return {
    namesrvAddr,
    brokerAddr,
    brokerName: options.brokerName,
    clusterName: options.clusterName,
    storeDir,
    homeDir,
    logDir,
    stop,
  };
}

class JvmExitedError extends LocalBrokerError {
  constructor(jvm: JvmProcess) {
    const status = jvm.exitStatus;
    super(
      `the ${jvm.name} JVM exited early (exit code ${String(status?.exitCode ?? null)}, signal ${String(status?.signal ?? null)})`,
    );
  }
}

class ReadinessTimeoutError extends LocalBrokerError {}

/**
 * Polls `check` until it returns true; fails fast when any of `jvms` exits, and at `deadline`. A
 * check that throws (connection refused while the JVM boots) counts as "not yet".
 */
async function waitUntil(
  jvms: readonly JvmProcess[],
  deadline: number,
  check: () => Promise<boolean>,
): Promise<void> {
  let lastError: unknown;
  const firstExit = Promise.race(jvms.map((jvm) => jvm.exited.then(() => jvm)));
  const exitedJvm = (): JvmProcess | undefined => jvms.find((jvm) => jvm.exitStatus !== undefined);
  while (Date.now() < deadline) {
    const dead = exitedJvm();
    if (dead) throw new JvmExitedError(dead);
    try {
      if (await check()) return;
    } catch (err) {
      lastError = err;
    }
    const outcome = await Promise.race([firstExit, sleep(POLL_INTERVAL_MS).then(() => undefined)]);
    if (outcome) throw new JvmExitedError(outcome);
  }
  throw new ReadinessTimeoutError('not ready before the deadline', { cause: lastError });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function describeJvms(
  jvms: readonly JvmProcess[],
  files: { namesrvLog: string; brokerLog: string },
): Promise<string> {
  const parts: string[] = [];
  for (const jvm of jvms) {
    const output = jvm.outputTail(LOG_TAIL_LINES);
    parts.push(`--- ${jvm.name} stdout/stderr ---\n${output === '' ? '(nothing)' : output}`);
  }
  for (const [name, path] of [
    ['namesrv.log', files.namesrvLog],
    ['broker.log', files.brokerLog],
  ] as const) {
    if (!existsSync(path)) continue;
    try {
      parts.push(
        `--- ${name} (last ${LOG_TAIL_LINES} lines) ---\n${tailLines(await readFile(path, 'utf8'), LOG_TAIL_LINES)}`,
      );
    } catch (err) {
      parts.push(`--- ${name}: unreadable (${String(err)}) ---`);
    }
  }
  return parts.join('\n');
}
