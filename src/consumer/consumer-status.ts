/**
 * The status of one consumer runtime: lifecycle state, queues held with their buffers and offsets,
 * in-flight work and counters; plus the typed lifecycle events the runtime emits.
 */
import type { MessageQueue } from '../protocol/message-queue.js';
import type { ConsumerCounters } from './consumer-counters.js';
import type { ProcessQueueSnapshot } from './pull/process-queue.js';

/**
 * Lifecycle states: `failed` means a fatal listener error stopped pulling (call stop() to release the
 * queues).
 */
export type ConsumerState = 'created' | 'starting' | 'running' | 'failed' | 'stopping' | 'stopped';

/** One held queue. */
export interface QueueStatus extends ProcessQueueSnapshot {
  queue: MessageQueue;
  /** The offset the next pull asks for. */
  nextPullOffset: number;
  /** The in-memory committed offset (−1 when none). */
  committedOffset: number;
}

/**
 * A snapshot for metrics, health and GET_CONSUMER_RUNNING_INFO.
 */
export interface ConsumerRuntimeStatus {
  /** Which consume mode (mapping-consumer.ts). */
  mode: 'PUSH';
  name: string;
  consumerGroup: string;
  topic: string;
  clientId: string;
  state: ConsumerState;
  /** The fatal error, when `state` is `failed`. */
  error: unknown;
  startedAtMs: number | undefined;
  queues: QueueStatus[];
  inFlightBatches: number;
  pendingMessages: number;
  counters: Readonly<ConsumerCounters>;
}

/**
 * Lifecycle notifications of a runtime.
 */
export type ConsumerRuntimeEvent =
  | { type: 'started' }
  | { type: 'queues-changed'; added: MessageQueue[]; removed: MessageQueue[] }
  | { type: 'fatal'; error: unknown }
  | { type: 'stopped' };
