/**
 * Why `offsets show` and `offsets reset` do not apply to a POP mapping: its position is the group's
 * consumer offset at the brokers (docs/protocol.md, POP consumption), so the offsets table holds nothing
 * of it and a reset written there would never be read.
 */
import type { TargetMapping } from './target.js';

/**
 * Why the offsets commands refuse `mapping` (undefined for a PUSH mapping), with what to do instead:
 * `status` for where the group stands, RocketMQ's mqadmin to move the group's offsets at the brokers.
 */
export function popOffsetsRefusal(mapping: TargetMapping): string | undefined {
  if (mapping.consumeMode !== 'POP') return undefined;
  return `${mapping.name} is a consumeMode POP mapping: the brokers keep group ${mapping.consumerGroup}'s position (its consumer offsets, moved at pop time), not the offsets table; see it with rocketmq-lambda status --mapping ${mapping.name}, move it with mqadmin resetOffsetByTime -g ${mapping.consumerGroup} -t ${mapping.topic} -s <epoch ms|now>`;
}
