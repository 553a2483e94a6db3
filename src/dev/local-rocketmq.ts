/**
 * The RocketMQ a dev session starts for itself (`--local-broker` or `--local-cluster`): started (before
 * the service is read), then given the service's topics, described for the started line, and stopped with
 * the session.
 */
import { startLocalBroker } from '../local-broker/local-broker.js';
import { startLocalCluster } from '../local-broker/local-cluster.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { createLocalTopics, DEV_TOPIC_QUEUES, type LocalTopic } from './local-topics.js';

/** Broker groups of the dev cluster (`broker-a`, `broker-b`). */
export const DEV_CLUSTER_BROKER_GROUPS = 2;
/** Heap of each broker JVM of the dev cluster: two to four brokers share a developer's machine. */
const DEV_CLUSTER_HEAP_MB = 192;

/**
 * Which local RocketMQ to start.
 */
export type DevRocketMQKind = { kind: 'broker' } | { kind: 'cluster'; slavesPerGroup: number };

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
  /** Creates `topics` ({@link DEV_TOPIC_QUEUES} queues on each master) and waits until they are routed. */
  createTopics(topics: readonly LocalTopic[]): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the local broker or cluster; the service's topics are created afterwards
 * ({@link DevRocketMQ.createTopics}), so the JVMs can boot while the service is still being read.
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
export function localBrokersLine(local: Pick<DevRocketMQ, 'kind' | 'clusterName' | 'brokers'>): string {
  const brokers = local.brokers
    .map((b) => `${b.brokerName} ${b.address} (${b.brokerId === 0 ? 'master' : `slave ${b.brokerId}`})`)
    .join(', ');
  return `local ${local.kind} ${local.clusterName}: ${brokers}`;
}
