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
  PermName,
  readableQueues,
  type TopicRouteData,
} from '../../protocol/route-data.js';
import type { Logger } from '../../util/logger.js';
import { ThrottledLog } from '../../util/throttled-log.js';
import type { ConsumerClient } from '../consumer-client.js';

/**
 * The broker a pull goes to, and its id in the group (0: the master).
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
 */
export class TopicRouteTable {
  private readonly nameServer: ConsumerClient['nameServer'];
  private readonly log: Logger;
  private readonly routes = new Map<string, TopicRouteData>();
  private readonly brokers = new Map<string, BrokerData>();
  private readonly failures = new Map<string, unknown>();
  /** Since when the lookups of a topic have been failing (the first failure after a success). */
  private readonly failingSince = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<TopicRouteData | undefined>>();
  /** Topics whose route was assumed by {@link assumeRetryQueue}, not fetched. */
  private readonly assumed = new Set<string>();
  private readonly nameServerAddresses: ReadonlySet<string>;
  private readonly warnings: ThrottledLog;
  private readonly onBrokersAdded: ((addresses: string[]) => void) | undefined;

  constructor(options: {
    nameServer: ConsumerClient['nameServer'];
    log: Logger;
    /** The name servers asked, for {@link servedByProxy}. @default none: never a proxy */
    nameServerAddresses?: readonly string[] | undefined;
    /**
     * Told of the broker addresses a refreshed route names that no route named before (a consumer
     * heartbeats them at once, see membership-recovery.ts). Must not throw.
     */
    onBrokersAdded?: ((addresses: string[]) => void) | undefined;
  }) {
    this.nameServer = options.nameServer;
    this.log = options.log;
    this.nameServerAddresses = new Set(options.nameServerAddresses ?? []);
    this.warnings = new ThrottledLog(options.log);
    this.onBrokersAdded = options.onBrokersAdded;
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
      this.assumed.delete(topic);
      this.rebuildBrokers();
      this.failures.delete(topic);
      this.failingSince.delete(topic);
      this.warnings.clear(topic);
      return route;
    } catch (error) {
      this.failures.set(topic, error);
      if (!this.failingSince.has(topic)) this.failingSince.set(topic, Date.now());
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
    const before = this.onBrokersAdded === undefined ? undefined : new Set(this.allBrokerAddresses());
    this.brokers.clear();
    for (const [topic, route] of this.routes) {
      // An assumed route holds a copy of a broker group some fetched route names, maybe an older one.
      if (this.assumed.has(topic)) continue;
      for (const broker of route.brokerDatas) this.brokers.set(broker.brokerName, broker);
    }
    if (before === undefined) return;
    const added = this.allBrokerAddresses().filter((address) => !before.has(address));
    if (added.length > 0) this.onBrokersAdded?.(added);
  }

  /**
   * Assumes queue 0 of `retryTopic` on `brokerName` while the name servers know no route of it: called
   * after that broker group took a message back (CONSUMER_SEND_MSG_BACK creates `%RETRY%<group>` there,
   * with the group's `retryQueueNums` queues, 1 unless configured otherwise). Needed behind the 5.x proxy
   * in cluster mode, which answers the retry topic's route from a cache that keeps "no such topic" for 20 s
   * (docs/protocol.md, "Broker versions"). A route fetched later replaces the assumed one. Returns whether
   * the queue is new.
   */
  assumeRetryQueue(retryTopic: string, brokerName: string): boolean {
    const known = this.routes.get(retryTopic);
    if (known !== undefined && !this.assumed.has(retryTopic)) return false;
    if (known?.queueDatas.some((queue) => queue.brokerName === brokerName)) return false;
    const broker = this.brokers.get(brokerName);
    if (broker === undefined) return false;
    this.routes.set(retryTopic, {
      brokerDatas: [...(known?.brokerDatas ?? []), broker],
      queueDatas: [
        ...(known?.queueDatas ?? []),
        {
          brokerName,
          readQueueNums: 1,
          writeQueueNums: 1,
          perm: PermName.READ | PermName.WRITE,
          topicSysFlag: 0,
        },
      ],
    });
    this.assumed.add(retryTopic);
    this.log.info({ topic: retryTopic, brokerName }, 'retry topic has no route yet: assuming its queue 0');
    return true;
  }

  /**
   * Whether the name server is a 5.x proxy in cluster mode: a route names a name server address as a
   * broker (the proxy names itself as every broker). Such a proxy sends no NOTIFY_CONSUMER_IDS_CHANGED.
   */
  servedByProxy(): boolean {
    if (this.nameServerAddresses.size === 0) return false;
    for (const broker of this.brokers.values()) {
      for (const address of broker.brokerAddrs.values()) {
        if (this.nameServerAddresses.has(address)) return true;
      }
    }
    return false;
  }

  /** Why the last refresh of `topic` failed, or undefined when it succeeded (or never ran). */
  lastFailure(topic: string): unknown {
    return this.failures.get(topic);
  }

  /** Since when the lookups of `topic` have been failing (undefined when the last one succeeded). */
  failingSinceMs(topic: string): number | undefined {
    return this.failingSince.get(topic);
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
