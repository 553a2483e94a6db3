/**
 * Rebalance (Java `RebalanceImpl.rebalanceByTopic`, doc 11.5): which queues this client holds. In
 * clustering, for the topic and `%RETRY%<group>`, the queues of the route are divided over the group's
 * client ids with {@link allocateMessageQueueAveragely}; in broadcasting every queue of the topic is held.
 * Queues taken away are dropped (in-flight work no longer moves the offset, the offset is persisted and
 * forgotten, orderly queues unlocked through the hooks); new queues get a start offset, a ProcessQueue
 * and a running pull loop. Every change runs one at a time.
 */
import type { OffsetStore } from '../offsets/offset-store.js';
import { RocketMQError } from '../protocol/errors.js';
import { compareJavaStrings, type MessageQueue, messageQueueKey } from '../protocol/message-queue.js';
import type { Logger } from '../util/logger.js';
import { allocateMessageQueueAveragely } from './allocate-message-queue-averagely.js';
import type { QueueOwnershipHooks } from './consume-service.js';
import type { ConsumerBrokerCalls } from './consumer-client.js';
import type { NormalizedConsumerOptions } from './consumer-options.js';
import { ProcessQueue } from './process-queue.js';
import type { StartOffsetResolver } from './start-offset.js';
import type { TopicRouteTable } from './topic-route-table.js';

/** A NOTIFY_CONSUMER_IDS_CHANGED burst is folded into one rebalance after this delay. */
export const REBALANCE_DEBOUNCE_MS = 200;
/** A queue skipped because its lock (or start offset) failed is retried this soon. */
export const REBALANCE_RETRY_DELAY_MS = 1000;

/** What the rebalancer needs of a pull loop. */
export interface PullLoopHandle {
  readonly nextOffset: number;
  start(): void;
  stop(): Promise<void>;
}

/** A queue this client holds. */
export interface HeldQueue {
  readonly queue: MessageQueue;
  readonly processQueue: ProcessQueue;
  readonly loop: PullLoopHandle;
}

/** Options of {@link Rebalancer}. */
export interface RebalancerOptions {
  clientId: string;
  broker: Pick<ConsumerBrokerCalls, 'getConsumerListByGroup'>;
  routes: Pick<TopicRouteTable, 'readableQueues' | 'anyBrokerAddress'>;
  options: NormalizedConsumerOptions;
  offsetStore: Pick<OffsetStore, 'persist' | 'persistAll' | 'removeOffset' | 'updateOffset'>;
  startOffsets: Pick<StartOffsetResolver, 'startOffset'>;
  /** `startOffsetFromBroker`: the offset is the broker's OFFSET_ILLEGAL correction (see PullLoop). */
  createPullLoop: (
    processQueue: ProcessQueue,
    startOffset: number,
    startOffsetFromBroker?: boolean,
  ) => PullLoopHandle;
  hooks?: QueueOwnershipHooks | undefined;
  log: Logger;
  /** Called after a rebalance that changed the held set. */
  onQueuesChanged?: ((added: MessageQueue[], removed: MessageQueue[]) => void) | undefined;
}

/**
 * Holds and changes this client's queue assignment.
 *
 * @example
 * ```ts
 * const rebalancer = new Rebalancer({ clientId, broker, routes, options, offsetStore, startOffsets,
 *   createPullLoop: (pq, offset) => new PullLoop({ ...deps, processQueue: pq }, offset), log });
 * await rebalancer.rebalance();
 * client.requestHandler.onConsumerIdsChanged(() => rebalancer.requestRebalance());
 * await rebalancer.stopPulling();
 * ```
 */
export class Rebalancer {
  private readonly o: RebalancerOptions;
  private readonly held = new Map<string, HeldQueue>();
  private chain: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private paused = false;

  constructor(options: RebalancerOptions) {
    this.o = options;
  }

  /** The topics rebalanced: the topic, plus `%RETRY%<group>` in clustering. */
  topics(): string[] {
    const { topic, retryTopic, messageModel } = this.o.options;
    return messageModel === 'CLUSTERING' ? [topic, retryTopic] : [topic];
  }

  /** The queues held now. */
  heldQueues(): HeldQueue[] {
    return [...this.held.values()];
  }

  /** The ProcessQueues held now. */
  processQueues(): ProcessQueue[] {
    return [...this.held.values()].map((held) => held.processQueue);
  }

  /** Rebalances now (after any running change); concurrent calls share one pending run. */
  rebalance(): Promise<void> {
    this.queued ??= this.exclusive(async () => {
      this.queued = undefined;
      await this.doRebalance();
    });
    return this.queued;
  }

  /** Schedules a rebalance soon (debounced), e.g. on NOTIFY_CONSUMER_IDS_CHANGED. */
  requestRebalance(delayMs = REBALANCE_DEBOUNCE_MS): void {
    if (this.paused || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.rebalance().catch((error: unknown) => this.o.log.error({ err: error }, 'rebalance failed'));
    }, delayMs);
  }

  /**
   * OFFSET_ILLEGAL: the pull loop dropped the queue's ProcessQueue; replace it with a fresh one that
   * starts at `offset` (the broker's corrected offset), keeping the orderly lock state.
   */
  resetQueue(queue: MessageQueue, offset: number): Promise<void> {
    return this.exclusive(async () => {
      const key = messageQueueKey(queue);
      const held = this.held.get(key);
      if (this.paused || held === undefined || !held.processQueue.dropped) return;
      await held.loop.stop();
      const processQueue = new ProcessQueue(queue);
      processQueue.locked = held.processQueue.locked;
      processQueue.lastLockTimestampMs = held.processQueue.lastLockTimestampMs;
      const loop = this.o.createPullLoop(processQueue, offset, true);
      this.held.set(key, { queue, processQueue, loop });
      loop.start();
      this.o.log.info({ queue, offset }, 'queue restarted at the corrected offset');
    });
  }

  /** Stops every pull loop and all further rebalancing; the queues stay held (for shutdown). */
  async stopPulling(): Promise<void> {
    this.paused = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
    await Promise.all([...this.held.values()].map((held) => held.loop.stop()));
  }

  /**
   * Shutdown, after {@link stopPulling} and after consumption ended: marks every queue dropped, persists
   * all offsets, runs the drop hooks (orderly unlock) and forgets the queues. Rejects, after all of that,
   * when the offsets could not be persisted (the messages handled since the last persist will be
   * delivered again: the stop was not clean).
   */
  async releaseAll(): Promise<void> {
    const all = [...this.held.values()];
    this.held.clear();
    for (const held of all) held.processQueue.dropped = true;
    let persistError: unknown;
    try {
      await this.o.offsetStore.persistAll(all.map((held) => held.queue));
    } catch (error) {
      persistError = error;
      this.o.log.error({ err: error }, 'persisting offsets at shutdown failed');
    }
    await Promise.all(all.map((held) => this.afterDrop(held.queue, held.processQueue)));
    if (persistError !== undefined) {
      const reason = persistError instanceof Error ? persistError.message : String(persistError);
      throw new RocketMQError(`persisting offsets at shutdown failed: ${reason}`, { cause: persistError });
    }
  }

  private exclusive(task: () => Promise<void>): Promise<void> {
    const run = this.chain.then(task);
    this.chain = run.catch((error: unknown) => this.o.log.error({ err: error }, 'rebalance step failed'));
    return run;
  }

  private async doRebalance(): Promise<void> {
    if (this.paused) return;
    const desired = new Map<string, MessageQueue>();
    const decided = new Set<string>();
    for (const topic of this.topics()) {
      const allocated = await this.allocate(topic);
      if (allocated === undefined) continue;
      decided.add(topic);
      for (const queue of allocated) desired.set(messageQueueKey(queue), queue);
    }
    const removed: HeldQueue[] = [];
    for (const [key, held] of this.held) {
      if (!decided.has(held.queue.topic)) continue;
      const expired = held.processQueue.isPullExpired();
      if (!desired.has(key) || expired) {
        if (expired) this.o.log.warn({ queue: held.queue }, 'queue not pulled for too long: recreated');
        this.held.delete(key);
        removed.push(held);
      }
    }
    await Promise.all(removed.map((held) => this.drop(held)));
    if (this.paused) return;
    const toAdd = [...desired].filter(([key]) => !this.held.has(key)).map(([, queue]) => queue);
    const added = (await Promise.all(toAdd.map((queue) => this.add(queue)))).filter(
      (queue): queue is MessageQueue => queue !== undefined,
    );
    if (added.length > 0 || removed.length > 0) {
      this.o.log.info(
        {
          added: added.map(messageQueueKey),
          removed: removed.map((held) => messageQueueKey(held.queue)),
          held: this.held.size,
        },
        'rebalance changed the held queues',
      );
      this.o.onQueuesChanged?.(
        added,
        removed.map((held) => held.queue),
      );
    }
  }

  /** The queues of `topic` for this client, or undefined when there is no decision this round. */
  private async allocate(topic: string): Promise<MessageQueue[] | undefined> {
    const queues = this.o.routes.readableQueues(topic);
    if (queues === undefined) return undefined;
    if (this.o.options.messageModel === 'BROADCASTING') return queues;
    const address = this.o.routes.anyBrokerAddress(topic);
    if (address === undefined) return undefined;
    let clientIds: string[];
    try {
      clientIds = await this.o.broker.getConsumerListByGroup(address, this.o.options.consumerGroup);
    } catch (error) {
      this.o.log.warn({ err: error, topic }, 'consumer list unavailable, rebalance of topic skipped');
      return undefined;
    }
    if (clientIds.length === 0) return undefined;
    const sorted = [...clientIds].sort(compareJavaStrings);
    if (!sorted.includes(this.o.clientId)) {
      this.o.log.warn({ topic, clientIds: sorted }, 'this client is not (yet) in the group list');
    }
    return allocateMessageQueueAveragely(queues, sorted, this.o.clientId);
  }

  private async add(queue: MessageQueue): Promise<MessageQueue | undefined> {
    const processQueue = new ProcessQueue(queue);
    const hooks = this.o.hooks;
    if (hooks !== undefined && !(await this.tryHook(() => hooks.beforeAdd(queue, processQueue), queue))) {
      this.requestRebalance(REBALANCE_RETRY_DELAY_MS);
      return undefined;
    }
    this.o.offsetStore.removeOffset(queue);
    let offset: number;
    try {
      offset = await this.o.startOffsets.startOffset(queue);
    } catch (error) {
      this.o.log.warn({ err: error, queue }, 'start offset unavailable, queue skipped this round');
      await this.afterDrop(queue, processQueue);
      this.requestRebalance(REBALANCE_RETRY_DELAY_MS);
      return undefined;
    }
    if (this.paused) return undefined;
    // Store the start at once: a restart before the first commit resumes here instead of recomputing it.
    this.o.offsetStore.updateOffset(queue, offset, true);
    const loop = this.o.createPullLoop(processQueue, offset);
    this.held.set(messageQueueKey(queue), { queue, processQueue, loop });
    loop.start();
    return queue;
  }

  private async drop(held: HeldQueue): Promise<void> {
    held.processQueue.dropped = true;
    await held.loop.stop();
    try {
      await this.o.offsetStore.persist(held.queue);
    } catch (error) {
      this.o.log.warn({ err: error, queue: held.queue }, 'persisting the offset of a dropped queue failed');
    }
    this.o.offsetStore.removeOffset(held.queue);
    await this.afterDrop(held.queue, held.processQueue);
  }

  private async afterDrop(queue: MessageQueue, processQueue: ProcessQueue): Promise<void> {
    const hooks = this.o.hooks;
    if (hooks === undefined) return;
    try {
      await hooks.afterDrop(queue, processQueue);
    } catch (error) {
      this.o.log.warn({ err: error, queue }, 'queue drop hook failed');
    }
  }

  private async tryHook(hook: () => Promise<boolean>, queue: MessageQueue): Promise<boolean> {
    try {
      return await hook();
    } catch (error) {
      this.o.log.warn({ err: error, queue }, 'queue add hook failed');
      return false;
    }
  }
}
