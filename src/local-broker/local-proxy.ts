/**
 * A RocketMQ 5.x proxy in cluster mode in front of a running local namesrv + broker, speaking remoting
 * on a free loopback port: clients use that port as their name server, and the routes it answers name
 * the proxy as every broker, so sends, pulls, heartbeats, offsets and locks all go through it. Ready
 * once it answers the route of `TBW102` with itself.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { componentLogger, type Logger } from '../util/logger.js';
import { settlesWithin } from '../util/settles-within.js';
import { logbackConfig } from './broker-config.js';
import { describeJvms } from './broker-readiness.js';
import { type BrokerVersionProfile, selectedBrokerVersion } from './broker-version.js';
import { findClusterPorts } from './free-ports.js';
import { assertJavaAvailable } from './java-runtime.js';
import { localJvmArgs } from './jvm-args.js';
import { type JvmProcess, spawnJvm } from './jvm-process.js';
import { LocalBrokerError } from './local-broker-error.js';
import { proxyConfig } from './proxy-config.js';
import { ensureRocketMQJars } from './rocketmq-jars.js';
import { probeTopicRoute } from './route-probe.js';

const PROXY_MAIN = 'org.apache.rocketmq.proxy.ProxyStartup';
const READINESS_TOPIC = 'TBW102';
const POLL_INTERVAL_MS = 500;

/** Options of {@link startLocalProxy}. */
export interface LocalProxyOptions {
  /** The namesrv of the cluster behind the proxy. */
  namesrvAddr: string;
  /** @default 'DefaultCluster' */
  clusterName?: string;
  /** The broker's `maxMessageSize`, which the proxy enforces too. @default 10485760 (the test broker's) */
  maxMessageBytes?: number;
  /** Proxy max heap in MiB. @default 256 */
  heapMb?: number;
  /** Where proxy.log goes; kept after stop() when given. @default `<temp dir>/logs` */
  logDir?: string;
  /** @default 90_000 */
  readyTimeoutMs?: number;
  /** A proxy version of broker-version.ts. @default the selected version when it is one, else 5.3.3-proxy */
  version?: BrokerVersionProfile;
  /** Jar cache directory. @default the version's */
  cacheDir?: string;
  log?: Logger;
}

/** A running local proxy. */
export interface LocalProxy {
  /** `127.0.0.1:<port>` of its remoting listener: the name server (and broker) address of clients. */
  remotingAddr: string;
  /** `127.0.0.1:<port>` of its gRPC listener: the endpoint of RocketMQ 5 gRPC clients (not ours). */
  grpcAddr: string;
  /** Stops the proxy JVM (SIGTERM, SIGKILL after 5 s) and removes its temp directory. */
  stop(): Promise<void>;
}

/**
 * Starts the proxy and resolves once its remoting port answers the route of `TBW102` with itself as the
 * broker. Throws {@link LocalBrokerError} (with the tail of its output and log) when the JVM exits early
 * or readiness times out.
 */
export async function startLocalProxy(options: LocalProxyOptions): Promise<LocalProxy> {
  const log = options.log ?? componentLogger('local-proxy');
  const version = options.version ?? proxyVersionOrDefault();
  if (!version.proxy) {
    throw new LocalBrokerError(`broker version ${version.name} has no proxy; use one ending in -proxy`);
  }
  const startedAt = Date.now();
  await assertJavaAvailable();
  const jars = await ensureRocketMQJars({ cacheDir: options.cacheDir, version, log });
  const homeDir = await mkdtemp(join(tmpdir(), 'rocketmq-lambda-proxy-'));
  const confDir = join(homeDir, 'conf');
  const logDir = options.logDir ?? join(homeDir, 'logs');
  await Promise.all([mkdir(confDir), mkdir(logDir, { recursive: true })]);
  // One namesrv-sized pick gives two free ports: the remoting and the gRPC listener.
  const { namesrvPort: remotingPort, brokerPorts } = await findClusterPorts(1);
  const grpcPort = brokerPorts[0] as number;
  const remotingAddr = `127.0.0.1:${remotingPort}`;
  const files = {
    config: join(confDir, 'rmq-proxy.json'),
    logback: join(confDir, 'proxy.logback.xml'),
    log: join(logDir, 'proxy.log'),
  };
  const config = proxyConfig({
    clusterName: options.clusterName ?? 'DefaultCluster',
    namesrvAddr: options.namesrvAddr,
    remotingPort,
    grpcPort,
    maxMessageBytes: options.maxMessageBytes ?? 10_485_760,
  });
  await Promise.all([
    writeFile(files.config, JSON.stringify(config, null, 2)),
    writeFile(files.logback, logbackConfig(files.log)),
  ]);
  const env: NodeJS.ProcessEnv = { ...process.env, ROCKETMQ_HOME: homeDir, RMQ_PROXY_HOME: homeDir };
  delete env.NAMESRV_ADDR;
  const jvm = spawnJvm({
    name: 'proxy',
    args: [
      ...localJvmArgs({
        heapMb: options.heapMb ?? 256,
        logbackFile: files.logback,
        homeDir,
        classpath: jars.classpath,
        extraJvmOptions: [],
      }),
      PROXY_MAIN,
      '-pc',
      files.config,
      '-pm',
      'cluster',
    ],
    cwd: homeDir,
    env,
    removeDirIfOrphaned: homeDir,
    log,
  });
  const stop = async (): Promise<void> => {
    await jvm.stop(5000);
    await rm(homeDir, { recursive: true, force: true });
  };
  try {
    await waitForOwnRoute(jvm, remotingAddr, startedAt + (options.readyTimeoutMs ?? 90_000));
  } catch (err) {
    const report = await describeJvms([jvm], { 'proxy.log': files.log }, []);
    await stop();
    throw new LocalBrokerError(`the RocketMQ proxy did not become ready: ${String(err)}\n${report}`, {
      cause: err,
    });
  }
  log.info(
    { remotingAddr, grpcPort, namesrvAddr: options.namesrvAddr, elapsedMs: Date.now() - startedAt },
    'local RocketMQ proxy ready',
  );
  return { remotingAddr, grpcAddr: `127.0.0.1:${grpcPort}`, stop };
}

function proxyVersionOrDefault(): BrokerVersionProfile {
  const selected = selectedBrokerVersion();
  if (selected.proxy) return selected;
  return selectedBrokerVersion({ ROCKETMQ_LAMBDA_BROKER_VERSION: '5.3.3-proxy' });
}

async function waitForOwnRoute(jvm: JvmProcess, remotingAddr: string, deadline: number): Promise<void> {
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (jvm.exitStatus !== undefined) throw new LocalBrokerError('the proxy JVM exited early');
    try {
      const { code, route } = await probeTopicRoute(remotingAddr, READINESS_TOPIC);
      if (code === 0 && route?.brokerDatas.some((broker) => broker.brokerAddrs['0'] === remotingAddr)) return;
      lastError = new LocalBrokerError(`route of ${READINESS_TOPIC} from the proxy: code ${code}`);
    } catch (err) {
      lastError = err;
    }
    if (await settlesWithin(jvm.exited, POLL_INTERVAL_MS))
      throw new LocalBrokerError('the proxy JVM exited early');
  }
  throw new LocalBrokerError('the proxy was not ready before the deadline', { cause: lastError });
}
