/**
 * A RocketMQ cluster of a test file's own (two broker groups, each a master and a slave), clients of
 * it, and a spy on the pulls a consumer makes: which broker address answered, and what it suggested.
 */

import type { PullResult } from '../../../src/client/pull-result.js';
import { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import {
  type LocalCluster,
  type LocalClusterOptions,
  startLocalCluster,
} from '../../../src/local-broker/local-cluster.js';
import type { PullMessageRequestHeader } from '../../../src/protocol/headers.js';

/** Four broker JVMs, a namesrv, the shared test broker and the tests share two cores. */
export const CLUSTER_HEAP_MB = 160;

/**
 * Starts a 2-group master/slave cluster with small heaps; the caller stops it (afterAll).
 *
 * @example
 * ```ts
 * const cluster = await startOwnCluster();
 * afterAll(() => cluster.stop());
 * ```
 */
export function startOwnCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  return startLocalCluster({
    brokerGroups: 2,
    slavesPerGroup: 1,
    heapMb: CLUSTER_HEAP_MB,
    // A send waiting over 200 ms (the default) in a broker's queue is refused with SYSTEM_BUSY
    // (TIMEOUT_CLEAN_QUEUE): on two loaded cores it happens while the producer fills the queues.
    brokerConfig: { waitTimeMillsInSendQueue: 5000 },
    ...options,
  });
}

/**
 * Send timeout of the tests' clients: five JVMs on two cores answer a send in far more than Java's 3 s
 * at times, and a timed-out request closes its connection with every send in flight on it.
 */
const CLUSTER_SEND_TIMEOUT_MS = 15_000;

/** A client of the cluster's namesrv; the caller closes it. */
export function clusterClient(cluster: Pick<LocalCluster, 'namesrvAddr'>): RocketMQClient {
  return new RocketMQClient({
    nameServerAddresses: cluster.namesrvAddr,
    timeouts: { sendMs: CLUSTER_SEND_TIMEOUT_MS },
  });
}

/** One pull a spied client made. */
export interface SpiedPull {
  address: string;
  topic: string;
  queueId: number;
  queueOffset: number;
  commitOffset: number;
  /** Undefined when the pull failed. */
  status: PullResult['status'] | undefined;
  found: number;
  suggestWhichBrokerId: number | undefined;
}

/**
 * Records every PULL_MESSAGE `client` makes (the real call goes through unchanged).
 *
 * @example
 * ```ts
 * const pulls = spyOnPulls(client);
 * // ... consume ...
 * pulls.filter((p) => p.address === slave.address && p.found > 0);
 * ```
 */
export function spyOnPulls(client: RocketMQClient): SpiedPull[] {
  const pulls: SpiedPull[] = [];
  const broker = client.broker;
  const real = broker.pullMessage.bind(broker);
  broker.pullMessage = async (
    address: string,
    header: PullMessageRequestHeader,
    options?: { timeoutMs?: number },
  ): Promise<PullResult> => {
    const pull: SpiedPull = {
      address,
      topic: header.topic,
      queueId: header.queueId,
      queueOffset: header.queueOffset,
      commitOffset: header.commitOffset,
      status: undefined,
      found: 0,
      suggestWhichBrokerId: undefined,
    };
    pulls.push(pull);
    const result = await real(address, header, options);
    pull.status = result.status;
    pull.found = result.status === 'FOUND' ? result.messages.length : 0;
    pull.suggestWhichBrokerId = result.suggestWhichBrokerId;
    return result;
  };
  return pulls;
}
