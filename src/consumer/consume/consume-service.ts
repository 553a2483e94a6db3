/**
 * The seam between pulling and consuming. A {@link ConsumeService} receives the messages a pull loop
 * put into a ProcessQueue and consumes them (concurrently, or orderly per queue); the rebalancer calls
 * its optional {@link QueueOwnershipHooks} around adding and dropping queues (orderly: broker locks).
 */
import type { OffsetStore } from '../../offsets/offset-store.js';
import { propertyOf } from '../../protocol/decoded-message.js';
import type { MessageExt } from '../../protocol/message.js';
import { MessageConst } from '../../protocol/message.js';
import type { MessageQueue } from '../../protocol/message-queue.js';
import type { Logger } from '../../util/logger.js';
import type { ConsumerClient } from '../consumer-client.js';
import type { ConsumerCounters } from '../consumer-counters.js';
import type { NormalizedConsumerOptions } from '../consumer-options.js';
import type { TopicRouteTable } from '../membership/topic-route-table.js';
import type { MessageListener } from '../message-listener.js';
import type { ProcessQueue } from '../pull/process-queue.js';
import type { MessageSendBack } from './message-send-back.js';

/**
 * Called by the rebalancer around queue ownership changes.
 */
export interface QueueOwnershipHooks {
  /** Before a queue is added; resolve false to skip it this round (e.g. the broker lock failed). */
  beforeAdd(queue: MessageQueue, processQueue: ProcessQueue): Promise<boolean>;
  /** After a queue was dropped (marked dropped, pull loop stopped, offset persisted). */
  afterDrop(queue: MessageQueue, processQueue: ProcessQueue): Promise<void>;
}

/**
 * Consumes what the pull loops put into ProcessQueues.
 */
export interface ConsumeService {
  readonly mode: 'CONCURRENTLY' | 'ORDERLY';
  /** Rebalance hooks, if this service needs them (orderly). */
  readonly queueHooks?: QueueOwnershipHooks | undefined;
  /** Starts the service's own timers. */
  start(): void;
  /**
   * Hands over messages just added to `processQueue` (in offset order). `dispatchToConsume` is
   * {@link ProcessQueue.putMessages}' flag (orderly services schedule a queue only when it is set).
   * The `messages` array is the caller's and is emptied once this returns: keep the messages, not it.
   */
  submit(messages: readonly MessageExt[], processQueue: ProcessQueue, dispatchToConsume: boolean): void;
  /**
   * Stops dispatching, waits up to `timeoutMs` for in-flight batches, then aborts the rest (their
   * results are ignored: they do not move offsets). Resolves when done.
   */
  stop(timeoutMs: number): Promise<void>;
  /** Batches being consumed now. */
  inFlightBatches(): number;
  /** Messages accepted but not yet in a dispatched batch. */
  pendingMessages(): number;
}

/** Everything a consume service may use, built once by the runtime. */
export interface ConsumeServiceContext {
  readonly options: NormalizedConsumerOptions;
  readonly client: ConsumerClient;
  readonly routes: TopicRouteTable;
  readonly offsetStore: OffsetStore;
  readonly listener: MessageListener;
  readonly sendBack: MessageSendBack;
  readonly counters: ConsumerCounters;
  /** The ProcessQueues held right now. */
  readonly heldQueues: () => Iterable<ProcessQueue>;
  /** Told after a batch moved a queue's committed offset (the broker's copy is kept fresh). */
  readonly offsetMoved?: ((queue: MessageQueue) => void) | undefined;
  /** Reports a fatal listener error: the runtime stops pulling. */
  readonly onFatal: (error: unknown) => void;
  readonly log: Logger;
}

/** Builds a consume service for a runtime. */
export type ConsumeServiceFactory = (context: ConsumeServiceContext) => ConsumeService;

/**
 * The topic a message really belongs to: `RETRY_TOPIC` for a message of the group's retry topic (Java
 * `resetRetryAndNamespace`), else its stored topic.
 */
export function realTopicOf(message: MessageExt, retryTopic: string): string {
  // The topic first: most messages are not retries, and a property lookup searches the record.
  if (message.topic !== retryTopic) return message.topic;
  return propertyOf(message, MessageConst.RETRY_TOPIC) ?? message.topic;
}
