/**
 * A consumer for metrics tests: status, lag and health set by the test, events emitted by it.
 */
import { type ConsumerCounters, newConsumerCounters } from '../../../src/consumer/consumer-counters.js';
import type { ConsumerHealth } from '../../../src/consumer/consumer-health.js';
import type {
  ConsumerRuntimeEvent,
  ConsumerRuntimeStatus,
  QueueStatus,
} from '../../../src/consumer/consumer-status.js';
import type { MeteredConsumer, MeteredMapping } from '../../../src/metrics/poller-metrics.js';
import type { MessageQueue } from '../../../src/protocol/message-queue.js';

/** One held queue: its lag (undefined: not measurable) and its buffer. */
export interface FakeQueue {
  readonly topic?: string;
  readonly queueId: number;
  readonly lag: number | undefined;
  readonly buffered?: number;
  readonly bytes?: number;
  readonly oldestStoreTimestampMs?: number;
}

export class FakeConsumer implements MeteredConsumer {
  readonly counters: ConsumerCounters = newConsumerCounters();
  queues: FakeQueue[] = [];
  verdict: ConsumerHealth = { healthy: true, problems: [] };
  statusCalls = 0;
  maxOffsetCalls = 0;
  /** Set to report the lag of a consumer that holds no queue (a POP consumer). */
  measureLag: MeteredConsumer['measureLag'];
  readonly #listeners = new Set<(event: ConsumerRuntimeEvent) => void>();

  constructor(readonly mapping: MeteredMapping) {}

  async status(): Promise<ConsumerRuntimeStatus> {
    this.statusCalls++;
    return {
      mode: 'PUSH',
      name: this.mapping.name,
      consumerGroup: this.mapping.consumerGroup,
      topic: this.mapping.topic,
      clientId: 'client@1',
      state: 'running',
      error: undefined,
      startedAtMs: 0,
      queues: this.queues.map((queue) => this.#queueStatus(queue)),
      inFlightBatches: 0,
      pendingMessages: 0,
      counters: { ...this.counters },
    };
  }

  /** The queue's max offset: its committed offset (100) plus its lag; a queue with no lag is unreachable. */
  async maxOffset(queue: MessageQueue): Promise<number> {
    this.maxOffsetCalls++;
    const found = this.queues.find(
      (candidate) =>
        candidate.queueId === queue.queueId && (candidate.topic ?? this.mapping.topic) === queue.topic,
    );
    if (found?.lag === undefined) throw new Error('broker unreachable');
    return 100 + found.lag;
  }

  health(): ConsumerHealth {
    return this.verdict;
  }

  onEvent(listener: (event: ConsumerRuntimeEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: ConsumerRuntimeEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  #messageQueue(queue: FakeQueue) {
    return { topic: queue.topic ?? this.mapping.topic, brokerName: 'broker-a', queueId: queue.queueId };
  }

  #queueStatus(queue: FakeQueue): QueueStatus {
    const count = queue.buffered ?? 0;
    return {
      queue: this.#messageQueue(queue),
      nextPullOffset: 100 + (queue.lag ?? 0),
      committedOffset: 100,
      cachedMessageCount: count,
      cachedMessageBytes: queue.bytes ?? 0,
      cachedMinOffset: count > 0 ? 100 : undefined,
      cachedMaxOffset: count > 0 ? 100 + count - 1 : undefined,
      oldestStoreTimestampMs: queue.oldestStoreTimestampMs,
      maxSpan: 0,
      inFlightOrderlyCount: 0,
      dropped: false,
      locked: false,
      lastLockTimestampMs: 0,
      lastPullTimestampMs: 0,
      lastConsumeTimestampMs: 0,
    };
  }
}
