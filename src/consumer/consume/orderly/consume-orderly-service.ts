/**
 * Orderly consumption (Java `ConsumeMessageOrderlyService`; docs/architecture.md): one batch in flight per
 * queue, in queue-offset order, at most `maxConcurrency` queues consuming at once. In clustering mode a
 * queue is consumed only while this client holds its broker lock (taken on assignment, renewed every
 * 20 s by {@link QueueLockManager}, seen as expired after 30 s); a queue given up is unlocked once its
 * in-flight batch ended, so the next owner never overlaps with us.
 *
 * Results (applied by orderly-result-applier.ts): records are settled in order: a succeeded record, or
 * (with `orderlyFailure: 'skip'`) a failed one the DLQ took, and the offset is committed up to the first record that must be retried (stored with
 * overwrite semantics, as Java's orderly commit). That record and everything after it go back to the
 * queue and are delivered again after `suspendCurrentQueueTimeMs`, each with `reconsumeTimes + 1` (kept
 * in memory: the event shows the local redeliveries). Only the records a result blames (the named ones
 * of a PARTIAL, every record of a FAILED batch) count towards `maxReconsumeTimes`: a record merely
 * queued behind a failed one is redelivered, not blamed. With `'skip'`, a blamed record that already
 * failed `maxReconsumeTimes` times, or one the result dead-letters (`deadLetter`), is handed to
 * `%DLQ%<group>` with CONSUMER_SEND_MSG_BACK and delay level −1 (the broker writes it straight to the
 * DLQ, whatever the group's locks or the broker a retry-topic send would reach) and settled; if that
 * hand-off fails it is retried like any failure, never committed past. With `'block'` nothing is ever
 * skipped: such records are retried forever (counted in `blockedRetries`, logged at warn each time),
 * dead-lettered ones included. A FAILED batch thus reaches the limit as a whole and goes to the DLQ as
 * a whole, as in RocketMQ. Records skipped at the limit are reported to the listener's
 * `notifyFinalFailure` once the DLQ took them.
 *
 * Batches hold what the queue has buffered (up to `batchSize` and `maxBatchBytes`); the batching window
 * does not apply in orderly mode (waiting would only delay the queue's next record).
 *
 * Broadcasting: RocketMQ takes no broker locks for broadcasting consumers (each has its own offsets), so
 * neither do we: a queue is marked locked locally when assigned and consumed without lock checks.
 */

import { bodyLengthOf } from '../../../protocol/decoded-message.js';
import type { MessageExt } from '../../../protocol/message.js';
import type { MessageQueue } from '../../../protocol/message-queue.js';
import { messageQueueKey } from '../../../protocol/message-queue.js';
import { errorMessage } from '../../../util/error-message.js';
import type { Logger } from '../../../util/logger.js';
import { settlesWithin } from '../../../util/settles-within.js';
import { isFatalListenerError } from '../../consumer-errors.js';
import type { ConsumeResult } from '../../message-listener.js';
import type { ProcessQueue } from '../../pull/process-queue.js';
import type { ConsumeService, ConsumeServiceContext, QueueOwnershipHooks } from '../consume-service.js';
import { realTopicOf } from '../consume-service.js';
import { LocalRedeliveries } from './local-redeliveries.js';
import { OrderlyQueueScheduler, type QueueRunOutcome, RESUBMIT_DELAY_MS } from './orderly-queue-scheduler.js';
import { clampSuspendTimeMs } from './orderly-result.js';
import { type BatchOutcome, type BatchRecord, OrderlyResultApplier } from './orderly-result-applier.js';
import { QueueLockManager } from './queue-lock-manager.js';

/** A queue consuming continuously for longer yields its slot (Java `MAX_TIME_CONSUME_CONTINUOUSLY`). */
export const MAX_TIME_CONSUME_CONTINUOUSLY_MS = 60_000;
/** A queue found unlocked when its task starts tries to lock after this long (Java). */
export const TRY_LOCK_DELAY_MS = 100;
/** A queue whose lock was lost inside the consume loop tries to lock after this long (Java). */
export const TRY_LOCK_DELAY_IN_LOOP_MS = 10;
/** A dropped queue's in-flight batch is awaited this long before unlocking (Java `unlockDelayTimeMills`). */
export const UNLOCK_WAIT_MS = 20_000;

interface InFlight {
  readonly controller: AbortController;
  aborted: boolean;
}

const IDLE: QueueRunOutcome = { kind: 'idle' };

/** Test seams of {@link ConsumeOrderlyService}. */
export interface ConsumeOrderlyServiceOverrides {
  /** Default: the context's route table. */
  masterAddress?: ((brokerName: string) => string | undefined) | undefined;
}

/**
 * The orderly {@link ConsumeService}.
 */
export class ConsumeOrderlyService implements ConsumeService {
  readonly mode = 'ORDERLY' as const;
  readonly queueHooks: QueueOwnershipHooks;
  private readonly context: ConsumeServiceContext;
  private readonly log: Logger;
  private readonly clustering: boolean;
  private readonly locks: QueueLockManager;
  private readonly scheduler: OrderlyQueueScheduler;
  /** The batch each queue has in the listener now. */
  private readonly batches = new Map<ProcessQueue, InFlight>();
  private readonly redeliveries = new LocalRedeliveries();
  private readonly results: OrderlyResultApplier;
  private readonly shutdownUnlocks: MessageQueue[] = [];
  private shutdownUnlockFlush: Promise<void> | undefined;
  private stopping = false;
  private halted = false;

  constructor(context: ConsumeServiceContext, overrides: ConsumeOrderlyServiceOverrides = {}) {
    this.context = context;
    this.log = context.log;
    this.clustering = context.options.messageModel === 'CLUSTERING';
    this.results = new OrderlyResultApplier(context, this.redeliveries);
    this.locks = new QueueLockManager({
      clientId: context.client.clientId,
      consumerGroup: context.options.consumerGroup,
      broker: context.client.broker,
      masterAddress: overrides.masterAddress ?? ((brokerName) => context.routes.masterAddress(brokerName)),
      heldQueues: context.heldQueues,
      counters: context.counters,
      log: context.log,
    });
    this.scheduler = new OrderlyQueueScheduler({
      maxConcurrency: context.options.maxConcurrency,
      run: (pq) => this.runQueue(pq),
      lock: (pq) => (this.stopping ? Promise.resolve(false) : this.locks.lock(pq)),
      accepting: () => !this.stopping && !this.halted,
      log: context.log,
    });
    this.queueHooks = {
      beforeAdd: (_queue, pq) => this.beforeAdd(pq),
      afterDrop: (queue, pq) => this.afterDrop(queue, pq),
    };
  }

  start(): void {
    if (this.clustering) this.locks.start();
  }

  submit(_messages: readonly MessageExt[], processQueue: ProcessQueue, _dispatchToConsume: boolean): void {
    // Scheduling is idempotent per queue, so the ProcessQueue's dispatch flag is not needed to avoid
    // running a queue twice; ignoring it also means no message can be stranded by a missed flag.
    this.scheduler.schedule(processQueue);
  }

  inFlightBatches(): number {
    return this.batches.size;
  }

  pendingMessages(): number {
    let n = 0;
    for (const pq of this.context.heldQueues()) n += pq.messageCount - pq.snapshot().inFlightOrderlyCount;
    return n;
  }

  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.scheduler.cancelAll();
    await this.locks.stop();
    const runs = this.scheduler.runningTasks();
    if (await settlesWithin(Promise.all(runs), timeoutMs)) return;
    this.log.warn({ batches: this.inFlightBatches(), timeoutMs }, 'in-flight batches aborted at shutdown');
    for (const batch of this.batches.values()) {
      batch.aborted = true;
      batch.controller.abort(new Error('consumer shutdown timed out'));
    }
  }

  // ---- ownership hooks ------------------------------------------------------------------------

  private async beforeAdd(pq: ProcessQueue): Promise<boolean> {
    if (!this.clustering) {
      pq.markLocked();
      return true;
    }
    if (this.stopping) return false;
    return this.locks.lock(pq);
  }

  private async afterDrop(queue: MessageQueue, pq: ProcessQueue): Promise<void> {
    const running = this.scheduler.running(pq);
    this.scheduler.cancel(pq);
    if (!this.clustering) return;
    if (this.stopping) {
      // Shutdown: consumption already ended (or was abandoned) in stop(); unlock in one sync batch.
      await this.unlockAtShutdown(queue);
      pq.locked = false;
      return;
    }
    if (running !== undefined) {
      const ended = await settlesWithin(running, UNLOCK_WAIT_MS);
      if (!ended) {
        this.log.warn(
          { queue, waitedMs: UNLOCK_WAIT_MS },
          'orderly: dropped queue still consuming; it is unlocked when its batch ends',
        );
        running
          .then(() => this.unlockDropped(queue, pq))
          .catch((error: unknown) => this.log.warn({ err: error, queue }, 'orderly: late unlock failed'));
        return;
      }
    }
    await this.unlockDropped(queue, pq);
  }

  /** Unlocks a dropped queue (oneway) unless it was assigned to us again meanwhile. */
  private async unlockDropped(queue: MessageQueue, pq: ProcessQueue): Promise<void> {
    pq.locked = false;
    const key = messageQueueKey(queue);
    for (const held of this.context.heldQueues()) {
      if (!held.dropped && messageQueueKey(held.messageQueue) === key) return;
    }
    await this.locks.unlock([queue], { oneway: true });
  }

  /** Collects the unlocks of one shutdown (the drop hooks run together) into one call per broker. */
  private unlockAtShutdown(queue: MessageQueue): Promise<void> {
    this.shutdownUnlocks.push(queue);
    this.shutdownUnlockFlush ??= Promise.resolve().then(async () => {
      const queues = this.shutdownUnlocks.splice(0);
      this.shutdownUnlockFlush = undefined;
      await this.locks.unlock(queues, { oneway: false });
    });
    return this.shutdownUnlockFlush;
  }

  private lockUsable(pq: ProcessQueue): boolean {
    return !this.clustering || (pq.locked && !pq.isLockExpired());
  }

  // ---- consuming ------------------------------------------------------------------------------

  /** Consumes the queue batch after batch until it is empty, fails, yields, or loses its lock. */
  private async runQueue(pq: ProcessQueue): Promise<QueueRunOutcome> {
    if (!this.lockUsable(pq)) return { kind: 'lock', delayMs: TRY_LOCK_DELAY_MS };
    const beganAtMs = Date.now();
    for (;;) {
      if (pq.dropped || pq.draining || this.stopping || this.halted) return IDLE;
      if (!this.lockUsable(pq)) {
        this.log.warn(
          { queue: pq.messageQueue, locked: pq.locked },
          'orderly: queue lock not held, consume later',
        );
        return { kind: 'lock', delayMs: TRY_LOCK_DELAY_IN_LOOP_MS };
      }
      if (Date.now() - beganAtMs > MAX_TIME_CONSUME_CONTINUOUSLY_MS) {
        return { kind: 'later', delayMs: RESUBMIT_DELAY_MS };
      }
      const messages = this.take(pq);
      if (messages.length === 0) return IDLE;
      const outcome = await this.consumeBatch(pq, messages);
      if (outcome === 'suspend') {
        return { kind: 'later', delayMs: clampSuspendTimeMs(this.context.options.suspendCurrentQueueTimeMs) };
      }
      if (outcome === 'stop') return IDLE;
    }
  }

  /** Takes the next batch: up to `batchSize` messages and `maxBatchBytes` (a larger first one alone). */
  private take(pq: ProcessQueue): MessageExt[] {
    const { batchSize, maxBatchBytes } = this.context.options;
    const taken = pq.takeMessages(batchSize);
    let bytes = 0;
    let keep = 0;
    for (const message of taken) {
      bytes += bodyLengthOf(message);
      if (keep > 0 && bytes > maxBatchBytes) break;
      keep++;
    }
    if (keep === taken.length) return taken;
    pq.makeMessageToConsumeAgain(taken.slice(keep));
    return taken.slice(0, keep);
  }

  private async consumeBatch(pq: ProcessQueue, messages: MessageExt[]): Promise<BatchOutcome> {
    const { options, counters, listener } = this.context;
    const records = messages.map(
      (message): BatchRecord => ({
        message,
        view: {
          message: this.redeliveries.viewOf(message),
          queue: pq.messageQueue,
          topic: realTopicOf(message, options.retryTopic),
        },
      }),
    );
    const views = records.map((record) => record.view);
    const inFlight: InFlight = { controller: new AbortController(), aborted: false };
    this.batches.set(pq, inFlight);
    counters.batchesDispatched++;
    pq.batchStarted();
    try {
      let result: ConsumeResult;
      try {
        result = await listener.consume(views, {
          consumerGroup: options.consumerGroup,
          orderly: true,
          signal: inFlight.controller.signal,
        });
      } catch (error) {
        if (isFatalListenerError(error)) {
          this.halted = true;
          pq.rollback();
          this.log.error(
            { err: error, messages: messages.length },
            'fatal listener error: batch left unconsumed',
          );
          this.context.onFatal(error);
          return 'stop';
        }
        result = { status: 'FAILED', reason: errorMessage(error) };
      }
      if (inFlight.aborted || pq.dropped) {
        counters.discardedResults++;
        return 'stop';
      }
      return await this.results.apply(pq, records, result, inFlight);
    } finally {
      this.batches.delete(pq);
      pq.batchFinished();
    }
  }
}
