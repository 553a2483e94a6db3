/**
 * The RocketMQ a dev session starts for itself (`--local-broker` or `--local-cluster`): started (before
 * the service is read), then given the service's topics, described for the started line, and stopped with
 * the session.
 */

import { KeptBrokerInUseError, type KeptBrokerStart, startKeptBroker } from '../local-broker/kept-broker.js';
import { startLocalBroker } from '../local-broker/local-broker.js';
import { startLocalCluster } from '../local-broker/local-cluster.js';
import { formatMinutes } from '../util/format-minutes.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { createLocalTopics, DEV_TOPIC_QUEUES, type LocalTopic } from './local-topics.js';

/** Broker groups of the dev cluster (`broker-a`, `broker-b`). */
export const DEV_CLUSTER_BROKER_GROUPS = 2;
/** Heap of each broker JVM of the dev cluster: two to four brokers share a developer's machine. */
const DEV_CLUSTER_HEAP_MB = 192;

/**
 * Which local RocketMQ to start. A broker with `keep` is a kept broker (src/local-broker/kept-broker.ts):
 * taken from an earlier session when one is up in `keep.dir`, left up for `keep.idleMs` after this one.
 */
export type DevRocketMQKind =
  | {
      kind: 'broker';
      keep?:
        | {
            readonly dir: string;
            readonly idleMs: number;
            /** Already under way (`npm run demo` starts it first thing); else started here. */
            readonly started?: KeptBrokerStart | undefined;
          }
        | undefined;
    }
  | { kind: 'cluster'; slavesPerGroup: number };

/**
 * One broker of the local RocketMQ.
 */
export interface DevBrokerAddress {
  readonly brokerName: string;
  /** 0: the master; 1..: its slaves. */
  readonly brokerId: number;
  readonly address: string;
}

/**
 * A running local RocketMQ of a dev session.
 */
export interface DevRocketMQ {
  readonly kind: DevRocketMQKind['kind'];
  readonly nameServer: string;
  readonly clusterName: string;
  readonly brokers: readonly DevBrokerAddress[];
  /** True when the broker was kept from an earlier session (its topics and messages are still there). */
  readonly reused: boolean;
  /** How long a kept broker stays up after this session; undefined when it stops with the session. */
  readonly keptForMs: number | undefined;
  /** Creates `topics` ({@link DEV_TOPIC_QUEUES} queues on each master) and waits until they are routed. */
  createTopics(topics: readonly LocalTopic[]): Promise<void>;
  stop(): Promise<void>;
}

/** {@link beginDevRocketMQ}'s two steps. */
export interface DevRocketMQStart {
  /**
   * Resolves once it is known whether the RocketMQ starts empty (true) or is a kept one with its store
   * (false): offsets kept from an earlier run are only valid in the second case.
   */
  readonly fresh: Promise<boolean>;
  readonly ready: Promise<DevRocketMQ>;
}

/**
 * Starts the local broker or cluster, or takes the kept broker; the service's topics are created
 * afterwards ({@link DevRocketMQ.createTopics}), so the JVMs can boot while the service is still read.
 * A kept broker that another session holds is not shared (the two would split the queues): this session
 * then starts one of its own, stopped with it.
 */
export function beginDevRocketMQ(
  what: DevRocketMQKind,
  options: { logDir: string; logger: Logger },
): DevRocketMQStart {
  if (what.kind !== 'broker' || what.keep === undefined) {
    return { fresh: Promise.resolve(true), ready: startDevRocketMQ(what, options) };
  }
  const log = componentLogger('dev', options.logger);
  const kept = what.keep.started ?? startKeptBroker({ dir: what.keep.dir, idleMs: what.keep.idleMs, log });
  const inUse = (error: unknown): boolean => error instanceof KeptBrokerInUseError;
  const fresh = kept.reused.then(
    (reused) => !reused,
    (error: unknown) => {
      if (inUse(error)) return true;
      throw error;
    },
  );
  const ready = kept.ready.then(
    (broker): DevRocketMQ => {
      log.info(
        {
          nameServer: broker.namesrvAddr,
          broker: broker.brokerAddr,
          hostPid: broker.hostPid,
          reused: broker.reused,
        },
        broker.reused ? 'kept local broker taken' : 'kept local broker started',
      );
      return {
        kind: 'broker',
        nameServer: broker.namesrvAddr,
        clusterName: broker.clusterName,
        brokers: [{ brokerName: broker.brokerName, brokerId: 0, address: broker.brokerAddr }],
        reused: broker.reused,
        keptForMs: broker.idleMs,
        createTopics: (topics) => createLocalTopics(broker.namesrvAddr, broker.brokerAddr, topics, log),
        stop: () => broker.release(),
      };
    },
    (error: unknown) => {
      if (!inUse(error)) throw error;
      log.warn({ err: error }, "the kept local broker is in use: starting one of this session's own");
      return startDevRocketMQ({ kind: 'broker' }, options);
    },
  );
  // Either is awaited by the caller; the other must not count as unhandled.
  fresh.catch(() => undefined);
  ready.catch(() => undefined);
  return { fresh, ready };
}

/**
 * Starts the local broker or cluster (never a kept one: {@link beginDevRocketMQ}).
 */
export async function startDevRocketMQ(
  what: DevRocketMQKind,
  options: { logDir: string; logger: Logger },
): Promise<DevRocketMQ> {
  const log = componentLogger('dev', options.logger);
  if (what.kind === 'broker') {
    const broker = await startLocalBroker({
      logDir: options.logDir,
      log: componentLogger('local-broker', options.logger),
    });
    log.info({ nameServer: broker.namesrvAddr, broker: broker.brokerAddr }, 'local broker started');
    return {
      kind: 'broker',
      nameServer: broker.namesrvAddr,
      clusterName: broker.clusterName,
      brokers: [{ brokerName: broker.brokerName, brokerId: 0, address: broker.brokerAddr }],
      reused: false,
      keptForMs: undefined,
      createTopics: (topics) => createLocalTopics(broker.namesrvAddr, broker.brokerAddr, topics, log),
      stop: () => broker.stop(),
    };
  }
  const cluster = await startLocalCluster({
    brokerGroups: DEV_CLUSTER_BROKER_GROUPS,
    slavesPerGroup: what.slavesPerGroup,
    heapMb: DEV_CLUSTER_HEAP_MB,
    logDir: options.logDir,
    log: componentLogger('local-cluster', options.logger),
  });
  const brokers = cluster.nodes.map((node) => ({
    brokerName: node.brokerName,
    brokerId: node.brokerId,
    address: node.address,
  }));
  log.info({ nameServer: cluster.namesrvAddr, brokers }, 'local cluster started');
  return {
    kind: 'cluster',
    nameServer: cluster.namesrvAddr,
    clusterName: cluster.clusterName,
    brokers,
    reused: false,
    keptForMs: undefined,
    createTopics: async (topics) => {
      for (const { topic, orderly } of topics) {
        await cluster.createTopic(topic, DEV_TOPIC_QUEUES, { order: orderly });
        log.info(
          { topic, queuesPerMaster: DEV_TOPIC_QUEUES, masters: DEV_CLUSTER_BROKER_GROUPS },
          'topic created on the local cluster',
        );
      }
    },
    stop: () => cluster.stop(),
  };
}

/**
 * The line naming the local brokers, printed after the name server line.
 */
export function localBrokersLine(
  local: Pick<DevRocketMQ, 'kind' | 'clusterName' | 'brokers' | 'reused' | 'keptForMs'>,
): string {
  const brokers = local.brokers
    .map((b) => `${b.brokerName} ${b.address} (${b.brokerId === 0 ? 'master' : `slave ${b.brokerId}`})`)
    .join(', ');
  const kept =
    local.keptForMs === undefined
      ? ''
      : `; ${local.reused ? 'kept from an earlier run' : 'started now'}, kept up ${formatMinutes(local.keptForMs)} after this one`;
  return `local ${local.kind} ${local.clusterName}: ${brokers}${kept}`;
}
