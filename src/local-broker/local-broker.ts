/**
 * A real RocketMQ (5.3.3 unless `ROCKETMQ_LAMBDA_BROKER_VERSION` or `version` picks another of
 * broker-version.ts; one namesrv, one broker) on loopback, for integration tests, fault tests and
 * `rocketmq-lambda dev --local-broker`: fresh temp directory and free ports per start, small heap
 * and mapped files, readiness by asking the namesrv for the broker's route (no sleeps), JVMs that
 * never outlive the Node process, optional TLS and ACL, and a broker that can be killed and restarted
 * (on the same or a wiped store) while the namesrv stays up.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { componentLogger, type Logger } from '../util/logger.js';
import { markStartupPhase } from '../util/startup-timeline.js';
import { aclBrokerConfig, aclCredentials, type LocalBrokerAclOptions } from './broker-acl.js';
import {
  type BrokerConfigValues,
  brokerConfig,
  brokerDirectMemoryMb,
  logbackConfig,
  namesrvConfig,
  toPropertiesText,
} from './broker-config.js';
import { type BrokerLaunch, type LocalBroker, RunningLocalBroker } from './broker-lifecycle.js';
import { type LocalBrokerTlsOptions, probeTlsOptions, tlsConfigFileValues } from './broker-tls.js';
import {
  type BrokerVersionName,
  type BrokerVersionProfile,
  brokerVersionProfile,
  selectedBrokerVersion,
} from './broker-version.js';
import { classDataSharing } from './class-data-sharing.js';
import { findBrokerPorts } from './free-ports.js';
import { writeHomeConfLogback } from './home-conf-logback.js';
import { assertJavaAvailable, JAVA_MODULE_FLAGS } from './java-runtime.js';
import { localJvmArgs } from './jvm-args.js';
import { spawnJvm } from './jvm-process.js';
import { LocalBrokerError } from './local-broker-error.js';
import { ensureRocketMQJars, type RocketMQJars } from './rocketmq-jars.js';
import type { ProbeConnectOptions } from './route-probe.js';

export type { LocalBrokerAclOptions } from './broker-acl.js';
export type { LocalBroker, RestartBrokerOptions } from './broker-lifecycle.js';
export type { LocalBrokerTlsOptions } from './broker-tls.js';

const NAMESRV_MAIN = 'org.apache.rocketmq.namesrv.NamesrvStartup';
const BROKER_MAIN = 'org.apache.rocketmq.broker.BrokerStartup';
const MAX_START_ATTEMPTS = 3;

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
  /** Give up waiting for the broker's route after this long (also per restartBroker()). @default 90_000 */
  readyTimeoutMs?: number;
  /** SIGTERM-to-SIGKILL grace in stop(); the store is thrown away, so keep it short. @default 3000 */
  stopGraceMs?: number;
  /** Jar cache directory. @default {@link defaultRocketMQCacheDir}() */
  cacheDir?: string;
  /** More JVM flags for both JVMs, after ours (e.g. `['-XX:+UseSerialGC']`). @default [] */
  extraJvmOptions?: readonly string[];
  /**
   * Run namesrv and broker TLS-only (`tls.server.mode=enforcing`) with this certificate, optionally
   * requiring client certificates. Clients then need TLS trusting `tls.caPath`.
   * @default plaintext only
   */
  tls?: LocalBrokerTlsOptions | undefined;
  /**
   * Turn on ACL 2.0 on the broker with this super user: unsigned requests, unknown users and wrong
   * signatures are refused. The 5.3.3 namesrv has no ACL.
   * @default no ACL
   */
  acl?: LocalBrokerAclOptions | undefined;
  /**
   * The RocketMQ version of namesrv and broker (a `-proxy` version starts its plain broker here; the
   * proxy is started by startLocalProxy()).
   * @default the version `ROCKETMQ_LAMBDA_BROKER_VERSION` selects, 5.3.3 when unset
   */
  version?: BrokerVersionName | undefined;
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
  tls: LocalBrokerTlsOptions | undefined;
  acl: LocalBrokerAclOptions | undefined;
  version: BrokerVersionProfile;
}

/**
 * Starts a namesrv and a broker on free loopback ports and resolves once the namesrv lists the broker
 * in the route of `TBW102`. Fetches the jars with Maven on first use (cached afterwards). Throws
 * {@link LocalBrokerError} when Java/Maven are missing, a JVM exits early, or readiness times out
 * (with the tail of both logs, secrets masked).
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
    tls: options.tls,
    acl: options.acl,
    version: options.version === undefined ? selectedBrokerVersion() : brokerVersionProfile(options.version),
  };
  if (resolved.acl !== undefined && !resolved.version.features.acl2) {
    throw new LocalBrokerError(
      `the local RocketMQ ${resolved.version.name} cannot run ACL 2.0: ${resolved.version.aclUnavailableReason ?? 'not supported'}`,
    );
  }
  await assertJavaAvailable();
  markStartupPhase('local broker: java found');
  const jars = await ensureRocketMQJars({
    cacheDir: resolved.cacheDir,
    version: resolved.version,
    log: resolved.log,
  });
  markStartupPhase('local broker: jars ready');
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(jars, resolved);
    } catch (err) {
      const portClash = err instanceof LocalBrokerError && /Address already in use/i.test(err.message);
      if (!portClash || attempt >= MAX_START_ATTEMPTS) throw err;
      resolved.log.warn({ attempt }, 'a local broker port was taken meanwhile; retrying with new ports');
    }
  }
}

async function startOnce(jars: RocketMQJars, options: ResolvedOptions): Promise<LocalBroker> {
  const startedAt = Date.now();
  const { classpath } = jars;
  const sharing = classDataSharing(
    {
      cacheDir: jars.cacheDir,
      libDir: jars.libDir,
      env: process.env,
      javaFlags: JAVA_MODULE_FLAGS,
      classpath,
    },
    options.log,
  );
  // Read before the temp directory exists: an unreadable CA file then leaves nothing behind.
  const connect: ProbeConnectOptions = {
    tls: options.tls === undefined ? undefined : await probeTlsOptions(options.tls),
    credentials: options.acl === undefined ? undefined : aclCredentials(options.acl),
  };
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
    tlsConf: join(confDir, 'tls.properties'),
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
    overrides: {
      ...options.version.brokerConfig,
      ...(options.acl === undefined ? {} : aclBrokerConfig(options.acl)),
      ...options.overrides,
    },
  });
  await Promise.all([
    writeFile(files.namesrvConf, toPropertiesText(namesrvConfig(namesrvPort, homeDir))),
    writeFile(files.brokerConf, toPropertiesText(config)),
    writeFile(files.namesrvLogback, logbackConfig(files.namesrvLog)),
    writeFile(files.brokerLogback, logbackConfig(files.brokerLog)),
    options.tls === undefined
      ? undefined
      : writeFile(files.tlsConf, toPropertiesText(tlsConfigFileValues(options.tls))),
    writeHomeConfLogback(options.version, homeDir, { namesrv: files.namesrvLog, broker: files.brokerLog }),
  ]);

  const env: NodeJS.ProcessEnv = { ...process.env, ROCKETMQ_HOME: homeDir };
  delete env.NAMESRV_ADDR;
  const jvmArgs = (name: string, heapMb: number, logbackFile: string, maxDirectMemoryMb?: number): string[] =>
    localJvmArgs({
      heapMb,
      maxDirectMemoryMb,
      logbackFile,
      homeDir,
      classpath,
      tlsConfigFile: options.tls === undefined ? undefined : files.tlsConf,
      extraJvmOptions: [...sharing.jvmFlags(name), ...options.extraJvmOptions],
    });
  const launch: BrokerLaunch = {
    homeDir,
    storeDir,
    logDir,
    env,
    brokerArgs: [
      ...jvmArgs(
        'broker',
        options.heapMb,
        files.brokerLogback,
        brokerDirectMemoryMb(config, availableParallelism()),
      ),
      BROKER_MAIN,
      '-c',
      files.brokerConf,
    ],
    logFiles: { 'namesrv.log': files.namesrvLog, 'broker.log': files.brokerLog },
    target: {
      namesrvAddr,
      brokerAddr,
      brokerName: options.brokerName,
      brokerPermission: String(config.brokerPermission ?? 6),
      connect,
      log: options.log,
    },
    clusterName: options.clusterName,
    readyTimeoutMs: options.readyTimeoutMs,
    stopGraceMs: options.stopGraceMs,
    log: options.log,
    secrets: [options.acl?.secretKey, options.tls?.keyPassword, options.tls?.clientAuth?.keyPassword].filter(
      (secret): secret is string => secret !== undefined && secret !== '',
    ),
  };

  // Both JVMs start at once: the broker registers ~5 s into its boot, by when the namesrv (quicker to
  // boot) listens; should it not, registerNameServerPeriod (10 s) makes the broker try again soon.
  const namesrv = spawnJvm({
    name: 'namesrv',
    args: [...jvmArgs('namesrv', 256, files.namesrvLogback), NAMESRV_MAIN, '-c', files.namesrvConf],
    cwd: homeDir,
    env,
    log: options.log,
  });
  const broker = new RunningLocalBroker(launch, namesrv);
  await broker.startFirstBroker(startedAt);
  markStartupPhase('local broker: broker registered (ready)');
  sharing.booted();
  options.log.info(
    {
      namesrvAddr,
      brokerAddr,
      brokerName: options.brokerName,
      version: options.version.name,
      homeDir,
      tls: options.tls !== undefined,
      acl: options.acl !== undefined,
      elapsedMs: Date.now() - startedAt,
    },
    'local RocketMQ ready',
  );
  return broker;
}
