/**
 * The queue positions of a target's mappings (queue-position.ts), whatever their consume mode: what
 * `status` shows, and what an admin surface would serve.
 */
import { readPopQueuePositions } from './pop-queue-positions.js';
import { readPushQueuePositions } from './push-queue-positions.js';
import type { MappingPositions, ReadPositionsOptions } from './queue-position.js';
import type { Target, TargetMapping } from './target.js';

/**
 * The positions of `mapping`: from its offset store (PUSH; with `retryQueues`, its retry queues too) or
 * from the brokers (POP, its POP retry queues always). Never throws for an unreachable broker or store:
 * the result says which could not be read.
 */
export function readQueuePositions(
  target: Pick<Target, 'client' | 'offsetStore'>,
  mapping: TargetMapping,
  options: ReadPositionsOptions = {},
): Promise<MappingPositions> {
  return mapping.consumeMode === 'POP'
    ? readPopQueuePositions(target.client, mapping, options)
    : readPushQueuePositions(target.client, mapping, target.offsetStore(mapping), options);
}
