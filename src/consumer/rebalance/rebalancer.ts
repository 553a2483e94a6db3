/**
 * Rebalance (Java `RebalanceImpl.rebalanceByTopic`): which queues this client holds. In clustering, for
 * the topic and `%RETRY%<group>`, the queues of the route are divided over the group's client ids with
 * the mapping's {@link AllocationStrategy} (default `AVG`, {@link averagelyStrategy}); in broadcasting
 * every queue of the topic is held.
 *
 * Queues taken away are handed over, which Java's client does not do: pulling stops, no new batch of the
 * queue starts, the batches in flight finish (up to `handOverTimeoutMs`) and still move the offset, then
 * the final offset is written as released (the next owner, waiting for that in start-offset.ts, starts
 * exactly there), the queue is forgotten and orderly queues are unlocked through the hooks. New queues get
 * a start offset, a ProcessQueue and a running pull loop. Every change runs one at a time.
 */

import { RocketMQError } from '../../errors.js';
import type { OffsetStore } from '../../offsets/offset-store.js';
import { compareJavaStrings, type MessageQueue, messageQueueKey } from '../../protocol/message-queue.js';
import { describeError } from '../../util/describe-error.js';
import type { Logger } from '../../util/logger.js';
import { ThrottledLog } from '../../util/throttled-log.js';
import type { QueueOwnershipHooks } from '../consume/consume-service.js';
import type { AllocationFacts } from '../consume-state.js';
import type { ConsumerBrokerCalls } from '../consumer-client.js';
import type { NormalizedConsumerOptions } from '../consumer-options.js';
import type { TopicRouteTable } from '../membership/topic-route-table.js';
import { ProcessQueue } from '../pull/process-queue.js';
import type { RefusalWatch } from '../refusal-watch.js';
import { averagelyStrategy } from './allocate-message-queue-averagely.js';
import type { AllocationStrategy } from './allocation-strategy.js';
import type { StartOffsetResolver } from './start-offset.js';

/** A NOTIFY_CONSUMER_IDS_CHANGED burst is folded into one rebalance after this delay. */
export const REBALANCE_DEBOUNCE_MS = 200;
/** A queue skipped because its lock (or start offset) failed is retried this soon. */
export const REBALANCE_RETRY_DELAY_MS = 1000;
/** A group list logged is cut to this many client ids (the list's length is logged whole). */
const MAX_LOGGED_CLIENT_IDS = 20;

/** What the rebalancer needs of a pull loop. */
export interface PullLoopHandle {
  readonly nextOffset: number;
  readonly progress: { lastProgressMs: number; lastError: unknown };
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
  routes: Pick<TopicRouteTable, 'readableQueues' | 'anyBrokerAddress'> &
    Partial<Pick<TopicRouteTable, 'lastFailure'>>;
  options: NormalizedConsumerOptions;
  offsetStore: Pick<OffsetStore, 'claim' | 'release' | 'removeOffset' | 'updateOffset'>;
  startOffsets: Pick<StartOffsetResolver, 'startOffset'>;
  /** `startOffsetFromBroker`: the offset is the broker's OFFSET_ILLEGAL correction (see PullLoop). */
  createPullLoop: (
    processQueue: ProcessQueue,
    startOffset: number,
    startOffsetFromBroker?: boolean,
  ) => PullLoopHandle;
  hooks?: QueueOwnershipHooks | undefined;
  /**
   * How the group's queues are divided (create-allocation-strategy.ts); every member of the group must
   * use the same. @default averagelyStrategy (Java `AVG`)
   */
  allocationStrategy?: AllocationStrategy | undefined;
  log: Logger;
  /** Told of the consumer-list calls' outcomes (permanent refusals stop the consumer). */
  outcomes?: Pick<RefusalWatch, 'succeeded' | 'failed'> | undefined;
  /** A start offset could not be computed (a permanent store error stops the consumer). */
  onStartOffsetError?: ((error: unknown) => void) | undefined;
  /** Called after a rebalance that changed the held set. */
  onQueuesChanged?: ((added: MessageQueue[], removed: MessageQueue[]) => void) | undefined;
}

/**
 * Holds and changes this client's queue assignment.
 */
export class Rebalancer {
  private readonly o: RebalancerOptions;
  private readonly strategy: AllocationStrategy;
  private readonly held = new Map<string, HeldQueue>();
  private chain: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private paused = false;
  /** The group's client ids of the last consumer list (for the hand-over in start offsets). */
  private members: ReadonlySet<string> = new Set();
  private lastDecisionMs: number | undefined;
  private lastDecisionError: unknown;
  /** The last decision of the subscribed topic's queues, for the consume state. */
  private lastAllocation: AllocationFacts | undefined;
  /** Since when no queue of the subscribed topic has been held (undefined while one is). */
  private holdingNoneSinceMs: number | undefined;

  private readonly warnings: ThrottledLog;

  constructor(options: RebalancerOptions) {
    this.o = options;
    this.strategy = options.allocationStrategy ?? averagelyStrategy;
    this.warnings = new ThrottledLog(options.log);
  }

  /** The topics rebalanced: the topic, plus `%RETRY%<group>` in clustering. */
  topics(): string[] {
    const { topic, retryTopic, messageModel } = this.o.options;
    return messageModel === 'CLUSTERING' ? [topic, retryTopic] : [topic];
  }

  /** The group's client ids as the last consumer list named them (empty before the first). */
  groupMembers(): ReadonlySet<string> {
    return this.members;
  }

  /** The queues held now. */
  heldQueues(): HeldQueue[] {
    return [...this.held.values()];
  }

  /** The ProcessQueues held now. */
  /** How many queues this client holds now. */
  get heldQueueCount(): number {
    return this.held.size;
  }

  processQueues(): ProcessQueue[] {
    return [...this.held.values()].map((held) => held.processQueue);
  }

  /**
   * When a rebalance last decided this client's queues of the subscribed topic (routes known and the
   * consumer list answered), and why the ones after it could not; for health checks.
   */
  decisions(): { lastDecisionMs: number | undefined; lastError: unknown } {
    return { lastDecisionMs: this.lastDecisionMs, lastError: this.lastDecisionError };
  }

  /**
   * The last allocation of the subscribed topic (members, queues, this client's share) and since when
   * this client holds none of its queues; for the consume state (consume-state.ts).
   */
  allocationFacts(): { allocation: AllocationFacts | undefined; holdingNoneSinceMs: number | undefined } {
    return { allocation: this.lastAllocation, holdingNoneSinceMs: this.holdingNoneSinceMs };
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
   * Restarts a held queue at `offset` with a fresh ProcessQueue, keeping the orderly lock state: after
   * OFFSET_ILLEGAL (the pull loop already dropped the ProcessQueue) or when the offset store found the
   * queue reset to a new generation (`fromStore`: in-flight results of the old ProcessQueue no longer
   * count).
   */
  resetQueue(queue: MessageQueue, offset: number, fromStore = false): Promise<void> {
    // A store reset is adopted before this runs: drop the old ProcessQueue now, not once the exclusive
    // section is reached, so that a batch finishing meanwhile cannot raise the offset in the new generation
    // past messages the reset asked to replay.
    const current = fromStore ? this.held.get(messageQueueKey(queue)) : undefined;
    if (current !== undefined && !this.paused) current.processQueue.dropped = true;
    return this.exclusive(async () => {
      const key = messageQueueKey(queue);
      const held = this.held.get(key);
      if (this.paused || held === undefined) return;
      if (!held.processQueue.dropped && !fromStore) return;
      held.processQueue.dropped = true;
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
      await this.o.offsetStore.release(all.map((held) => held.queue));
    } catch (error) {
      persistError = error;
      this.o.log.error({ err: error }, 'persisting offsets at shutdown failed');
    }
    await Promise.all(all.map((held) => this.afterDrop(held.queue, held.processQueue)));
    if (persistError !== undefined) {
      throw new RocketMQError(`persisting offsets at shutdown failed: ${describeError(persistError)}`, {
        cause: persistError,
      });
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
      if (topic === this.o.options.topic) {
        this.lastDecisionMs = Date.now();
        this.lastDecisionError = undefined;
      }
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
    const main = this.o.options.topic;
    if ([...this.held.values()].some((held) => held.queue.topic === main))
      this.holdingNoneSinceMs = undefined;
    else this.holdingNoneSinceMs ??= Date.now();
    if (added.length > 0 || removed.length > 0) {
      this.o.log.info(
        {
          added: added.map(messageQueueKey),
          removed: removed.map((held) => messageQueueKey(held.queue)),
          held: this.held.size,
          strategy: this.strategy.name,
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
    const main = topic === this.o.options.topic;
    const queues = this.o.routes.readableQueues(topic);
    if (queues === undefined) {
      if (main) {
        const why = this.o.routes.lastFailure?.(topic);
        this.lastDecisionError = new RocketMQError(`no route known for topic ${topic}`, { cause: why });
      }
      return undefined;
    }
    if (this.o.options.messageModel === 'BROADCASTING') {
      if (main) {
        const count = queues.length;
        this.lastAllocation = { queues: count, members: 0, listed: true, assigned: count };
      }
      return queues;
    }
    const address = this.o.routes.anyBrokerAddress(topic);
    if (address === undefined) {
      if (main) this.lastDecisionError = new RocketMQError(`no broker address known for topic ${topic}`);
      return undefined;
    }
    let clientIds: string[];
    try {
      clientIds = await this.o.broker.getConsumerListByGroup(address, this.o.options.consumerGroup);
    } catch (error) {
      if (main) this.lastDecisionError = error;
      this.o.outcomes?.failed(error);
      this.warnings.warn(
        'consumer-list',
        { err: error, topic },
        'consumer list unavailable, rebalance of topic skipped',
      );
      return undefined;
    }
    this.o.outcomes?.succeeded();
    if (clientIds.length === 0) {
      if (main) this.lastDecisionError = new RocketMQError('the broker lists no consumer of the group yet');
      return undefined;
    }
    const sorted = [...clientIds].sort(compareJavaStrings);
    this.members = new Set(sorted);
    // The broker decides this list and when we ask for it (each NOTIFY_CONSUMER_IDS_CHANGED): one line
    // per topic and interval, naming a bounded number of the members.
    const notListedKey = `not listed:${topic}`;
    if (sorted.includes(this.o.clientId)) {
      this.warnings.clear(notListedKey);
    } else {
      this.warnings.warn(
        notListedKey,
        { topic, members: sorted.length, clientIds: sorted.slice(0, MAX_LOGGED_CLIENT_IDS) },
        'this client is not (yet) in the group list',
      );
    }
    const allocated = this.strategy.allocate(this.o.options.consumerGroup, this.o.clientId, queues, sorted);
    if (main) {
      this.lastAllocation = {
        queues: queues.length,
        members: sorted.length,
        listed: sorted.includes(this.o.clientId),
        assigned: allocated.length,
      };
    }
    return allocated;
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
      offset = await this.o.startOffsets.startOffset(queue, {
        members: this.members,
        cancelled: () => this.paused,
      });
    } catch (error) {
      this.o.onStartOffsetError?.(error);
      this.warnings.warn(
        'start-offset',
        { err: error, queue },
        'start offset unavailable, queue skipped this round',
      );
      await this.afterDrop(queue, processQueue);
      this.requestRebalance(REBALANCE_RETRY_DELAY_MS);
      return undefined;
    }
    if (this.paused) {
      await this.afterDrop(queue, processQueue);
      return undefined;
    }
    // Store the start at once, naming us as the holder: a restart before the first commit resumes here
    // instead of recomputing it, and a poller that joins meanwhile waits for our hand-over.
    this.o.offsetStore.updateOffset(queue, offset, true);
    try {
      await this.o.offsetStore.claim(queue);
    } catch (error) {
      this.o.onStartOffsetError?.(error);
      this.warnings.warn(
        'claim',
        { err: error, queue },
        'storing the start offset failed; the next persist retries',
      );
    }
    if (this.paused) {
      await this.afterDrop(queue, processQueue);
      return undefined;
    }
    const loop = this.o.createPullLoop(processQueue, offset);
    this.held.set(messageQueueKey(queue), { queue, processQueue, loop });
    loop.start();
    return queue;
  }

  /** Hands a queue over (see the file comment). */
  private async drop(held: HeldQueue): Promise<void> {
    const { processQueue, queue } = held;
    processQueue.draining = true;
    await held.loop.stop();
    const timeoutMs = this.o.options.handOverTimeoutMs;
    if (!(await processQueue.whenIdle(timeoutMs))) {
      this.o.log.warn(
        { queue, batches: processQueue.batchesInFlight, timeoutMs },
        'hand-over: batches still running; the next owner will deliver their messages again',
      );
    }
    processQueue.dropped = true;
    try {
      await this.o.offsetStore.release([queue]);
    } catch (error) {
      this.o.log.warn({ err: error, queue }, 'writing the final offset of a dropped queue failed');
    }
    this.o.offsetStore.removeOffset(queue);
    await this.afterDrop(queue, processQueue);
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
