/**
 * Zone-nearby queue allocation (Java `AllocateMachineRoomNearby`, strategy `MACHINE_ROOM_NEARBY-<inner>`):
 * pollers pull from brokers in their own availability zone, which keeps pulls off cross-zone links, and
 * the queues of a zone where no poller runs are shared by all pollers, so nothing is left unowned.
 *
 * The queues are grouped by their broker's zone and the clients by theirs (zone-conventions.ts). The
 * queues of a zone that has clients are divided among those clients with the inner strategy; the queues
 * of a zone without clients are divided among all clients with the inner strategy, one zone at a time.
 * This is Java's algorithm, so a mixed group agrees as long as every member resolves zones alike. Java
 * refuses to allocate when a zone cannot be resolved; we go on instead: a queue whose broker has no
 * known zone is shared by all clients (its own group), and a client without a zone gets only shared
 * queues.
 */
import { messageQueueKey } from '../../protocol/message-queue.js';
import { averagelyStrategy } from './allocate-message-queue-averagely.js';
import type { AllocationStrategy } from './allocation-strategy.js';
import { clientZoneFromId } from './zone-conventions.js';

/** Options of {@link createZoneNearbyStrategy}. */
export interface ZoneNearbyOptions {
  /** Divides the queues of one zone among that zone's clients (or among all clients). */
  inner?: AllocationStrategy | undefined;
  /** The zone of a broker group, e.g. `brokerZoneLookup(config.brokerZones)`. */
  brokerZone: (brokerName: string) => string | undefined;
  /** The zone of a client id; {@link clientZoneFromId} unless told otherwise. */
  clientZone?: ((clientId: string) => string | undefined) | undefined;
}

/**
 * A zone-nearby {@link AllocationStrategy} around `inner` (default `AVG`).
 */
export function createZoneNearbyStrategy(options: ZoneNearbyOptions): AllocationStrategy {
  const inner = options.inner ?? averagelyStrategy;
  const { brokerZone } = options;
  const clientZone = options.clientZone ?? clientZoneFromId;
  return {
    name: `MACHINE_ROOM_NEARBY-${inner.name}`,
    allocate: (consumerGroup, currentClientId, queues, clientIds) => {
      if (!clientIds.includes(currentClientId)) return [];
      const clientsByZone = groupBy(clientIds, clientZone);
      const mine = new Set<string>();
      for (const [zone, zoneQueues] of groupBy(queues, (queue) => brokerZone(queue.brokerName))) {
        const sharers = (zone === undefined ? undefined : clientsByZone.get(zone)) ?? clientIds;
        if (!sharers.includes(currentClientId)) continue;
        for (const queue of inner.allocate(consumerGroup, currentClientId, zoneQueues, sharers)) {
          mine.add(messageQueueKey(queue));
        }
      }
      // In the input order: deterministic, and still sorted for whoever reads the result.
      return queues.filter((queue) => mine.has(messageQueueKey(queue)));
    },
  };
}

/** The items by key, each group in input order (so still sorted); undefined is a key of its own. */
function groupBy<T>(
  items: readonly T[],
  keyOf: (item: T) => string | undefined,
): Map<string | undefined, T[]> {
  const groups = new Map<string | undefined, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}
