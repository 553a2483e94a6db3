/**
 * A real RocketMQ cluster on loopback (5.3.3 unless `ROCKETMQ_LAMBDA_BROKER_VERSION` or `version` picks
 * another of broker-version.ts; a `-proxy` version starts its plain brokers, no proxy): one namesrv and N broker groups (`broker-a`, `broker-b`,
 * ...), each a master (brokerId 0, ASYNC_MASTER) and its slaves (brokerId 1.., SLAVE) with classic
 * master/slave replication over the master's HA port. Every broker has its own store and ports, a small
 * heap, and can be killed and restarted on its store while the rest runs on (docs/clusters.md says why
 * classic master/slave and not DLedger or the 5.x controller).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeSubscriptionGroupConfig, type SubscriptionGroupConfig } from '../protocol/bodies.js';
import type { CreateTopicRequestHeader } from '../protocol/headers.js';
import { toExtFields } from '../protocol/remoting-command.js';
import { RequestCode } from '../protocol/request-code.js';
import { PermName } from '../protocol/route-data.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { aclBrokerConfig, aclCredentials, type LocalBrokerAclOptions } from './broker-acl.js';
import {
  type BrokerConfigValues,
  brokerConfig,
  brokerDirectMemoryMb,
  logbackConfig,
  namesrvConfig,
  toPropertiesText,
} from './broker-config.js';
import { type LocalBrokerTlsOptions, probeTlsOptions, tlsConfigFileValues } from './broker-tls.js';
import { type BrokerVersionName, brokerVersionProfile, selectedBrokerVersion } from './broker-version.js';
import { applyAcrossCluster, subscriptionGroupChange, topicChange } from './cluster-admin.js';
import { ClusterNamesrv } from './cluster-namesrv.js';
import { ClusterBrokerNode, type LocalClusterNode } from './cluster-node.js';
import { findClusterPorts } from './free-ports.js';
import { writeHomeConfLogback } from './home-conf-logback.js';
import { assertJavaAvailable } from './java-runtime.js';
import { localJvmArgs } from './jvm-args.js';
import { spawnJvm } from './jvm-process.js';
import { LocalBrokerError } from './local-broker-error.js';
import { ensureRocketMQJars } from './rocketmq-jars.js';
import { type ProbeConnectOptions, probeTopicRoute } from './route-probe.js';

export type { LocalClusterNode } from './cluster-node.js';

const NAMESRV_MAIN = 'org.apache.rocketmq.namesrv.NamesrvStartup';
const BROKER_MAIN = 'org.apache.rocketmq.broker.BrokerStartup';
const NAMESRV_HEAP_MB = 128;
const MAX_GROUPS = 26;
const REQUEST_TIMEOUT_MS = 5000;
const ROUTE_POLL_MS = 200;

/**
 * Broker properties every broker of a local cluster gets on top of the single-broker test defaults.
 * `slaveReadEnable`: a slave serves pulls (without it a 5.3.3 slave refuses every PULL_MESSAGE with
 * SYSTEM_BUSY, so nothing is consumed while a master is down) and a master may point consumers at its
 * slave through `suggestWhichBrokerId`.
 */
export const CLUSTER_BROKER_DEFAULTS: Readonly<BrokerConfigValues> = {
  slaveReadEnable: true,
};

/** Options of {@link startLocalCluster}; every field is optional. */
export interface LocalClusterOptions {
  /** Broker groups: `broker-a`, `broker-b`, ... (at most 26). @default 2 */
  brokerGroups?: number;
  /** Slaves of each master (brokerId 1..n). @default 1 */
  slavesPerGroup?: number;
  /** Max heap of each broker JVM in MiB; the namesrv gets 128. @default 192 */
  heapMb?: number;
  /** Properties for every broker, winning over the defaults (e.g. `{ accessMessageInMemoryMaxRatio: 0 }`). */
  brokerConfig?: BrokerConfigValues;
  /** Properties for the masters only, applied after `brokerConfig`. */
  masterConfig?: BrokerConfigValues;
  /** Properties for the slaves only, applied after `brokerConfig`. */
  slaveConfig?: BrokerConfigValues;
  /** @default 'DefaultCluster' */
  clusterName?: string;
  /** Where the logs go; kept after stop() when given. @default `<temp dir>/logs` */
  logDir?: string;
  log?: Logger;
  /** Give up waiting for all brokers (or for one restart) after this long. @default 180_000 */
  readyTimeoutMs?: number;
  /** SIGTERM-to-SIGKILL grace in stop(); the stores are thrown away. @default 3000 */
  stopGraceMs?: number;
  /** Jar cache directory. @default the launcher's default cache */
  cacheDir?: string;
  /** More flags for every JVM, after ours. @default [] */
  extraJvmOptions?: readonly string[];
  /**
   * The RocketMQ version of every JVM (a `-proxy` version starts its plain brokers; no proxy).
   * @default the version `ROCKETMQ_LAMBDA_BROKER_VERSION` selects, 5.3.3 when unset
   */
  version?: BrokerVersionName | undefined;
  /**
   * Run the namesrv and every broker TLS-only with this certificate (as the single broker's `tls`);
   * clients then need TLS trusting `tls.caPath`.
   * @default plaintext only
   */
  tls?: LocalBrokerTlsOptions | undefined;
  /**
   * ACL 2.0 on every broker with this super user (as the single broker's `acl`); the brokers use it for
   * their own calls to each other too (`innerClientAuthenticationCredentials`).
   * @default no ACL
   */
  acl?: LocalBrokerAclOptions | undefined;
}

/**
 * One broker group: the brokers sharing a `brokerName`.
 */
export interface LocalBrokerGroup {
  brokerName: string;
  master: LocalClusterNode;
  slaves: readonly LocalClusterNode[];
}

/**
 * A running local cluster.
 */
export interface LocalCluster {
  /** `127.0.0.1:<port>` of the name server. */
  namesrvAddr: string;
  clusterName: string;
  groups: readonly LocalBrokerGroup[];
  /** Every broker, masters and slaves. */
  nodes: readonly LocalClusterNode[];
  /** The temp directory; removed by stop(). */
  homeDir: string;
  logDir: string;
  /** The broker `brokerId` of group `brokerName`; throws {@link LocalBrokerError} when there is none. */
  node(brokerName: string, brokerId: number): LocalClusterNode;
  /**
   * Creates `topic` with `queuesPerGroup` read and write queues on every running broker (masters and
   * slaves), and resolves once the name server routes it on every running master. `order` marks it an
   * ordered topic (the topic config's `order` flag).
   */
  createTopic(topic: string, queuesPerGroup: number, options?: { order?: boolean }): Promise<void>;
  /**
   * Creates or updates a subscription group on every running broker (4.x: on the masters, then waits
   * until their slaves copied it).
   */
  createSubscriptionGroup(config: SubscriptionGroupConfig): Promise<void>;
  /**
   * Stops the name server JVM (SIGTERM, SIGKILL after `graceMs`; 0: SIGKILL at once) while every broker
   * runs on; `startNamesrv()` starts a new one on the same port. No-op when it is stopped.
   */
  stopNamesrv(options?: { graceMs?: number }): Promise<void>;
  /**
   * Starts the name server again after `stopNamesrv()` and resolves once it answers; it routes each
   * broker again once that broker registers (within `registerNameServerPeriod`, 10 s here). No-op when it
   * runs.
   */
  startNamesrv(): Promise<void>;
  /** Stops every JVM and removes the temp directory. */
  stop(): Promise<void>;
}

/**
 * Starts a namesrv and `brokerGroups` × (1 + `slavesPerGroup`) brokers on free loopback ports, all at
 * once, and resolves when the namesrv lists every one of them under its broker id. Throws
 * {@link LocalBrokerError} (with the JVMs' last output) when one does not come up; everything started is
 * stopped then.
 */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const groups = options.brokerGroups ?? 2;
  const slaves = options.slavesPerGroup ?? 1;
  if (!Number.isInteger(groups) || groups < 1 || groups > MAX_GROUPS) {
    throw new LocalBrokerError(`brokerGroups must be an integer in 1..${MAX_GROUPS}, got ${groups}`);
  }
  if (!Number.isInteger(slaves) || slaves < 0) {
    throw new LocalBrokerError(`slavesPerGroup must be a non-negative integer, got ${slaves}`);
  }
  const log = options.log ?? componentLogger('local-cluster');
  const readyTimeoutMs = options.readyTimeoutMs ?? 180_000;
  const stopGraceMs = options.stopGraceMs ?? 3000;
  const clusterName = options.clusterName ?? 'DefaultCluster';
  const heapMb = options.heapMb ?? 192;
  const extraJvmOptions = options.extraJvmOptions ?? [];
  const version =
    options.version === undefined ? selectedBrokerVersion() : brokerVersionProfile(options.version);
  if (options.acl !== undefined && !version.features.acl2) {
    throw new LocalBrokerError(
      `the local RocketMQ ${version.name} cannot run ACL 2.0: ${version.aclUnavailableReason ?? 'not supported'}`,
    );
  }
  const aclConfig = options.acl === undefined ? {} : aclBrokerConfig(options.acl);
  // Read before the temp directory exists: an unreadable CA file then leaves nothing behind.
  const connect: ProbeConnectOptions = {
    tls: options.tls === undefined ? undefined : await probeTlsOptions(options.tls),
    credentials: options.acl === undefined ? undefined : aclCredentials(options.acl),
  };
  const secrets = [
    options.acl?.secretKey,
    options.tls?.keyPassword,
    options.tls?.clientAuth?.keyPassword,
  ].filter((secret): secret is string => secret !== undefined && secret !== '');
  await assertJavaAvailable();
  const { classpath } = await ensureRocketMQJars({ cacheDir: options.cacheDir, version, log });
  const startedAt = Date.now();

  const homeDir = await mkdtemp(join(tmpdir(), 'rocketmq-lambda-cluster-'));
  const confDir = join(homeDir, 'conf');
  const logDir = options.logDir ?? join(homeDir, 'logs');
  await Promise.all([mkdir(confDir), mkdir(logDir, { recursive: true })]);
  const brokersPerGroup = 1 + slaves;
  const { namesrvPort, brokerPorts } = await findClusterPorts(groups * brokersPerGroup);
  const namesrvAddr = `127.0.0.1:${namesrvPort}`;
  const env: NodeJS.ProcessEnv = { ...process.env, ROCKETMQ_HOME: homeDir };
  delete env.NAMESRV_ADDR;

  const namesrvLogFile = join(logDir, 'namesrv.log');
  const namesrvConf = join(confDir, 'namesrv.properties');
  const namesrvLogback = join(confDir, 'namesrv.logback.xml');
  const tlsConf = join(confDir, 'tls.properties');
  await Promise.all([
    options.tls === undefined
      ? undefined
      : writeFile(tlsConf, toPropertiesText(tlsConfigFileValues(options.tls))),
    writeFile(namesrvConf, toPropertiesText(namesrvConfig(namesrvPort, homeDir))),
    writeFile(namesrvLogback, logbackConfig(namesrvLogFile)),
    writeHomeConfLogback(version, homeDir, { namesrv: namesrvLogFile }),
  ]);
  const jvmArgs = (jvmHeapMb: number, logbackFile: string, maxDirectMemoryMb?: number): string[] =>
    localJvmArgs({
      heapMb: jvmHeapMb,
      maxDirectMemoryMb,
      logbackFile,
      homeDir,
      classpath,
      tlsConfigFile: options.tls === undefined ? undefined : tlsConf,
      extraJvmOptions,
    });
  const namesrv = new ClusterNamesrv({
    spawn: () =>
      spawnJvm({
        name: 'namesrv',
        args: [...jvmArgs(NAMESRV_HEAP_MB, namesrvLogback), NAMESRV_MAIN, '-c', namesrvConf],
        cwd: homeDir,
        env,
        removeDirIfOrphaned: homeDir,
        log,
      }),
    namesrvAddr,
    connect,
  });

  const brokerGroups: LocalBrokerGroup[] = [];
  const nodes: ClusterBrokerNode[] = [];
  for (let g = 0; g < groups; g++) {
    const brokerName = `broker-${String.fromCharCode(97 + g)}`;
    const groupNodes: ClusterBrokerNode[] = [];
    for (let brokerId = 0; brokerId < brokersPerGroup; brokerId++) {
      const port = brokerPorts[g * brokersPerGroup + brokerId] as number;
      const nodeName = `${brokerName}-${brokerId}`;
      const storeDir = join(homeDir, 'store', nodeName);
      const brokerConf = join(confDir, `${nodeName}.conf`);
      const logback = join(confDir, `${nodeName}.logback.xml`);
      const logFile = join(logDir, `${nodeName}.log`);
      await mkdir(storeDir, { recursive: true });
      // A 4.x broker reads logback from <rocketmqHome>/conf/logback_broker.xml: one home per broker, so
      // that each logs to its own file.
      const nodeHome = version.logbackInHomeConf ? join(homeDir, 'home', nodeName) : undefined;
      const isMaster = brokerId === 0;
      const config = brokerConfig({
        clusterName,
        brokerName,
        brokerPort: port,
        namesrvAddr,
        storeDir,
        overrides: {
          ...version.brokerConfig,
          ...CLUSTER_BROKER_DEFAULTS,
          ...(nodeHome === undefined ? {} : { rocketmqHome: nodeHome }),
          brokerId,
          brokerRole: isMaster ? 'ASYNC_MASTER' : 'SLAVE',
          haListenPort: port + 1,
          ...aclConfig,
          ...options.brokerConfig,
          ...(isMaster ? options.masterConfig : options.slaveConfig),
        },
      });
      await Promise.all([
        writeFile(brokerConf, toPropertiesText(config)),
        writeFile(logback, logbackConfig(logFile)),
        nodeHome === undefined ? undefined : writeHomeConfLogback(version, nodeHome, { broker: logFile }),
      ]);
      const node = new ClusterBrokerNode({
        brokerId,
        haPort: port + 1,
        storeDir,
        logFile,
        homeDir,
        env,
        args: [
          ...jvmArgs(heapMb, logback, brokerDirectMemoryMb(config, availableParallelism())),
          BROKER_MAIN,
          '-c',
          brokerConf,
        ],
        target: {
          namesrvAddr,
          brokerAddr: `127.0.0.1:${port}`,
          brokerName,
          brokerId,
          brokerPermission: String(config.brokerPermission ?? 6),
          connect,
          log,
        },
        namesrv,
        namesrvLogFile,
        readyTimeoutMs,
        stopGraceMs,
        log,
        secrets,
      });
      groupNodes.push(node);
      nodes.push(node);
    }
    const [master, ...groupSlaves] = groupNodes as [ClusterBrokerNode, ...ClusterBrokerNode[]];
    brokerGroups.push({ brokerName, master, slaves: groupSlaves });
  }

  const cluster = new RunningLocalCluster({
    namesrvAddr,
    clusterName,
    homeDir,
    logDir,
    brokerGroups,
    nodes,
    namesrv,
    stopGraceMs,
    readyTimeoutMs,
    slavesRefuseAdmin: version.slavesRefuseAdmin,
    connect,
  });
  try {
    // All brokers boot at once; the namesrv lists a slave beside its master whenever it registers.
    await Promise.all(nodes.map((node) => node.start(startedAt + readyTimeoutMs)));
    // A slave replicates from the HA address the namesrv hands it when it registers, and only once its
    // master is registered; every master is now, so each slave registers again to learn it. (5.3.3
    // ignores a configured haMasterAddress: its HA client still connects to "null".)
    await Promise.all(nodes.filter((node) => node.role === 'slave').map((node) => node.register()));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  log.info(
    {
      namesrvAddr,
      version: version.name,
      brokers: nodes.map((node) => ({ name: node.brokerName, id: node.brokerId, address: node.address })),
      tls: options.tls !== undefined,
      acl: options.acl !== undefined,
      homeDir,
      elapsedMs: Date.now() - startedAt,
    },
    'local RocketMQ cluster ready',
  );
  return cluster;
}

interface RunningClusterParts {
  namesrvAddr: string;
  clusterName: string;
  homeDir: string;
  logDir: string;
  brokerGroups: LocalBrokerGroup[];
  nodes: ClusterBrokerNode[];
  namesrv: ClusterNamesrv;
  stopGraceMs: number;
  readyTimeoutMs: number;
  slavesRefuseAdmin: boolean;
  /** TLS and ACL credentials of our own requests to the JVMs. */
  connect: ProbeConnectOptions;
}

class RunningLocalCluster implements LocalCluster {
  readonly namesrvAddr: string;
  readonly clusterName: string;
  readonly groups: readonly LocalBrokerGroup[];
  readonly nodes: readonly LocalClusterNode[];
  readonly homeDir: string;
  readonly logDir: string;
  private readonly parts: RunningClusterParts;
  private stopped: Promise<void> | undefined;

  constructor(parts: RunningClusterParts) {
    this.parts = parts;
    this.namesrvAddr = parts.namesrvAddr;
    this.clusterName = parts.clusterName;
    this.groups = parts.brokerGroups;
    this.nodes = parts.nodes;
    this.homeDir = parts.homeDir;
    this.logDir = parts.logDir;
  }

  node(brokerName: string, brokerId: number): LocalClusterNode {
    const found = this.nodes.find((node) => node.brokerName === brokerName && node.brokerId === brokerId);
    if (found === undefined)
      throw new LocalBrokerError(`the local cluster has no broker ${brokerName}-${brokerId}`);
    return found;
  }

  async createTopic(topic: string, queuesPerGroup: number, options: { order?: boolean } = {}): Promise<void> {
    const masters = this.groups.map((group) => group.master).filter((master) => master.running);
    const header: CreateTopicRequestHeader = {
      topic,
      defaultTopic: 'TBW102',
      readQueueNums: queuesPerGroup,
      writeQueueNums: queuesPerGroup,
      perm: PermName.READ | PermName.WRITE,
      topicFilterType: 'SINGLE_TAG',
      topicSysFlag: 0,
      order: options.order ?? false,
    };
    // The slaves too (cluster-admin.ts). The namesrv routes what the masters register.
    await applyAcrossCluster(
      this.nodes,
      topicChange(
        topic,
        { code: RequestCode.UPDATE_AND_CREATE_TOPIC, extFields: toExtFields(header) },
        queuesPerGroup,
      ),
      { slavesRefuseAdmin: this.parts.slavesRefuseAdmin, connect: this.parts.connect },
    );
    const deadline = Date.now() + REQUEST_TIMEOUT_MS * 6;
    const wanted = new Set(masters.map((master) => master.brokerName));
    while (Date.now() < deadline) {
      const { route } = await probeTopicRoute(this.namesrvAddr, topic, this.parts.connect);
      const routed = (route?.queueDatas ?? []).filter(
        (data) => wanted.has(data.brokerName) && data.writeQueueNums === queuesPerGroup,
      );
      if (routed.length === wanted.size) return;
      await sleep(ROUTE_POLL_MS);
    }
    throw new LocalBrokerError(`the namesrv did not route ${topic} on ${[...wanted].join(', ')} in time`);
  }

  async createSubscriptionGroup(config: SubscriptionGroupConfig): Promise<void> {
    await applyAcrossCluster(
      this.nodes,
      subscriptionGroupChange(
        config.groupName,
        {
          code: RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
          extFields: {},
          body: encodeSubscriptionGroupConfig(config),
        },
        config.brokerId ?? 0,
      ),
      { slavesRefuseAdmin: this.parts.slavesRefuseAdmin, connect: this.parts.connect },
    );
  }

  stopNamesrv(options: { graceMs?: number } = {}): Promise<void> {
    return this.parts.namesrv.stop(options.graceMs ?? this.parts.stopGraceMs);
  }

  startNamesrv(): Promise<void> {
    return this.parts.namesrv.start(Date.now() + this.parts.readyTimeoutMs);
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      await Promise.all([
        this.parts.namesrv.close(this.parts.stopGraceMs),
        ...this.parts.nodes.map((node) => node.close()),
      ]);
      await rm(this.homeDir, { recursive: true, force: true });
    })();
    return this.stopped;
  }
}
