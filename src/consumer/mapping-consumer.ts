/**
 * The contract of a consume mode: what the poller, its metrics and its health checks know of a mapping's
 * consumer, whichever way it consumes (consumeMode PUSH: consumer-runtime.ts; POP: pop/pop-consumer.ts).
 * Every mode shares its lifecycle (consumer-lifecycle.ts) and reports its lag in one model
 * (consumer-lag.ts); only its status, discriminated on `mode`, says what is particular to it. The
 * poller picks a mode's factory from one table (poller/consume-modes.ts) and never asks for a class.
 */
import type { ConsumerHealth } from './consumer-health.js';
import type { ConsumerLag } from './consumer-lag.js';
import type { ConsumeMode } from './consumer-options.js';
import type { ConsumerRuntimeEvent, ConsumerRuntimeStatus, ConsumerState } from './consumer-status.js';
import type { PopConsumerStatus } from './pop/pop-status.js';

/**
 * The status of a mapping's consumer: `mode` says which consume mode, and so which fields follow
 * (PUSH: the queues it holds; POP: the brokers it pops from).
 */
export type MappingConsumerStatus = ConsumerRuntimeStatus | PopConsumerStatus;

/**
 * The consumer of one mapping, in any consume mode.
 */
export interface MappingConsumer {
  readonly mode: ConsumeMode;
  readonly state: ConsumerState;
  /** The client id it registers with (shared by the consumers of one client). */
  readonly clientId: string;
  /** Connects and starts consuming; rejects (after releasing what it set up) when it cannot. Once only. */
  start(): Promise<void>;
  /** Stops consuming, lets batches in flight finish (up to `shutdownTimeoutMs`), unregisters. Idempotent. */
  stop(): Promise<void>;
  /** Subscribes to lifecycle events; returns the unsubscribe function. */
  onEvent(listener: (event: ConsumerRuntimeEvent) => void): () => void;
  /** Whether it does its job, judged by progress (consumer-health.ts). */
  health(nowMs?: number): ConsumerHealth;
  status(): Promise<MappingConsumerStatus>;
  /** The messages this poller answers for that are not done yet; never rejects for a broker unreachable. */
  lag(): Promise<ConsumerLag>;
}
