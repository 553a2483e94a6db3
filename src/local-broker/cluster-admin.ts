/**
 * Topic and subscription-group changes across the brokers of a local cluster. A 5.x slave accepts them
 * like its master, and must get them too: it copies its master's configs only once a minute and cannot
 * serve pulls of a topic it does not know. A 4.x slave refuses them (`AdminBrokerProcessor.validateSlave`:
 * "Can't modify topic or subscription group from slave broker") and copies them from its master every
 * 10 s (`SlaveSynchronize`), so there the change goes to the masters and we wait for the slaves' copy.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseFastjson } from '../protocol/fastjson.js';
import { RequestCode } from '../protocol/request-code.js';
import { isPlainRecord } from '../util/plain-record.js';
import type { LocalClusterNode } from './cluster-node.js';
import { LocalBrokerError } from './local-broker-error.js';
import { oneShotRequest, type ProbeConnectOptions } from './route-probe.js';

const REQUEST_TIMEOUT_MS = 5000;
const SYNC_POLL_MS = 500;
/** A 4.x slave copies every 10 s; loaded machines stretch that. */
const SLAVE_SYNC_TIMEOUT_MS = 60_000;

/** One admin change: the request, and how to see it in a broker's `GET_ALL_*` table. */
export interface ClusterAdminChange {
  /** For messages: `topic T`, `subscription group G`. */
  what: string;
  request: { code: number; extFields: Record<string, string>; body?: Buffer };
  /** The request code listing the configs a slave copied (GET_ALL_TOPIC_CONFIG, ..._SUBSCRIPTIONGROUP_CONFIG). */
  listCode: number;
  /** The member of the list's body holding the table (`topicConfigTable`, `subscriptionGroupTable`). */
  tableName: string;
  /** The key in that table. */
  key: string;
  /** True when the listed config shows the change (e.g. the queue count). */
  applied: (config: Record<string, unknown>) => boolean;
}

/**
 * Applies `change` on every running broker, or on the running masters only when `slavesRefuseAdmin`,
 * then waits until every running slave lists it.
 */
export async function applyAcrossCluster(
  nodes: readonly LocalClusterNode[],
  change: ClusterAdminChange,
  options: { slavesRefuseAdmin: boolean; connect?: ProbeConnectOptions | undefined },
): Promise<void> {
  const running = nodes.filter((node) => node.running);
  const targets = options.slavesRefuseAdmin ? running.filter((node) => node.role === 'master') : running;
  for (const node of targets) {
    const response = await oneShotRequest(node.address, change.request, REQUEST_TIMEOUT_MS, options.connect);
    if (response.code !== 0) {
      throw new LocalBrokerError(
        `${node.address} refused to create ${change.what}: code ${response.code} ${response.remark ?? ''}`,
      );
    }
  }
  if (!options.slavesRefuseAdmin) return;
  const deadline = Date.now() + SLAVE_SYNC_TIMEOUT_MS;
  for (const slave of running.filter((node) => node.role === 'slave')) {
    while (!(await listed(slave, change, options.connect))) {
      if (Date.now() >= deadline) {
        throw new LocalBrokerError(
          `slave ${slave.brokerName}-${slave.brokerId} did not copy ${change.what} from its master within ${SLAVE_SYNC_TIMEOUT_MS} ms`,
        );
      }
      await sleep(SYNC_POLL_MS);
    }
  }
}

async function listed(
  node: LocalClusterNode,
  change: ClusterAdminChange,
  connect: ProbeConnectOptions | undefined,
): Promise<boolean> {
  const response = await oneShotRequest(
    node.address,
    { code: change.listCode, extFields: {} },
    REQUEST_TIMEOUT_MS,
    connect,
  );
  if (response.code !== 0 || response.body === undefined) return false;
  const body = parseFastjson(response.body, `${node.address} config list`);
  const table = isPlainRecord(body) ? body[change.tableName] : undefined;
  const config = isPlainRecord(table) ? table[change.key] : undefined;
  return isPlainRecord(config) && change.applied(config);
}

/**
 * The request codes and tables of a topic change, for {@link applyAcrossCluster}.
 */
export function topicChange(
  topic: string,
  request: ClusterAdminChange['request'],
  queues: number,
): ClusterAdminChange {
  return {
    what: `topic ${topic}`,
    request,
    listCode: RequestCode.GET_ALL_TOPIC_CONFIG,
    tableName: 'topicConfigTable',
    key: topic,
    applied: (config) => config.writeQueueNums === queues && config.readQueueNums === queues,
  };
}

/**
 * The request codes and tables of a subscription-group change, for {@link applyAcrossCluster}.
 */
export function subscriptionGroupChange(
  group: string,
  request: ClusterAdminChange['request'],
  brokerId: number,
): ClusterAdminChange {
  return {
    what: `subscription group ${group}`,
    request,
    listCode: RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
    tableName: 'subscriptionGroupTable',
    key: group,
    applied: (config) => (config.brokerId ?? 0) === brokerId,
  };
}
