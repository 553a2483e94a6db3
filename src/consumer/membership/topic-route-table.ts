/**
 * The routes of the topics one runtime subscribes to (its topic and, in clustering, `%RETRY%<group>`),
 * and the broker addresses they name: which queues to rebalance, which address to pull from, where to
 * send heartbeats and send-backs. Refreshed from the name server by the runtime's timer.
 */
import { BrokerError } from '../../client/broker-error.js';
import type { MessageQueue } from '../../protocol/message-queue.js';
import {
  type BrokerData,
  MASTER_BROKER_ID,
  masterAddress,
  readableQueues,
  type TopicRouteData,
} from '../../protocol/route-data.js';
import type { Logger } from '../../util/logger.js';
import { ThrottledLog } from '../../util/throttled-log.js';
import type { ConsumerClient } from '../consumer-client.js';

/**
 * The broker a pull goes to, and its id in the group (0: the master).
 *
 * @example
 * ```ts
 * const target: PullTarget = { address: '10.0.0.6:10911', brokerId: 1 };
 * ```
 */
export interface PullTarget {
  address: string;
  brokerId: number;
}

/**
 * Picks the broker of a group a pull goes to: the suggested broker id when the group lists it (the
 * master's `suggestWhichBrokerId`), else the master, else the replica with the lowest id (the master is
 * down: replicas keep serving reads, with `slaveReadEnable`). Java falls back to the next id, then to
 * whatever its hash map lists first; the lowest id is the same choice for the usual one slave and a
 * stable one for more.
 *
 * @example
 * ```ts
 * choosePullTarget(new Map([[0, 'm:10911'], [1, 's:10911']]), 1); // => { address: 's:10911', brokerId: 1 }
 * choosePullTarget(new Map([[1, 's:10911']]), 0);                  // => { address: 's:10911', brokerId: 1 }
 * ```
 */
export function choosePullTarget(
  brokerAddrs: ReadonlyMap<number, string>,
  suggestedBrokerId: number,
): PullTarget | undefined {
  // Runs once per pull: two lookups, no array.
  const suggested = brokerAddrs.get(suggestedBrokerId);
  if (suggested !== undefined) return { address: suggested, brokerId: suggestedBrokerId };
  const master = brokerAddrs.get(MASTER_BROKER_ID);
  if (master !== undefined) return { address: master, brokerId: MASTER_BROKER_ID };
  let lowest: PullTarget | undefined;
  for (const [brokerId, address] of brokerAddrs) {
    if (lowest === undefined || brokerId < lowest.brokerId) lowest = { address, brokerId };
  }
  return lowest;
}

/**
 * Routes and broker addresses of a set of topics.
 *
 * @example
 * ```ts
 * const routes = new TopicRouteTable({ nameServer: client.nameServer, log });
 * await routes.refresh('Orders');
 * routes.readableQueues('Orders');
 * routes.masterAddress('broker-a');
 * ```
 */
export class TopicRouteTable {
  private readonly nameServer: ConsumerClient['nameServer'];
  private readonly log: Logger;
  private readonly routes = new Map<string, TopicRouteData>();
  private readonly brokers = new Map<string, BrokerData>();
  private readonly failures = new Map<string, unknown>();
  private readonly inFlight = new Map<string, Promise<TopicRouteData | undefined>>();
  private readonly warnings: ThrottledLog;

  constructor(options: { nameServer: ConsumerClient['nameServer']; log: Logger }) {
    this.nameServer = options.nameServer;
    this.log = options.log;
    this.warnings = new ThrottledLog(options.log);
  }

  /**
   * Fetches the topic's route from the name server. Returns undefined (and keeps any older route) when
   * the lookup fails; a topic the name server does not know yet (the retry topic before the first
   * heartbeat) is logged at debug level only when `optional`.
   */
  async refresh(topic: string, options: { optional?: boolean } = {}): Promise<TopicRouteData | undefined> {
    try {
      const route = await this.nameServer.getRoute(topic, { refresh: true });
      this.routes.set(topic, route);
      this.rebuildBrokers();
      this.failures.delete(topic);
      this.warnings.clear(topic);
      return route;
    } catch (error) {
      this.failures.set(topic, error);
      const unknownTopic = error instanceof BrokerError && error.staleRoute;
      if (unknownTopic && options.optional) this.log.debug({ topic, err: error }, 'no route yet');
      else
        this.warnings.warn(topic, { topic, err: error }, 'route refresh failed, keeping the previous route');
      return undefined;
    }
  }

  /**
   * The broker groups named by the routes held now (the newest route wins for a group named twice), so a
   * broker group no route names any more is forgotten rather than kept for ever.
   */
  private rebuildBrokers(): void {
    this.brokers.clear();
    for (const route of this.routes.values()) {
      for (const broker of route.brokerDatas) this.brokers.set(broker.brokerName, broker);
    }
  }

  /** Why the last refresh of `topic` failed, or undefined when it succeeded (or never ran). */
  lastFailure(topic: string): unknown {
    return this.failures.get(topic);
  }

  /** The last route fetched for the topic. */
  route(topic: string): TopicRouteData | undefined {
    return this.routes.get(topic);
  }

  /** The topic's readable queues, sorted; undefined while the topic has no route. */
  readableQueues(topic: string): MessageQueue[] | undefined {
    const route = this.routes.get(topic);
    return route === undefined ? undefined : readableQueues(topic, route);
  }

  /** The master address of a broker group. */
  masterAddress(brokerName: string): string | undefined {
    const broker = this.brokers.get(brokerName);
    return broker === undefined ? undefined : masterAddress(broker);
  }

  /**
   * The address of `brokerId` in a broker group (what the broker's `suggestWhichBrokerId` names),
   * falling back to the master, then to any replica.
   */
  brokerAddress(brokerName: string, brokerId: number = MASTER_BROKER_ID): string | undefined {
    return this.pullTarget(brokerName, brokerId)?.address;
  }

  /**
   * Where a pull for a queue of `brokerName` goes, and which broker id answers it (Java
   * `MQClientInstance.findBrokerAddressInSubscribe`, not limited to that broker): see
   * {@link choosePullTarget}. Undefined while the group has no address at all.
   */
  pullTarget(brokerName: string, suggestedBrokerId: number = MASTER_BROKER_ID): PullTarget | undefined {
    const broker = this.brokers.get(brokerName);
    return broker === undefined ? undefined : choosePullTarget(broker.brokerAddrs, suggestedBrokerId);
  }

  /**
   * Refreshes `topic`'s route unless a refresh of it is already under way (then waits for that one): a
   * pull loop per queue that lost its broker asks at once, and the name server hears one request.
   */
  refreshSoon(topic: string): Promise<TopicRouteData | undefined> {
    let running = this.inFlight.get(topic);
    if (running === undefined) {
      running = this.refresh(topic).finally(() => this.inFlight.delete(topic));
      this.inFlight.set(topic, running);
    }
    return running;
  }

  /** A broker address serving the topic (a master if there is one), for group-level calls. */
  anyBrokerAddress(topic: string): string | undefined {
    const route = this.routes.get(topic);
    if (route === undefined) return undefined;
    const brokers = [...route.brokerDatas];
    const start = brokers.length === 0 ? 0 : Math.floor(Math.random() * brokers.length);
    for (let i = 0; i < brokers.length; i++) {
      const broker = brokers[(start + i) % brokers.length] as BrokerData;
      const address = masterAddress(broker) ?? broker.brokerAddrs.values().next().value;
      if (address !== undefined) return address;
    }
    return undefined;
  }

  /** Every address (masters and replicas) of every known broker: heartbeat and unregister targets. */
  allBrokerAddresses(): string[] {
    const addresses = new Set<string>();
    for (const broker of this.brokers.values()) {
      for (const address of broker.brokerAddrs.values()) addresses.add(address);
    }
    return [...addresses];
  }
}
