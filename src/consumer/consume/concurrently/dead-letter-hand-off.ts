/**
 * Handing messages straight to `%DLQ%<group>` (CONSUMER_SEND_MSG_BACK with delay level −1: the broker
 * writes them to the DLQ without a retry), for messages a listener result dead-letters in concurrent
 * mode. A hand-off that fails is tried again later, never given up: the messages stay in their
 * ProcessQueue meanwhile, so the offset cannot pass them.
 */

import { DEAD_LETTER_DELAY_LEVEL } from '../../../protocol/dead-letter-delay-level.js';
import type { MessageExt } from '../../../protocol/message.js';
import { forEachConcurrently } from '../../../util/for-each-concurrently.js';
import type { Logger } from '../../../util/logger.js';
import type { ConsumerCounters } from '../../consumer-counters.js';
import type { ProcessQueue } from '../../pull/process-queue.js';
import type { MessageSendBack } from '../message-send-back.js';

/** Send-back calls in parallel per hand-off. */
const HAND_OFF_PARALLELISM = 16;

/**
 * One message on its way to the DLQ.
 */
export interface DeadLetterEntryOf<T> {
  /** The caller's own handle of the message (given back once the broker took it). */
  readonly item: T;
  readonly message: MessageExt;
  readonly processQueue: ProcessQueue;
  /** The message's real topic. */
  readonly topic: string;
  readonly reason: string;
}

/**
 * Options of {@link DeadLetterHandOff}.
 */
export interface DeadLetterHandOffOptions<T> {
  sendBack: Pick<MessageSendBack, 'sendBack'>;
  counters: ConsumerCounters;
  log: Logger;
  /** Wait before a failed hand-off is tried again. */
  retryDelayMs: number;
  /** Receives the items of a retried hand-off once the broker took them. */
  onHandedOff: (items: T[]) => void;
}

/**
 * Hands messages to the DLQ, retrying failed hand-offs until they succeed, their queue is dropped, or
 * `stop()` is called.
 */
export class DeadLetterHandOff<T> {
  readonly #options: DeadLetterHandOffOptions<T>;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();
  #stopped = false;

  constructor(options: DeadLetterHandOffOptions<T>) {
    this.#options = options;
  }

  /** Hands the entries to the DLQ once; splits them by whether the broker took them. */
  async handOff(
    entries: readonly DeadLetterEntryOf<T>[],
  ): Promise<{ handedOff: T[]; notHandedOff: DeadLetterEntryOf<T>[] }> {
    const { sendBack, counters, log } = this.#options;
    const handedOff: T[] = [];
    const notHandedOff: DeadLetterEntryOf<T>[] = [];
    await forEachConcurrently(entries, HAND_OFF_PARALLELISM, async (entry) => {
      const { message, processQueue, topic, reason } = entry;
      const queue = processQueue.messageQueue;
      try {
        await sendBack.sendBack(message, queue, topic, DEAD_LETTER_DELAY_LEVEL);
        counters.sentBack++;
        counters.deadLettered++;
        handedOff.push(entry.item);
        log.warn(
          { msgId: message.msgId, queue, reason },
          'message dead-lettered (sent to the DLQ, no retry)',
        );
      } catch (error) {
        counters.sendBackFailures++;
        notHandedOff.push(entry);
        log.warn({ err: error, msgId: message.msgId, queue, reason }, 'DLQ hand-off failed, will try again');
      }
    });
    return { handedOff, notHandedOff };
  }

  /** Tries the hand-off of `entries` again after `retryDelayMs` (and again, until it succeeds). */
  retryLater(entries: readonly DeadLetterEntryOf<T>[]): void {
    if (entries.length === 0 || this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      const live = entries.filter((entry) => !entry.processQueue.dropped);
      if (this.#stopped || live.length === 0) return;
      const attempt = this.handOff(live)
        .then(({ handedOff, notHandedOff }) => {
          if (handedOff.length > 0) this.#options.onHandedOff(handedOff);
          this.retryLater(notHandedOff);
        })
        .catch((error: unknown) => this.#options.log.error({ err: error }, 'DLQ hand-off retry failed'))
        .finally(() => this.#running.delete(attempt));
      this.#running.add(attempt);
    }, this.#options.retryDelayMs);
    this.#timers.add(timer);
  }

  /** Hand-offs waiting to be tried again. */
  get pending(): number {
    return this.#timers.size + this.#running.size;
  }

  /**
   * Cancels the waiting retries and waits for a running one. The messages not handed off stay
   * unconsumed in their queues (redelivered after a restart).
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await Promise.all(this.#running);
  }
}
