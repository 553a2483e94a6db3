/**
 * The poller's public face: {@link startPoller} and the types of what it returns. A poller is one
 * RocketMQ client and, per mapping, a function listener and a consumer (consumer/mapping-consumer.ts) of
 * the mapping's consume mode; it runs until `stop()`,
 * an abort signal, or one mapping failing fatally (running-poller.ts builds, starts and stops it;
 * mapping-wiring.ts wires one mapping).
 */
import type { MappingConfig, RunConfig } from '../config/run-config.js';
import type { ConsumerLag } from '../consumer/consumer-lag.js';
import type { ConsumerRuntimeStatus } from '../consumer/consumer-status.js';
import type { MappingConsumer, MappingConsumerStatus } from '../consumer/mapping-consumer.js';
import type { MessageListener } from '../consumer/message-listener.js';
import type { PopConsumerStatus } from '../consumer/pop/pop-status.js';
import type { FunctionListenerStats } from '../invoke/function-listener.js';
import type { Invoker } from '../invoke/invoker.js';
import type { Logger } from '../util/logger.js';
import type { LambdaTargetStats } from './function-targets.js';
import type { ConsumerOverrides } from './mapping-consumer-options.js';
import type { PollerHealth } from './poller-health.js';
import { RunningPoller } from './running-poller.js';

export type { MappingConsumer, MappingConsumerStatus } from '../consumer/mapping-consumer.js';
export { type ConsumerOverrides, consumerOptionsOf } from './mapping-consumer-options.js';
export type { PollerHealth } from './poller-health.js';

/** Options of {@link startPoller}. */
export interface PollerOptions {
  /** The parent logger. @default the root logger (pino JSON lines on stdout, level from LOG_LEVEL) */
  logger?: Logger | undefined;
  /** Aborting it stops the poller gracefully. */
  signal?: AbortSignal | undefined;
  /**
   * Runs every function instead of the built-in invokers (tests). Closed with the poller.
   * @default a LambdaInvoker for Lambda functions (`config.lambda`), a LocalInvoker for `local:` handlers
   */
  invoker?: Invoker | undefined;
  /**
   * Wraps each mapping's listener (after the message-trace wrapper, so it sees what the consumer applies):
   * the dev console records batches and their outcomes through it (src/dev/console). @default none
   */
  wrapListener?: ((mapping: MappingConfig, listener: MessageListener) => MessageListener) | undefined;
  /**
   * Consumer runtime options the config does not expose (timers, `retryDelayLevel`, ...), applied to every
   * mapping over what the config says. For tests and tuning.
   */
  consumerOverrides?: ConsumerOverrides | undefined;
  /**
   * A heartbeat file rewritten every 10 s while every mapping runs (see `rocketmq-lambda health`).
   * @default none
   */
  healthFile?: string | undefined;
  /** How often the heartbeat file is rewritten (tests shorten it). @default HEALTH_BEAT_INTERVAL_MS (10 s) */
  healthIntervalMs?: number | undefined;
  /**
   * How often each consumer group's dead-letter depth is read from the brokers while EMF or `/metrics`
   * is on (tests shorten it). @default 60000
   */
  deadLetterDepthIntervalMs?: number | undefined;
}

/**
 * Invoke counters of a poller: its Lambda invokers' requests and throttles, and each mapping's
 * listener counters (invokes, split batches, bisections, dead-lettered messages).
 */
export interface PollerInvokeStats {
  readonly lambda: LambdaTargetStats;
  readonly mappings: ReadonlyMap<string, FunctionListenerStats>;
}

/**
 * A mapping that failed: fatally while running (e.g. its function cannot be loaded), or while stopping.
 *
 * @example
 * ```ts
 * for (const { mapping, error } of exit.failures) console.error(mapping, error);
 * ```
 */
export interface MappingFailure {
  readonly mapping: string;
  readonly error: unknown;
}

/**
 * How a poller ended: cleanly when `failures` is empty.
 *
 * @example
 * ```ts
 * const exit = await poller.stopped;
 * process.exitCode = exit.failures.length === 0 ? 0 : 1;
 * ```
 */
export interface PollerExit {
  readonly failures: readonly MappingFailure[];
}

/**
 * A running poller.
 *
 * @example
 * ```ts
 * const poller = await startPoller(config);
 * process.once('SIGTERM', () => void poller.stop());
 * const exit = await poller.stopped;
 * ```
 */
export interface Poller {
  /** The client id every mapping of this poller registers with. */
  readonly clientId: string;
  /** The consumer of each mapping, by name; its `mode` says which consume mode. */
  readonly runtimes: ReadonlyMap<string, MappingConsumer>;
  /** Resolves once the poller has stopped and released everything, however the stop was triggered. */
  readonly stopped: Promise<PollerExit>;
  /** Stops every mapping gracefully, then releases the stores, invoker and client. Idempotent. */
  stop(): Promise<PollerExit>;
  /** A status snapshot of every mapping, whatever its consume mode (`mode` tells which). */
  mappingStatus(): Promise<MappingConsumerStatus[]>;
  /** The PUSH mappings of {@link Poller.mappingStatus}. */
  status(): Promise<ConsumerRuntimeStatus[]>;
  /** The POP mappings of {@link Poller.mappingStatus}. */
  popStatus(): Promise<PopConsumerStatus[]>;
  /**
   * The lag of every mapping: a PUSH mapping's held queues (asks the brokers for their max offsets); a
   * POP mapping's group backlog on every queue of the topic, with this poller's share as the total.
   */
  lag(): Promise<ConsumerLag[]>;
  /** Invoke counters since the start. */
  invokeStats(): PollerInvokeStats;
  /** Whether every mapping does its job (consumer-health.ts), with the problems found. */
  health(nowMs?: number): PollerHealth;
}

/**
 * Builds and starts a poller for a validated config. Resolves once every mapping has started; rejects
 * (after stopping and releasing whatever started) when one cannot start.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * const poller = await startPoller(await loadConfig('poller.yaml'), { signal: controller.signal });
 * process.once('SIGTERM', () => controller.abort());
 * const exit = await poller.stopped; // exit.failures lists mappings that failed
 * ```
 */
export async function startPoller(config: RunConfig, options: PollerOptions = {}): Promise<Poller> {
  return RunningPoller.start(config, options);
}
