/**
 * Builds a mapping's {@link AllocationStrategy} from configuration values. The values are Java's strategy
 * names, so users who know Java's client recognise them; every poller of a group (and every Java consumer
 * in it) must be configured alike, or queues end up held twice or not at all.
 */
import { RocketMQError } from '../../errors.js';
import { averagelyStrategy } from './allocate-message-queue-averagely.js';
import { averagelyByCircleStrategy } from './allocate-message-queue-averagely-by-circle.js';
import { createConsistentHashStrategy } from './allocate-message-queue-consistent-hash.js';
import { createZoneNearbyStrategy } from './allocate-zone-nearby.js';
import type { AllocationStrategy } from './allocation-strategy.js';
import { brokerZoneLookup } from './zone-conventions.js';

/** The strategy names {@link createAllocationStrategy} accepts (Java's `getName()` values). */
export const ALLOCATION_STRATEGY_NAMES = ['AVG', 'AVG_BY_CIRCLE', 'CONSISTENT_HASH'] as const;

/** One of {@link ALLOCATION_STRATEGY_NAMES}. */
export type AllocationStrategyName = (typeof ALLOCATION_STRATEGY_NAMES)[number];

/** What {@link createAllocationStrategy} builds a strategy from. */
export interface AllocationStrategyConfig {
  /** @default 'AVG' */
  strategy?: AllocationStrategyName | undefined;
  /** Points per client on the ring of `CONSISTENT_HASH`. @default 10 */
  virtualNodes?: number | undefined;
  /**
   * When set, queues go to pollers in their broker's zone first (allocate-zone-nearby.ts), divided by
   * `strategy`. Brokers' zones come from `brokerZones` (broker name to zone), else from a `<zone>@<name>`
   * broker name; pollers' zones from their client ids (zone-conventions.ts).
   */
  zoneNearby?: { brokerZones?: Readonly<Record<string, string>> | undefined } | undefined;
}

/**
 * The strategy `config` describes. Throws a permanent {@link RocketMQError} on an unknown name or an
 * invalid `virtualNodes`.
 */
export function createAllocationStrategy(config: AllocationStrategyConfig = {}): AllocationStrategy {
  const base = baseStrategy(config);
  const zoneNearby = config.zoneNearby;
  if (zoneNearby === undefined) return base;
  return createZoneNearbyStrategy({ inner: base, brokerZone: brokerZoneLookup(zoneNearby.brokerZones) });
}

function baseStrategy(config: AllocationStrategyConfig): AllocationStrategy {
  const name = config.strategy ?? 'AVG';
  switch (name) {
    case 'AVG':
      return averagelyStrategy;
    case 'AVG_BY_CIRCLE':
      return averagelyByCircleStrategy;
    case 'CONSISTENT_HASH':
      return createConsistentHashStrategy({ virtualNodes: config.virtualNodes });
    default:
      throw new RocketMQError(
        `unknown allocation strategy ${JSON.stringify(name)}; expected one of ${ALLOCATION_STRATEGY_NAMES.join(', ')}`,
        { permanent: true },
      );
  }
}
