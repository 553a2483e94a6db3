/**
 * Broker queue locks for orderly consumption in clustering mode (Java `RebalanceImpl.lock`, `lockAll`,
 * `unlock`, `unlockAll`; docs/protocol.md, "Queue locks"): LOCK_BATCH_MQ for a queue before it is
 * consumed, every held queue re-locked every 20 s in one request per broker (the broker's lease is 60 s,
 * the client treats its view as expired after 30 s), UNLOCK_BATCH_MQ when a queue is given up. The
 * broker answers a lock with the subset it granted; a queue locked by another live client of the group is
 * never granted, which is what keeps two consumers of one group off the same queue.
 */
import type { MessageQueue } from '../../../protocol/message-queue.js';
import type { Logger } from '../../../util/logger.js';
import { PeriodicTask } from '../../../util/periodic-task.js';
import type { ConsumerBrokerCalls } from '../../consumer-client.js';
import type { ConsumerCounters } from '../../consumer-counters.js';
import type { ProcessQueue } from '../../pull/process-queue.js';

/** Held queues are re-locked this often (Java `REBALANCE_LOCK_INTERVAL`). */
export const REBALANCE_LOCK_INTERVAL_MS = 20_000;
/** The first periodic re-lock runs this long after start (Java). */
export const FIRST_RELOCK_DELAY_MS = 1000;

/** Options of {@link QueueLockManager}. */
export interface QueueLockManagerOptions {
  clientId: string;
  consumerGroup: string;
  broker: Pick<ConsumerBrokerCalls, 'lockBatchMQ' | 'unlockBatchMQ' | 'unlockBatchMQOneway'>;
  /** The master address of a broker group (locks live on masters). */
  masterAddress: (brokerName: string) => string | undefined;
  /** The ProcessQueues held now (re-locked periodically; dropped ones are skipped). */
  heldQueues: () => Iterable<ProcessQueue>;
  counters: Pick<ConsumerCounters, 'lockFailures'>;
  log: Logger;
  /** @default REBALANCE_LOCK_INTERVAL_MS */
  relockIntervalMs?: number | undefined;
}

/**
 * Locks and unlocks queues on their brokers and keeps held locks alive.
 */
export class QueueLockManager {
  private readonly o: QueueLockManagerOptions;
  private readonly relock: PeriodicTask;

  constructor(options: QueueLockManagerOptions) {
    this.o = options;
    this.relock = new PeriodicTask(
      'orderly relock',
      options.relockIntervalMs ?? REBALANCE_LOCK_INTERVAL_MS,
      () => this.lockAll(),
      options.log,
    );
  }

  /** Starts the periodic re-lock (first run after {@link FIRST_RELOCK_DELAY_MS}). */
  start(): void {
    this.relock.start(FIRST_RELOCK_DELAY_MS);
  }

  /** Stops the periodic re-lock and waits for a running one. */
  async stop(): Promise<void> {
    await this.relock.stop();
  }

  /**
   * Locks one queue; on success marks its ProcessQueue locked (now) and resolves true. A refusal or a
   * failed call resolves false (logged and counted), never rejects.
   */
  async lock(processQueue: ProcessQueue): Promise<boolean> {
    const queue = processQueue.messageQueue;
    const address = this.o.masterAddress(queue.brokerName);
    if (address === undefined) {
      this.o.counters.lockFailures++;
      this.o.log.warn({ queue }, 'orderly: no master address known, queue not locked');
      return false;
    }
    try {
      const granted = await this.o.broker.lockBatchMQ(address, this.body([queue]));
      if (granted.some((mq) => sameQueue(mq, queue))) {
        processQueue.markLocked();
        this.o.log.debug({ queue }, 'orderly: queue locked');
        return true;
      }
      this.o.counters.lockFailures++;
      this.o.log.info({ queue }, 'orderly: queue lock refused (held by another consumer of the group)');
      return false;
    } catch (error) {
      this.o.counters.lockFailures++;
      this.o.log.warn({ err: error, queue }, 'orderly: queue lock request failed');
      return false;
    }
  }

  /**
   * Re-locks every held, non-dropped queue, one request per broker: granted queues are marked locked
   * now, refused ones unlocked (their consumption stops until a lock succeeds). A failed request leaves
   * its queues as they are: their locks expire client-side after 30 s unless a later run succeeds.
   */
  async lockAll(): Promise<void> {
    const byBroker = new Map<string, ProcessQueue[]>();
    for (const pq of this.o.heldQueues()) {
      if (pq.dropped) continue;
      const list = byBroker.get(pq.messageQueue.brokerName);
      if (list === undefined) byBroker.set(pq.messageQueue.brokerName, [pq]);
      else list.push(pq);
    }
    await Promise.all(
      [...byBroker].map(async ([brokerName, pqs]) => {
        const address = this.o.masterAddress(brokerName);
        if (address === undefined) {
          this.o.log.warn({ brokerName }, 'orderly relock: no master address known');
          return;
        }
        let granted: MessageQueue[];
        try {
          granted = await this.o.broker.lockBatchMQ(address, this.body(pqs.map((pq) => pq.messageQueue)));
        } catch (error) {
          this.o.log.warn({ err: error, brokerName, queues: pqs.length }, 'orderly relock failed');
          return;
        }
        for (const pq of pqs) {
          if (granted.some((mq) => sameQueue(mq, pq.messageQueue))) {
            if (!pq.locked) this.o.log.info({ queue: pq.messageQueue }, 'orderly: queue locked again');
            pq.markLocked();
          } else {
            if (pq.locked) this.o.log.warn({ queue: pq.messageQueue }, 'orderly: queue lock lost');
            this.o.counters.lockFailures++;
            pq.locked = false;
          }
        }
      }),
    );
  }

  /**
   * Unlocks queues, one request per broker: `oneway` (when a queue is dropped at rebalance) or waiting
   * for the broker (at shutdown). Failures are logged; the broker's lease then ends on its own (60 s).
   */
  async unlock(queues: readonly MessageQueue[], options: { oneway: boolean }): Promise<void> {
    const byBroker = new Map<string, MessageQueue[]>();
    for (const queue of queues) {
      const list = byBroker.get(queue.brokerName);
      if (list === undefined) byBroker.set(queue.brokerName, [queue]);
      else list.push(queue);
    }
    await Promise.all(
      [...byBroker].map(async ([brokerName, mqs]) => {
        const address = this.o.masterAddress(brokerName);
        if (address === undefined) {
          this.o.log.warn({ brokerName, queues: mqs }, 'orderly unlock: no master address known');
          return;
        }
        try {
          if (options.oneway) await this.o.broker.unlockBatchMQOneway(address, this.body(mqs));
          else await this.o.broker.unlockBatchMQ(address, this.body(mqs));
          this.o.log.info({ queues: mqs, oneway: options.oneway }, 'orderly: queues unlocked');
        } catch (error) {
          this.o.log.warn({ err: error, queues: mqs }, 'orderly unlock failed: the broker lease will expire');
        }
      }),
    );
  }

  private body(mqSet: readonly MessageQueue[]) {
    return { consumerGroup: this.o.consumerGroup, clientId: this.o.clientId, mqSet };
  }
}

/**
 * True when two message queues name the same queue.
 */
export function sameQueue(a: MessageQueue, b: MessageQueue): boolean {
  return a.queueId === b.queueId && a.topic === b.topic && a.brokerName === b.brokerName;
}
