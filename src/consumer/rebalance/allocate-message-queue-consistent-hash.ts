/**
 * Consistent-hash queue allocation (Java `AllocateMessageQueueConsistentHash`, strategy
 * `CONSISTENT_HASH`): each client is placed on a hash ring at `virtualNodes` points, and a queue belongs
 * to the client of the first point at or after the queue's hash (wrapping around). A client joining or
 * leaving moves only the queues next to its points, at the price of a less even spread than `AVG`.
 *
 * Hashes and keys are Java's, so a mixed group agrees on every queue: the hash of a string is the first
 * four bytes of its MD5 digest (UTF-8), read as an unsigned big-endian number; a client's points hash
 * `<clientId>-<i>` for `i` in `0..virtualNodes-1`; a queue hashes Java's `MessageQueue.toString()`,
 * `MessageQueue [topic=T, brokerName=B, queueId=N]`. When two points collide, the one placed later (later
 * client id, then higher `i`) wins, as in Java's TreeMap.
 */
import { createHash } from 'node:crypto';
import { RocketMQError } from '../../errors.js';
import type { MessageQueue } from '../../protocol/message-queue.js';
import type { AllocationStrategy } from './allocation-strategy.js';

/** Java's default number of points per client (`new AllocateMessageQueueConsistentHash()`). */
export const DEFAULT_VIRTUAL_NODES = 10;
/** Upper bound of `virtualNodes` (the ring is rebuilt at every rebalance). */
export const MAX_VIRTUAL_NODES = 1000;

/** Options of {@link createConsistentHashStrategy}. */
export interface ConsistentHashOptions {
  /**
   * Points per client on the ring; every client of the group (Java ones too) must use the same number.
   * @default 10
   */
  virtualNodes?: number | undefined;
}

/**
 * A consistent-hash {@link AllocationStrategy}. Throws a permanent {@link RocketMQError} when
 * `virtualNodes` is not an integer in 1..{@link MAX_VIRTUAL_NODES} (Java accepts 0, which leaves every
 * queue unowned).
 */
export function createConsistentHashStrategy(options: ConsistentHashOptions = {}): AllocationStrategy {
  const virtualNodes = options.virtualNodes ?? DEFAULT_VIRTUAL_NODES;
  if (!Number.isInteger(virtualNodes) || virtualNodes < 1 || virtualNodes > MAX_VIRTUAL_NODES) {
    throw new RocketMQError(
      `consistent-hash virtualNodes must be an integer from 1 to ${MAX_VIRTUAL_NODES}, got ${virtualNodes}`,
      { permanent: true },
    );
  }
  return {
    name: 'CONSISTENT_HASH',
    allocate: (_consumerGroup, currentClientId, queues, clientIds) => {
      if (!clientIds.includes(currentClientId)) return [];
      const ring = buildRing(clientIds, virtualNodes);
      return queues.filter(
        (queue) => ownerOnRing(ring, ringHash(javaQueueString(queue))) === currentClientId,
      );
    },
  };
}

/** The points of the ring sorted by hash, each with its client id. */
interface Ring {
  readonly hashes: readonly number[];
  readonly owners: readonly string[];
}

function buildRing(clientIds: readonly string[], virtualNodes: number): Ring {
  // A Map keyed by hash: a colliding point placed later replaces the earlier one, as Java's put does.
  const points = new Map<number, string>();
  for (const clientId of clientIds) {
    for (let i = 0; i < virtualNodes; i++) points.set(ringHash(`${clientId}-${i}`), clientId);
  }
  const sorted = [...points].sort(([a], [b]) => a - b);
  return { hashes: sorted.map(([hash]) => hash), owners: sorted.map(([, owner]) => owner) };
}

/** The owner of the first point at or after `hash`, wrapping around to the first point. */
function ownerOnRing(ring: Ring, hash: number): string | undefined {
  let low = 0;
  let high = ring.hashes.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((ring.hashes[mid] ?? 0) < hash) low = mid + 1;
    else high = mid;
  }
  return ring.owners[low < ring.owners.length ? low : 0];
}

/** The first four bytes of the MD5 digest of `key` (UTF-8), unsigned big-endian. */
function ringHash(key: string): number {
  return createHash('md5').update(key, 'utf8').digest().readUInt32BE(0);
}

function javaQueueString(queue: MessageQueue): string {
  return `MessageQueue [topic=${queue.topic}, brokerName=${queue.brokerName}, queueId=${queue.queueId}]`;
}
