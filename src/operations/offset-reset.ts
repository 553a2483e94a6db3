/**
 * Moving a mapping's committed offsets, safely while pollers run: plan (what each queue moves to, what
 * that redelivers or skips, or why it cannot), check (nobody would overwrite the reset), apply (queue by
 * queue: the store and the brokers' copies).
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
 *
 * Interruption. The apply goes one queue at a time and the store write is each queue's commit point:
 * when the broker's copy must come down it is lowered first (alone it changes nothing, the store's
 * higher offset still wins), otherwise it follows the store. A queue is thus either moved or not, even
 * after a SIGKILL between the two writes, and a rerun of the same reset only writes what is still
 * missing: queues whose store and broker copies are at the target already are reported as such and not
 * written again (no new generation, nothing redelivered twice).
 */
import type { BrokerClient } from '../client/broker-client.js';
import { BrokerError } from '../client/broker-error.js';
import type { NameServerClient } from '../client/name-server-client.js';
import { QueueReader } from '../client/queue-reader.js';
import { BrokerCommittedOffsets } from '../consumer/rebalance/broker-committed-offset.js';
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
      | 'queryConsumerOffsetAnswer'
      | 'getAllConsumerOffset'
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

/** What became of one queue of an applied reset. */
export interface QueueResetOutcome {
  readonly queue: MessageQueue;
  /** `moved`: written now; `already there`: nothing to write; `not moved`: stopped before it. */
  readonly state: 'moved' | 'already there' | 'not moved';
  /** Why the broker's copy could not be moved (the store was moved all the same). */
  readonly brokerFailure?: string | undefined;
}

/** What an applied reset did. */
export interface OffsetResetResult {
  /** Queues moved now. */
  readonly reset: number;
  /** Queues whose store and broker copies were at the target already. */
  readonly alreadyThere: number;
  /** Every queue of the plan, in order, with what became of it. */
  readonly outcomes: readonly QueueResetOutcome[];
  /** Stopped by the caller's signal after the queue in flight: the rest are `not moved`. */
  readonly interrupted: boolean;
  /** Why the store refused a queue's write: the apply stopped there (that queue and the rest not moved). */
  readonly storeFailure?: string | undefined;
  /** The store is shared by the group's pollers: running ones resume at the new offsets within seconds. */
  readonly adoptedByRunningPollers: boolean;
  /** Queues whose broker copy could not be moved, with why (the store was moved all the same). */
  readonly brokerFailures: readonly string[];
}

/** Options of {@link applyOffsetReset}. */
export interface ApplyOffsetResetOptions {
  /** Once aborted, the queue in flight is finished and the rest are left alone (`not moved`). */
  readonly signal?: AbortSignal | undefined;
  /** Told after each queue (progress). */
  readonly onQueue?: ((outcome: QueueResetOutcome) => void) | undefined;
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
 * Plans the reset of `mapping`'s queues (all readable ones, or those the selectors name) to `to`: reads the
 * route, each queue's master, its min/max offsets (and for a time the first offset at or after it) and the
 * committed offsets. Throws an {@link OperationError}: `refused` ({@link offsetResetRefusal}), `invalid`
 * (the selector names no queue), `failed` (a broker or the store could not be read).
 */
export async function planOffsetReset(
  target: OffsetResetTarget,
  mapping: TargetMapping,
  to: ResetTo,
  selector?: QueueSelector | readonly QueueSelector[] | undefined,
): Promise<OffsetResetPlan> {
  const selectors = selector === undefined ? [] : 'queueId' in selector ? [selector] : selector;
  const refusal = offsetResetRefusal(mapping);
  if (refusal !== undefined) throw new OperationError('refused', refusal);
  const reader = new QueueReader({ client: target.client, consumerGroup: mapping.consumerGroup });
  try {
    const all = (await reader.queues(mapping.topic)).filter((q) => q.readable).map((q) => q.queue);
    const unmatched = selectors.filter((sel) => !all.some((q) => matches(sel, q)));
    if (unmatched.length > 0) {
      throw new OperationError(
        'invalid',
        `no queue ${unmatched.map(selectorText).join(', ')} in topic ${mapping.topic}; its queues: ${all.map((q) => `${q.brokerName}:${q.queueId}`).join(', ')}`,
      );
    }
    const queues = selectors.length === 0 ? all : all.filter((q) => selectors.some((sel) => matches(sel, q)));
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
    const brokerCopies = new BrokerCommittedOffsets(broker, mapping.consumerGroup);
    const searchAt = (address: string, queue: MessageQueue, timestamp: number): Promise<number> =>
      broker.firstOffsetAtOrAfter(address, {
        topic: queue.topic,
        queueId: queue.queueId,
        bname: queue.brokerName,
        consumerGroup: mapping.consumerGroup,
        timestamp,
      });
    const steps = await Promise.all(
      queues.map(async (queue) => {
        const address = addresses.get(messageQueueKey(queue)) as string;
        const header = { topic: queue.topic, queueId: queue.queueId, bname: queue.brokerName };
        const [minOffset, maxOffset, searchedOffset, brokerCommitted] = await Promise.all([
          broker.getMinOffset(address, header),
          broker.getMaxOffset(address, header),
          to.kind === 'time' ? searchAt(address, queue, to.timestampMs) : undefined,
          brokerCopies.read(address, queue),
        ]);
        const committed = records.get(messageQueueKey(queue))?.offset;
        // Where a poller would start the queue without any committed offset (start-offset.ts).
        let startOffset: number | undefined;
        if (committed === undefined && brokerCommitted === undefined) {
          startOffset =
            mapping.startingPosition === 'LATEST'
              ? maxOffset
              : mapping.startingPosition === 'AT_TIMESTAMP' &&
                  mapping.startingPositionTimestampMs !== undefined
                ? await searchAt(address, queue, mapping.startingPositionTimestampMs)
                : minOffset;
        }
        return planQueueReset(to, {
          queue,
          minOffset,
          maxOffset,
          committed,
          brokerCommitted,
          startOffset,
          searchedOffset,
        });
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
 * Applies a plan without refused steps, one queue at a time (file comment: each queue is moved or not,
 * and a rerun writes only what is missing). Stops before the next queue once `options.signal` is aborted,
 * and at the first queue the store refuses (`storeFailure`); a broker that refused is reported in
 * `brokerFailures`.
 */
export async function applyOffsetReset(
  target: OffsetResetTarget,
  plan: OffsetResetPlan,
  options: ApplyOffsetResetOptions = {},
): Promise<OffsetResetResult> {
  const { mapping } = plan;
  if (plan.refused.length > 0) {
    throw new OperationError(
      'refused',
      `${plan.refused.length} of ${plan.steps.length} queues cannot be reset`,
    );
  }
  const store = target.offsetStore(mapping);
  const outcomes: QueueResetOutcome[] = [];
  const brokerFailures: string[] = [];
  let interrupted = false;
  let storeFailure: string | undefined;
  const moveBrokerCopy = async (queue: MessageQueue, after: number): Promise<string | undefined> => {
    try {
      await target.client.broker.updateConsumerOffset(plan.addresses.get(messageQueueKey(queue)) as string, {
        consumerGroup: mapping.consumerGroup,
        topic: queue.topic,
        queueId: queue.queueId,
        commitOffset: after,
        bname: queue.brokerName,
      });
      return undefined;
    } catch (error) {
      // A broker that does not know the group keeps no offset of it: there is nothing to move.
      if (error instanceof BrokerError && error.code === ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST) {
        return undefined;
      }
      return `${queueLabel(queue)}: ${describeError(error)}`;
    }
  };
  const moveStore = async (queue: MessageQueue, after: number): Promise<void> => {
    if (canReset(store)) {
      await store.resetOffset(queue, after);
    } else {
      store.correctOffset(queue, after);
      await store.persistAll([queue]);
    }
  };
  for (const step of plan.steps) {
    const { queue, after } = step;
    if (after === undefined) continue;
    if (interrupted || storeFailure !== undefined || options.signal?.aborted === true) {
      interrupted ||= storeFailure === undefined;
      outcomes.push({ queue, state: 'not moved' });
      continue;
    }
    if (step.alreadyThere) {
      const outcome: QueueResetOutcome = { queue, state: 'already there' };
      outcomes.push(outcome);
      options.onQueue?.(outcome);
      continue;
    }
    // Lowering the broker's copy alone changes nothing (the store's higher offset wins): first. Raising
    // it, or leaving it, follows the store, whose write is the queue's commit point.
    const brokerFirst = step.brokerCommitted !== undefined && step.brokerCommitted > after;
    const brokerNeeded = step.brokerCommitted !== after;
    let brokerFailure = brokerFirst ? await moveBrokerCopy(queue, after) : undefined;
    if (step.committed !== after) {
      try {
        await moveStore(queue, after);
      } catch (error) {
        storeFailure = `${queueLabel(queue)}: ${describeError(error)}`;
        outcomes.push({ queue, state: 'not moved' });
        continue;
      }
    }
    if (!brokerFirst && brokerNeeded) brokerFailure = await moveBrokerCopy(queue, after);
    if (brokerFailure !== undefined) brokerFailures.push(brokerFailure);
    const outcome: QueueResetOutcome = { queue, state: 'moved', brokerFailure };
    outcomes.push(outcome);
    options.onQueue?.(outcome);
  }
  return {
    reset: outcomes.filter((o) => o.state === 'moved').length,
    alreadyThere: outcomes.filter((o) => o.state === 'already there').length,
    outcomes,
    interrupted,
    storeFailure,
    adoptedByRunningPollers: canReset(store),
    brokerFailures,
  };
}

function matches(selector: QueueSelector, queue: MessageQueue): boolean {
  return (
    queue.queueId === selector.queueId &&
    (selector.brokerName === undefined || selector.brokerName === queue.brokerName)
  );
}

function selectorText(selector: QueueSelector): string {
  return selector.brokerName === undefined
    ? String(selector.queueId)
    : `${selector.brokerName}:${selector.queueId}`;
}
