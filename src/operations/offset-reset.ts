/**
 * Moving a mapping's committed offsets, safely while pollers run: plan (what each queue moves to, or why
 * it cannot), check (nobody would overwrite the reset), apply (the store, then the brokers' copies).
 *
 * A reset is safe while pollers run when the store takes it (the `resetOffset` capability of
 * offset-store.ts, DynamoDB): a new offset generation, which running pollers adopt at their next write
 * or, for an idle queue, through their reset watch (offset-reset-watch.ts), restarting the queue there.
 * The broker's copy of the group's committed offset is moved too (UPDATE_CONSUMER_OFFSET to the queue's
 * master): a poller starts a queue at the higher of the store's and the broker's offsets
 * (start-offset.ts), so a reset backwards that left the broker's copy alone would be undone by the next
 * start. Refused, with the reason: broadcasting mappings (each poller's own files), the memory store, a
 * store without the capability while a poller of the group runs, and consumeMode POP mappings (the brokers
 * keep their group's position).
 */
import type { BrokerClient } from '../client/broker-client.js';
import { BrokerError } from '../client/broker-error.js';
import type { NameServerClient } from '../client/name-server-client.js';
import { QueueReader } from '../client/queue-reader.js';
import { canReset, type OffsetStore } from '../offsets/offset-store.js';
import { type MessageQueue, messageQueueKey } from '../protocol/message-queue.js';
import { ResponseCode } from '../protocol/response-code.js';
import { describeError } from '../util/describe-error.js';
import { planQueueReset, type QueueResetStep, type ResetTo } from './offset-reset-plan.js';
import { OperationError } from './operation-error.js';
import { popOffsetsRefusal } from './pop-offsets-refusal.js';
import { readCommittedRecords } from './push-queue-positions.js';
import { queueLabel } from './queue-position.js';
import { runningPollers } from './running-pollers.js';
import type { TargetMapping } from './target.js';

/** Which queues a reset moves: a queue id on every broker group, or one queue `<broker>:<id>`. */
export interface QueueSelector {
  readonly brokerName: string | undefined;
  readonly queueId: number;
}

/** What a reset reads and writes: the brokers (a `Target` has them) and the mapping's offset store. */
export interface OffsetResetTarget {
  readonly client: {
    readonly nameServer: Pick<NameServerClient, 'getRoute'>;
    readonly broker: Pick<
      BrokerClient,
      | 'pullMessage'
      | 'getMinOffset'
      | 'getMaxOffset'
      | 'firstOffsetAtOrAfter'
      | 'updateConsumerOffset'
      | 'getConsumerListByGroup'
    >;
  };
  offsetStore(mapping: TargetMapping): OffsetStore;
}

/** A planned reset: one step per queue (before -> after, or why it cannot move). */
export interface OffsetResetPlan {
  readonly mapping: TargetMapping;
  readonly to: ResetTo;
  readonly steps: readonly QueueResetStep[];
  /** The steps refused (nothing may be applied while there is one). */
  readonly refused: readonly QueueResetStep[];
  /** The master address of each queue, by queue key. */
  readonly addresses: ReadonlyMap<string, string>;
}

/** What an applied reset did. */
export interface OffsetResetResult {
  /** Queues whose stored offset was moved. */
  readonly reset: number;
  /** The store is shared by the group's pollers: running ones resume at the new offsets within seconds. */
  readonly adoptedByRunningPollers: boolean;
  /** Queues whose broker copy could not be moved, with why (the store was moved all the same). */
  readonly brokerFailures: readonly string[];
}

/**
 * Why no reset can apply to the mapping whatever runs (a POP mapping, a broadcasting one, the memory
 * store), or undefined.
 */
export function offsetResetRefusal(mapping: TargetMapping): string | undefined {
  const pop = popOffsetsRefusal(mapping);
  if (pop !== undefined) return pop;
  if (mapping.messageModel === 'BROADCASTING') {
    return `${mapping.name} is a BROADCASTING mapping: every poller keeps its own offsets in its own files, out of reach from here`;
  }
  if (mapping.offsetStoreKind === 'memory') {
    return `${mapping.name} keeps its offsets in the poller's memory (offsets.store: memory): there is nothing to reset; a restarted poller starts at its startingPosition`;
  }
  return undefined;
}

/**
 * Plans the reset of `mapping`'s queues (all readable ones, or those `selector` names) to `to`: reads the
 * route, each queue's master, its min/max offsets (and for a time the first offset at or after it) and the
 * committed offsets. Throws an {@link OperationError}: `refused` ({@link offsetResetRefusal}), `invalid`
 * (the selector names no queue), `failed` (a broker or the store could not be read).
 */
export async function planOffsetReset(
  target: OffsetResetTarget,
  mapping: TargetMapping,
  to: ResetTo,
  selector?: QueueSelector | undefined,
): Promise<OffsetResetPlan> {
  const refusal = offsetResetRefusal(mapping);
  if (refusal !== undefined) throw new OperationError('refused', refusal);
  const reader = new QueueReader({ client: target.client, consumerGroup: mapping.consumerGroup });
  try {
    const all = (await reader.queues(mapping.topic)).filter((q) => q.readable).map((q) => q.queue);
    const queues = selector === undefined ? all : all.filter((q) => matches(selector, q));
    if (queues.length === 0) {
      throw new OperationError(
        'invalid',
        `no queue ${selectorText(selector)} in topic ${mapping.topic}; its queues: ${all.map((q) => `${q.brokerName}:${q.queueId}`).join(', ')}`,
      );
    }
    const addresses = new Map(
      await Promise.all(
        queues.map(async (q) => [messageQueueKey(q), await reader.masterAddress(q)] as [string, string]),
      ),
    );
    const records = await readCommittedRecords(target.offsetStore(mapping), queues).catch(
      (error: unknown) => {
        throw new OperationError('failed', `the offset store cannot be read: ${describeError(error)}`, {
          cause: error,
        });
      },
    );
    const broker = target.client.broker;
    const steps = await Promise.all(
      queues.map(async (queue) => {
        const address = addresses.get(messageQueueKey(queue)) as string;
        const header = { topic: queue.topic, queueId: queue.queueId, bname: queue.brokerName };
        const [minOffset, maxOffset, searchedOffset] = await Promise.all([
          broker.getMinOffset(address, header),
          broker.getMaxOffset(address, header),
          to.kind === 'time'
            ? broker.firstOffsetAtOrAfter(address, {
                ...header,
                consumerGroup: mapping.consumerGroup,
                timestamp: to.timestampMs,
              })
            : undefined,
        ]);
        const committed = records.get(messageQueueKey(queue))?.offset;
        return planQueueReset(to, { queue, minOffset, maxOffset, committed, searchedOffset });
      }),
    );
    return { mapping, to, steps, refused: steps.filter((step) => step.refused !== undefined), addresses };
  } catch (error) {
    if (error instanceof OperationError) throw error;
    throw new OperationError('failed', `the broker cannot be read: ${describeError(error)}`, {
      cause: error,
    });
  }
}

/**
 * Checks that nobody would overwrite the reset: a store without the reset capability (a file store)
 * belongs to its poller, which must not run. Throws an {@link OperationError} `refused` when one runs
 * or the brokers cannot tell.
 */
export async function checkOffsetResetSafe(target: OffsetResetTarget, plan: OffsetResetPlan): Promise<void> {
  const { mapping } = plan;
  if (canReset(target.offsetStore(mapping))) return;
  const running = await runningPollers(target.client.broker, mapping.consumerGroup, [
    ...new Set(plan.addresses.values()),
  ]);
  if ('unknown' in running) {
    throw new OperationError(
      'refused',
      `cannot tell whether a poller of the group runs (the brokers did not say: ${running.unknown})`,
    );
  }
  if (running.ids.length > 0) {
    throw new OperationError(
      'refused',
      `the ${mapping.offsetStoreKind} store of ${mapping.name} belongs to a running poller (${running.ids.join(', ')}), which would overwrite the reset with its own offsets: stop it first`,
    );
  }
}

/**
 * Applies a plan without refused steps: the new offsets to the store (a new generation where the store
 * can reset; a correction of a file store), then to the brokers' copies. Throws an
 * {@link OperationError} `failed` when the store refused; a broker that refused is reported in the result.
 */
export async function applyOffsetReset(
  target: OffsetResetTarget,
  plan: OffsetResetPlan,
): Promise<OffsetResetResult> {
  const { mapping } = plan;
  if (plan.refused.length > 0) {
    throw new OperationError(
      'refused',
      `${plan.refused.length} of ${plan.steps.length} queues cannot be reset`,
    );
  }
  const store = target.offsetStore(mapping);
  const planned = plan.steps.flatMap((step) =>
    step.after === undefined ? [] : [{ queue: step.queue, after: step.after }],
  );
  try {
    if (canReset(store)) {
      for (const { queue, after } of planned) await store.resetOffset(queue, after);
    } else {
      for (const { queue, after } of planned) store.correctOffset(queue, after);
      await store.persistAll(planned.map((p) => p.queue));
    }
  } catch (error) {
    throw new OperationError('failed', `the offset store refused the reset: ${describeError(error)}`, {
      cause: error,
    });
  }
  const brokerFailures: string[] = [];
  for (const { queue, after } of planned) {
    try {
      await target.client.broker.updateConsumerOffset(plan.addresses.get(messageQueueKey(queue)) as string, {
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
  return { reset: planned.length, adoptedByRunningPollers: canReset(store), brokerFailures };
}

function matches(selector: QueueSelector, queue: MessageQueue): boolean {
  return (
    queue.queueId === selector.queueId &&
    (selector.brokerName === undefined || selector.brokerName === queue.brokerName)
  );
}

function selectorText(selector: QueueSelector | undefined): string {
  if (selector === undefined) return '';
  return selector.brokerName === undefined
    ? String(selector.queueId)
    : `${selector.brokerName}:${selector.queueId}`;
}
