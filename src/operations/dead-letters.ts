/**
 * A mapping's dead letters as an operator reaches them: its group's DLQ (dead-letter-queue.ts) and its
 * queues, and which redrives the broker would undo.
 */
import type { RoutedQueue } from '../client/queue-reader.js';
import { popRetryTopic } from '../protocol/pop-extra-info.js';
import type { RedriveTarget } from './dead-letter.js';
import { DeadLetterQueue } from './dead-letter-queue.js';
import type { Target, TargetMapping } from './target.js';

/** A mapping's DLQ and its queues (none: the group has no dead letter yet). */
export interface DeadLetters {
  readonly dlq: DeadLetterQueue;
  /** Empty when the DLQ topic does not exist yet: RocketMQ creates it with the group's first dead letter. */
  readonly queues: readonly RoutedQueue[];
}

/** Finds `mapping`'s DLQ and its queues (one route lookup). */
export async function openDeadLetters(
  target: Pick<Target, 'client'>,
  mapping: TargetMapping,
): Promise<DeadLetters> {
  const dlq = new DeadLetterQueue({ client: target.client, consumerGroup: mapping.consumerGroup });
  return { dlq, queues: (await dlq.queues()) ?? [] };
}

/**
 * Why a redrive of `mapping`'s dead letters to `to` would not reach its group again, or undefined: a POP
 * group takes retries only from the broker's POP retry topic, and the broker puts a message for the retry
 * topic of an orderly group (one holding queue locks) straight back into the DLQ.
 */
export function redriveRefusal(
  target: Pick<Target, 'config'>,
  mapping: TargetMapping,
  to: RedriveTarget,
): string | undefined {
  if (to !== 'retry') return undefined;
  if (mapping.consumeMode === 'POP') {
    // PopMessageProcessor pops %RETRY%<group>_<topic>, never %RETRY%<group>; and a send to the POP
    // retry topic is checked by SendMessageProcessor against the group KeyBuilder.parseGroup reads
    // out of it, '<group>_<topic>', which does not exist.
    return `mapping ${mapping.name} is consumeMode POP: its group takes retries only from the broker's POP retry topic ${popRetryTopic(mapping.topic, mapping.consumerGroup)}, which a producer cannot address; use --to topic (every group subscribed to ${mapping.topic} receives them again)`;
  }
  const settings = target.config.mappings.find((m) => m.name === mapping.name);
  if (settings?.orderly !== true) return undefined;
  // SendMessageProcessor: a send to the retry topic of a group with live queue locks goes to the DLQ.
  return `mapping ${mapping.name} is orderly: the broker puts a message for the retry topic of a group that holds queue locks straight back into the DLQ; use --to topic`;
}
