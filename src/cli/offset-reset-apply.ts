/**
 * The side effects of `offsets reset` (offsets-command.ts): which stores refuse a reset whatever runs,
 * which pollers of a group run (a file store must not be reset under them), and applying a plan to the
 * store and to the brokers' copies of the group's offsets.
 */

import type { BrokerClient } from '../client/broker-client.js';
import { BrokerError } from '../client/broker-error.js';
import type { OffsetStore } from '../offsets/offset-store.js';
import { messageQueueKey } from '../protocol/message-queue.js';
import { ResponseCode } from '../protocol/response-code.js';
import { describeError } from '../util/describe-error.js';
import type { CliIo } from './cli-io.js';
import { type CommandTarget, isResettableStore, type TargetMapping } from './command-target.js';
import { EXIT_OK } from './exit-codes.js';
import type { QueueResetStep } from './offset-reset-plan.js';
import { queueLabel } from './queue-offsets.js';

/**
 * Applies a plan without refusals: the new offsets to the store (a new generation in DynamoDB; a
 * correction in a file store), then to the brokers' copies (UPDATE_CONSUMER_OFFSET to each queue's
 * master). Writes what it did; resolves with the exit code (1 when the store or a broker refused, with why).
 *
 * @example
 * ```ts
 * return applyReset(target, mapping, target.offsetStore(mapping), steps, addresses, io, fail);
 * ```
 */
export async function applyReset(
  target: CommandTarget,
  mapping: TargetMapping,
  store: OffsetStore,
  steps: readonly QueueResetStep[],
  addresses: ReadonlyMap<string, string>,
  io: CliIo,
  fail: (message: string) => number,
): Promise<number> {
  const planned = steps.flatMap((step) =>
    step.after === undefined ? [] : [{ queue: step.queue, after: step.after }],
  );
  try {
    if (isResettableStore(store)) {
      for (const { queue, after } of planned) await store.resetOffset(queue, after);
    } else {
      for (const { queue, after } of planned) store.correctOffset(queue, after);
      await store.persistAll(planned.map((p) => p.queue));
    }
  } catch (error) {
    return fail(`the offset store refused the reset: ${describeError(error)}`);
  }
  const brokerFailures: string[] = [];
  for (const { queue, after } of planned) {
    try {
      await target.client.broker.updateConsumerOffset(addresses.get(messageQueueKey(queue)) as string, {
        consumerGroup: mapping.consumerGroup,
        topic: queue.topic,
        queueId: queue.queueId,
        commitOffset: after,
        bname: queue.brokerName,
      });
    } catch (error) {
      // A broker that does not know the group keeps no offset of it: there is nothing to move.
      if (error instanceof BrokerError && error.code === ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST) continue;
      brokerFailures.push(`${queueLabel(queue)}: ${describeError(error)}`);
    }
  }
  io.stdout.write(
    `reset ${planned.length} queue(s) of ${mapping.name}${isResettableStore(store) ? ': running pollers resume there within a few seconds' : ''}\n`,
  );
  if (brokerFailures.length > 0) {
    return fail(
      `the store was reset, but the broker's copy of these offsets was not moved (a poller that starts before one runs may start at the broker's older copy): ${brokerFailures.join('; ')}`,
    );
  }
  return EXIT_OK;
}

/**
 * Why a safe reset cannot be applied to the mapping's store whatever runs, or undefined.
 *
 * @example
 * ```ts
 * unsafeStoreReason({ ...mapping, messageModel: 'BROADCASTING' }); // => 'audit is a BROADCASTING mapping: ...'
 * ```
 */
export function unsafeStoreReason(mapping: TargetMapping): string | undefined {
  if (mapping.messageModel === 'BROADCASTING') {
    return `${mapping.name} is a BROADCASTING mapping: every poller keeps its own offsets in its own files, out of reach from here`;
  }
  if (mapping.offsetStoreKind === 'memory') {
    return `${mapping.name} keeps its offsets in the poller's memory (offsets.store: memory): there is nothing to reset; a restarted poller starts at its startingPosition`;
  }
  return undefined;
}

/**
 * The client ids of the group's consumers the brokers know (any broker of the topic answers for the
 * group), or the reason none could be asked.
 *
 * @example
 * ```ts
 * const running = await runningPollers(target.client.broker, mapping.consumerGroup, ['127.0.0.1:10911']);
 * if ('ids' in running && running.ids.length > 0) refuse(running.ids);
 * ```
 */
export async function runningPollers(
  broker: Pick<BrokerClient, 'getConsumerListByGroup'>,
  consumerGroup: string,
  addresses: readonly string[],
): Promise<{ ids: string[] } | { unknown: string }> {
  const ids = new Set<string>();
  let failure: unknown;
  let answered = false;
  for (const address of addresses) {
    try {
      for (const id of await broker.getConsumerListByGroup(address, consumerGroup)) ids.add(id);
      answered = true;
    } catch (error) {
      // A broker that knows no consumer of the group answers SYSTEM_ERROR (its only refusal of this request).
      if (error instanceof BrokerError && error.code === ResponseCode.SYSTEM_ERROR) answered = true;
      else failure = error;
    }
  }
  return answered ? { ids: [...ids] } : { unknown: describeError(failure) };
}
