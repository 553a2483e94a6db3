/**
 * Concurrent consumption (Java `ConsumeMessageConcurrentlyService`; docs/architecture.md): batches across
 * the mapping's queues by count, bytes and time, at most `maxConcurrency` batches in flight, the result
 * applied per message. Succeeded messages leave their ProcessQueue and the offset moves (increase-only);
 * failed ones go back to the broker (CONSUMER_SEND_MSG_BACK) or, if that fails, are consumed again
 * locally after `localRetryDelayMs` with `reconsumeTimes + 1`, staying in the ProcessQueue so the offset
 * cannot pass them. Messages the result dead-letters (`deadLetter`) are handed straight to
 * `%DLQ%<group>` (delay level −1, no retry counted); if that hand-off fails it is tried again after
 * `localRetryDelayMs` (not consumed again) and the offset waits for it. Failed messages sent back at
 * `reconsumeTimes >= maxReconsumeTimes` (the broker moves them to the DLQ) are reported to the
 * listener's `notifyFinalFailure`. Broadcasting logs and drops failures, as RocketMQ does.
 */

import type { MessageExt } from '../../../protocol/message.js';
import { errorMessage } from '../../../util/error-message.js';
import { forEachConcurrently } from '../../../util/for-each-concurrently.js';
import type { Logger } from '../../../util/logger.js';
import { settlesWithin } from '../../../util/settles-within.js';
import { isFatalListenerError } from '../../consumer-errors.js';
import type { ConsumedMessage, ConsumeResult } from '../../message-listener.js';
import type { ProcessQueue } from '../../pull/process-queue.js';
import { type ConsumeService, type ConsumeServiceContext, realTopicOf } from '../consume-service.js';
import { deadLetterIndexes } from '../dead-letter-indexes.js';
import { failedIndexes } from '../failed-indexes.js';
import { notifyFinalFailure } from '../final-failure.js';
import { type DeadLetterEntryOf, DeadLetterHandOff } from './dead-letter-hand-off.js';
import { MessageBatcher } from './message-batcher.js';

/** Delay level Java uses when it sends back an expired message. */
export const EXPIRED_MESSAGE_DELAY_LEVEL = 3;
/** At most this many expired messages per queue per scan (Java `cleanExpiredMsg`). */
export const EXPIRED_MESSAGES_PER_SCAN = 16;
/** Expired-message scans run at least this often (Java scans every consumeTimeout). */
export const EXPIRY_SCAN_MAX_INTERVAL_MS = 60_000;
/** Send-back calls in parallel per batch. */
export const SEND_BACK_PARALLELISM = 16;

interface Item {
  readonly message: MessageExt;
  readonly processQueue: ProcessQueue;
  readonly bytes: number;
}

interface InFlight {
  readonly controller: AbortController;
  aborted: boolean;
  done: Promise<void>;
}

/**
 * The concurrent {@link ConsumeService}.
 *
 * @example
 * ```ts
 * const service = new ConsumeConcurrentlyService(context);
 * service.start();
 * service.submit(pq.putMessages(pulled).added, pq);
 * await service.stop(30_000);
 * ```
 */
export class ConsumeConcurrentlyService implements ConsumeService {
  readonly mode = 'CONCURRENTLY' as const;
  readonly queueHooks = undefined;
  private readonly context: ConsumeServiceContext;
  private readonly log: Logger;
  private readonly batcher: MessageBatcher<Item>;
  private readonly inFlight = new Set<InFlight>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private expiryTimer: NodeJS.Timeout | undefined;
  private expiryScan: Promise<void> | undefined;
  private readonly deadLetters: DeadLetterHandOff<Item>;
  private stopping = false;
  private halted = false;

  constructor(context: ConsumeServiceContext) {
    this.context = context;
    this.log = context.log;
    const { options } = context;
    this.batcher = new MessageBatcher<Item>({
      batchSize: options.batchSize,
      maxBatchBytes: options.maxBatchBytes,
      windowMs: options.maximumBatchingWindowMs,
      onReady: () => this.pump(),
      // A queue being handed over starts no new batch; its waiting messages stay unfinished in it.
      isStale: (item) => item.processQueue.dropped || item.processQueue.draining,
    });
    this.deadLetters = new DeadLetterHandOff<Item>({
      sendBack: context.sendBack,
      counters: context.counters,
      log: context.log,
      retryDelayMs: options.localRetryDelayMs,
      onHandedOff: (items) => this.commit(items),
    });
  }

  start(): void {
    const intervalMs = Math.min(this.context.options.consumeTimeoutMs, EXPIRY_SCAN_MAX_INTERVAL_MS);
    this.expiryTimer = setInterval(() => {
      if (this.expiryScan !== undefined) return;
      this.expiryScan = this.cleanExpiredMessages()
        .catch((error: unknown) => this.log.error({ err: error }, 'expired-message scan failed'))
        .finally(() => {
          this.expiryScan = undefined;
        });
    }, intervalMs);
    this.expiryTimer.unref();
  }

  submit(messages: readonly MessageExt[], processQueue: ProcessQueue, _dispatchToConsume = false): void {
    if (this.stopping || messages.length === 0) return;
    this.batcher.add(messages.map((message) => ({ message, processQueue, bytes: message.body.length })));
    this.pump();
  }

  inFlightBatches(): number {
    return this.inFlight.size;
  }

  pendingMessages(): number {
    return this.batcher.size;
  }

  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.batcher.drain();
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    if (this.expiryTimer !== undefined) clearInterval(this.expiryTimer);
    await this.expiryScan;
    await this.deadLetters.stop();
    const ended = await settlesWithin(Promise.all([...this.inFlight].map((batch) => batch.done)), timeoutMs);
    if (!ended) {
      this.log.warn({ batches: this.inFlight.size, timeoutMs }, 'in-flight batches aborted at shutdown');
      for (const batch of this.inFlight) {
        batch.aborted = true;
        batch.controller.abort(new Error('consumer shutdown timed out'));
      }
    }
  }

  /** Dispatches ready batches while there is room. */
  private pump(): void {
    if (this.stopping || this.halted) return;
    while (this.inFlight.size < this.context.options.maxConcurrency) {
      const batch = this.batcher.takeReady();
      if (batch === undefined) return;
      this.dispatch(batch);
    }
  }

  private dispatch(batch: Item[]): void {
    const record: InFlight = { controller: new AbortController(), aborted: false, done: Promise.resolve() };
    this.inFlight.add(record);
    const queues = new Set(batch.map((item) => item.processQueue));
    for (const queue of queues) queue.batchStarted();
    record.done = this.consume(batch, record)
      .catch((error: unknown) => this.log.error({ err: error }, 'batch handling failed'))
      .finally(() => {
        for (const queue of queues) queue.batchFinished();
        this.inFlight.delete(record);
        this.pump();
      });
  }

  private async consume(batch: Item[], record: InFlight): Promise<void> {
    const { options, counters } = this.context;
    const nowMs = Date.now();
    const consumed: ConsumedMessage[] = batch.map(({ message, processQueue }) => {
      processQueue.markConsumeStarted([message], nowMs);
      return {
        message,
        queue: processQueue.messageQueue,
        topic: realTopicOf(message, options.retryTopic),
      };
    });
    counters.batchesDispatched++;
    let result: ConsumeResult;
    try {
      result = await this.context.listener.consume(consumed, {
        consumerGroup: options.consumerGroup,
        orderly: false,
        signal: record.controller.signal,
      });
    } catch (error) {
      if (isFatalListenerError(error)) {
        this.halted = true;
        this.log.error({ err: error, messages: batch.length }, 'fatal listener error: batch left unconsumed');
        this.context.onFatal(error);
        return;
      }
      result = { status: 'FAILED', reason: errorMessage(error) };
    }
    if (record.aborted) {
      counters.discardedResults++;
      return;
    }
    await this.apply(batch, consumed, result, record);
  }

  private async apply(
    batch: Item[],
    consumed: ConsumedMessage[],
    result: ConsumeResult,
    record: InFlight,
  ): Promise<void> {
    const { options, counters } = this.context;
    const failed = failedIndexes(result, batch.length);
    if (failed === undefined) {
      this.log.warn({ result }, 'PARTIAL result names indexes outside the batch: whole batch failed');
    }
    const failedSet = failed ?? new Set(batch.keys());
    const clustering = options.messageModel === 'CLUSTERING';
    const deadLetters = clustering ? deadLetterIndexes(result, batch.length) : new Map<number, string>();
    const done: Item[] = [];
    const toSendBack: number[] = [];
    const toDeadLetter: DeadLetterEntryOf<Item>[] = [];
    batch.forEach((item, index) => {
      const reason = deadLetters.get(index);
      if (reason !== undefined && failedSet.has(index)) {
        const { message, processQueue } = item;
        const topic = (consumed[index] as ConsumedMessage).topic;
        toDeadLetter.push({ item, message, processQueue, topic, reason });
      } else if (failedSet.has(index)) {
        toSendBack.push(index);
      } else {
        done.push(item);
      }
    });
    counters.consumedOk += done.length;
    counters.consumedFailed += toSendBack.length + toDeadLetter.length;
    if (toSendBack.length > 0) {
      const reason = result.status === 'SUCCESS' ? 'invalid result' : result.reason;
      if (!clustering) {
        counters.droppedFailures += toSendBack.length;
        this.log.warn(
          { messages: toSendBack.map((i) => batch[i]?.message.msgId), reason },
          'broadcasting: failed messages dropped',
        );
        for (const index of toSendBack) done.push(batch[index] as Item);
      } else {
        const notSent = await this.sendBackAll(batch, consumed, toSendBack);
        const sent = toSendBack.filter((index) => !notSent.has(index));
        for (const index of sent) done.push(batch[index] as Item);
        if (notSent.size > 0) this.retryLocally([...notSent].map((index) => batch[index] as Item));
        // The broker moves a message sent back at the retry limit to the DLQ: it failed for good.
        const final = sent
          .filter((index) => (batch[index] as Item).message.reconsumeTimes >= options.maxReconsumeTimes)
          .map((index) => consumed[index] as ConsumedMessage);
        counters.deadLettered += final.length;
        await notifyFinalFailure(this.context.listener, final, reason, this.log);
      }
    }
    if (toDeadLetter.length > 0) {
      const { handedOff, notHandedOff } = await this.deadLetters.handOff(toDeadLetter);
      done.push(...handedOff);
      this.deadLetters.retryLater(notHandedOff);
    }
    if (record.aborted) {
      counters.discardedResults++;
      return;
    }
    this.commit(done);
  }

  /** Sends failed messages back; returns the indexes whose send-back failed. */
  private async sendBackAll(
    batch: Item[],
    consumed: ConsumedMessage[],
    indexes: number[],
  ): Promise<Set<number>> {
    const { options, counters, sendBack } = this.context;
    const notSent = new Set<number>();
    await forEachConcurrently(indexes, SEND_BACK_PARALLELISM, async (index) => {
      const item = batch[index] as Item;
      const topic = (consumed[index] as ConsumedMessage).topic;
      try {
        await sendBack.sendBack(item.message, item.processQueue.messageQueue, topic, options.retryDelayLevel);
        counters.sentBack++;
      } catch (error) {
        counters.sendBackFailures++;
        notSent.add(index);
        this.log.warn(
          { err: error, msgId: item.message.msgId, queue: item.processQueue.messageQueue },
          'send-back failed, will consume again locally',
        );
      }
    });
    return notSent;
  }

  /** Resubmits messages after `localRetryDelayMs` with reconsumeTimes + 1; they stay in their queue. */
  private retryLocally(items: Item[]): void {
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      const live = items.filter((item) => !item.processQueue.dropped && !item.processQueue.draining);
      this.context.counters.localRetries += live.length;
      if (this.stopping || live.length === 0) return;
      this.batcher.add(
        live.map((item) => ({
          ...item,
          message: { ...item.message, reconsumeTimes: item.message.reconsumeTimes + 1 },
        })),
      );
      this.pump();
    }, this.context.options.localRetryDelayMs);
    this.retryTimers.add(timer);
  }

  /** Removes finished messages from their queues and moves each queue's offset (increase-only). */
  private commit(done: Item[]): void {
    const byQueue = new Map<ProcessQueue, MessageExt[]>();
    for (const item of done) {
      const list = byQueue.get(item.processQueue);
      if (list === undefined) byQueue.set(item.processQueue, [item.message]);
      else list.push(item.message);
    }
    for (const [processQueue, messages] of byQueue) {
      const offset = processQueue.removeMessages(messages);
      if (offset >= 0 && !processQueue.dropped) {
        this.context.offsetStore.updateOffset(processQueue.messageQueue, offset, true);
        this.context.offsetMoved?.(processQueue.messageQueue);
      }
    }
  }

  /** Java `cleanExpiredMsg`: sends back messages whose consume started more than consumeTimeout ago. */
  private async cleanExpiredMessages(): Promise<void> {
    const { options, counters, sendBack, offsetStore } = this.context;
    for (const processQueue of this.context.heldQueues()) {
      for (let i = 0; i < EXPIRED_MESSAGES_PER_SCAN && !this.stopping; i++) {
        const message = processQueue.firstExpiredMessage(options.consumeTimeoutMs);
        if (message === undefined) break;
        const queue = processQueue.messageQueue;
        if (options.messageModel === 'CLUSTERING') {
          try {
            await sendBack.sendBack(
              message,
              queue,
              realTopicOf(message, options.retryTopic),
              EXPIRED_MESSAGE_DELAY_LEVEL,
            );
          } catch (error) {
            this.log.warn(
              { err: error, msgId: message.msgId, queue },
              'send-back of an expired message failed',
            );
            break;
          }
        } else {
          this.log.warn({ msgId: message.msgId, queue }, 'broadcasting: expired message dropped');
        }
        counters.expiredMessages++;
        if (options.messageModel === 'CLUSTERING' && message.reconsumeTimes >= options.maxReconsumeTimes) {
          const view = { message, queue, topic: realTopicOf(message, options.retryTopic) };
          const reason = `consume timed out (in flight longer than consumeTimeoutMs ${options.consumeTimeoutMs} ms)`;
          await notifyFinalFailure(this.context.listener, [view], reason, this.log);
        }
        if (processQueue.firstOffset() !== message.queueOffset) continue;
        const offset = processQueue.removeMessages([message]);
        if (offset >= 0 && !processQueue.dropped) offsetStore.updateOffset(queue, offset, true);
      }
    }
  }
}
