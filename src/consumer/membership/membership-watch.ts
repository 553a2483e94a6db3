/**
 * Notices a change of the group's members without NOTIFY_CONSUMER_IDS_CHANGED. A broker pushes that
 * notification to every member when one joins or leaves, and the member rebalances at once; the 5.x proxy
 * in cluster mode never sends it (its consumer-change listener does nothing with a change;
 * docs/protocol.md, "Broker versions"), so a member would learn of a change only at its next periodic
 * rebalance (`rebalanceIntervalMs`, 20 s by default): an orderly queue whose owner left would wait that
 * long, and a newcomer's locks would be refused that long. The watch asks for the consumer list, which the
 * proxy answers from its own memory, and asks for a rebalance when the list differs from the one the last
 * rebalance used.
 */
import type { ConsumerBrokerCalls } from '../consumer-client.js';
import type { TopicRouteTable } from './topic-route-table.js';

/** How often the watch asks for the consumer list, when it runs at all. */
export const MEMBERSHIP_CHECK_INTERVAL_MS = 1000;

/** Options of {@link MembershipWatch}. */
export interface MembershipWatchOptions {
  broker: Pick<ConsumerBrokerCalls, 'getConsumerListByGroup'>;
  routes: Pick<TopicRouteTable, 'anyBrokerAddress' | 'servedByProxy'>;
  consumerGroup: string;
  topic: string;
  /** The members the last rebalance divided the queues among. */
  members: () => ReadonlySet<string>;
  /** Called when the consumer list differs from {@link members}. */
  onChange: () => void;
}

/**
 * Compares the group's consumer list with the last rebalance's, behind a proxy only.
 */
export class MembershipWatch {
  constructor(private readonly options: MembershipWatchOptions) {}

  /**
   * Asks for the consumer list when the name server is a proxy, and calls `onChange` when it differs.
   * Rejects when the list cannot be read (the periodic rebalance reports that too).
   */
  async check(): Promise<void> {
    const o = this.options;
    if (!o.routes.servedByProxy()) return;
    const address = o.routes.anyBrokerAddress(o.topic);
    if (address === undefined) return;
    const known = o.members();
    if (known.size === 0) return;
    const listed = await o.broker.getConsumerListByGroup(address, o.consumerGroup);
    if (listed.length === 0) return;
    const now = new Set(listed);
    if (now.size !== known.size || [...now].some((id) => !known.has(id))) {
      o.onChange();
    }
  }
}
