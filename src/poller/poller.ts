/**
 * The composition root of a poller process: one {@link RocketMQClient}, and per mapping an offset store,
 * a {@link FunctionMessageListener} (over the poller's shared LambdaInvoker or LocalInvoker, with the
 * mapping's payload, bisect, record-age and onFailure options) and a {@link ConsumerRuntime}. It starts
 * them, stops them all gracefully (on `stop()`, an abort signal, or when one mapping fails fatally, e.g.
 * its Lambda function does not exist), and then releases the stores, invokers, destinations and client.
 */
import { RocketMQClient } from '../client/rocketmq-client.js';
import type { MappingConfig, RunConfig } from '../config/run-config.js';
import type { ConsumerOptions } from '../consumer/consumer-options.js';
import { ConsumerRuntime } from '../consumer/consumer-runtime.js';
import type { ConsumerRuntimeStatus } from '../consumer/consumer-status.js';
import { RocketMQError } from '../errors.js';
import { type FunctionListenerStats, FunctionMessageListener } from '../invoke/function-listener.js';
import type { Invoker } from '../invoke/invoker.js';
import { type ConsumerLag, measureConsumerLag } from '../metrics/queue-lag.js';
import { buildTlsConnectionOptions } from '../network/tls-options.js';
import { describeError } from '../util/describe-error.js';
import { childLogger, componentLogger, type Logger, rootLogger } from '../util/logger.js';
import { FunctionTargets, type LambdaTargetStats } from './function-targets.js';
import { HealthBeat } from './health-beat.js';
import { OffsetStores, offsetStoreKindOf } from './offset-stores.js';
import { PollerTelemetry } from './poller-telemetry.js';

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
   * Consumer runtime options the config does not expose (timers, `retryDelayLevel`, ...), applied to every
   * mapping over what the config says. For tests and tuning.
   */
  consumerOverrides?: Partial<Omit<ConsumerOptions, 'name' | 'topic' | 'consumerGroup'>> | undefined;
  /**
   * A heartbeat file rewritten every 10 s while every mapping runs (see `rocketmq-lambda health`).
   * @default none
   */
  healthFile?: string | undefined;
}

/**
 * Invoke counters of a poller: its Lambda invokers' requests and throttles, and each mapping's
 * listener counters (invokes, split batches, bisections, dead-lettered messages).
 *
 * @example
 * ```ts
 * const { lambda, mappings } = poller.invokeStats();
 * console.log(lambda.throttles, mappings.get('orders')?.deadLettered);
 * ```
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
  /** The runtime of each mapping, by mapping name. */
  readonly runtimes: ReadonlyMap<string, ConsumerRuntime>;
  /** Resolves once the poller has stopped and released everything, however the stop was triggered. */
  readonly stopped: Promise<PollerExit>;
  /** Stops every mapping gracefully, then releases the stores, invoker and client. Idempotent. */
  stop(): Promise<PollerExit>;
  /** A status snapshot of every mapping. */
  status(): Promise<ConsumerRuntimeStatus[]>;
  /** The lag of every mapping's held queues (asks the brokers for their max offsets). */
  lag(): Promise<ConsumerLag[]>;
  /** Invoke counters since the start. */
  invokeStats(): PollerInvokeStats;
  /** Whether every mapping does its job (consumer-health.ts), with the problems found. */
  health(nowMs?: number): PollerHealth;
}

/**
 * The poller's verdict on itself: healthy, or one line per problem, each starting with the mapping name.
 *
 * @example
 * ```ts
 * const { healthy, problems } = poller.health();
 * if (!healthy) for (const problem of problems) console.error(problem);
 * ```
 */
export interface PollerHealth {
  readonly healthy: boolean;
  readonly problems: readonly string[];
}

/**
 * The consumer options of a mapping.
 *
 * @example
 * ```ts
 * new ConsumerRuntime(consumerOptionsOf(config.mappings[0], config.shutdownTimeoutMs), deps);
 * ```
 */
export function consumerOptionsOf(
  mapping: MappingConfig,
  shutdownTimeoutMs: number,
  persistIntervalMs?: number,
): ConsumerOptions {
  return {
    name: mapping.name,
    topic: mapping.topic,
    consumerGroup: mapping.consumerGroup,
    filter: { type: mapping.filter.type, expression: mapping.filter.expression },
    batchSize: mapping.batchSize,
    maximumBatchingWindowMs: mapping.maximumBatchingWindowMs,
    maxConcurrency: mapping.maxConcurrency,
    orderly: mapping.orderly,
    orderlyFailure: mapping.orderlyFailure,
    maxReconsumeTimes: mapping.maxReconsumeTimes,
    messageModel: mapping.messageModel,
    startingPosition: mapping.startingPosition,
    startingPositionTimestamp: mapping.startingPositionTimestampMs,
    pullThresholdForQueue: mapping.pullThresholdForQueue,
    pullThresholdSizeForQueue: mapping.pullThresholdSizeForQueue,
    consumeConcurrentlyMaxSpan: mapping.consumeConcurrentlyMaxSpan,
    consumeTimeoutMs: mapping.consumeTimeoutMs,
    shutdownTimeoutMs,
    persistIntervalMs,
  };
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
  const log = componentLogger('poller', options.logger ?? rootLogger);
  const client = new RocketMQClient({
    nameServerAddresses: config.nameServerAddresses,
    credentials: config.acl,
    tls: config.tls === undefined ? false : buildTlsConnectionOptions(config.tls),
    logger: options.logger,
  });
  const stores = new OffsetStores(config.offsets, client.clientId);
  const targets = new FunctionTargets({
    baseDir: config.baseDir,
    lambda: config.lambda,
    destinations: config.destinations,
    invoker: options.invoker,
    logger: options.logger,
  });
  const runtimes = new Map<string, ConsumerRuntime>();
  const listeners = new Map<string, FunctionMessageListener>();
  const invokeStats = (): PollerInvokeStats => ({
    lambda: targets.lambdaStats(),
    mappings: new Map([...listeners].map(([name, listener]) => [name, listener.stats()])),
  });
  const failures: MappingFailure[] = [];
  let stopping: Promise<PollerExit> | undefined;
  const health = (nowMs = Date.now()): PollerHealth => {
    if (stopping !== undefined) return { healthy: false, problems: ['the poller is stopping'] };
    const problems = [...runtimes].flatMap(([name, runtime]) =>
      runtime.health(nowMs).problems.map((problem) => `${name}: ${problem}`),
    );
    return { healthy: problems.length === 0, problems };
  };
  const telemetry = new PollerTelemetry({
    config: config.metrics,
    running: () => stopping === undefined,
    health: () => health(),
    log,
    logger: options.logger,
  });
  const healthBeat =
    options.healthFile === undefined
      ? undefined
      : new HealthBeat({ path: options.healthFile, assess: () => health(), log });
  let resolveStopped: (exit: PollerExit) => void = () => undefined;
  const stopped = new Promise<PollerExit>((resolve) => {
    resolveStopped = resolve;
  });

  const release = async (): Promise<void> => {
    // Metrics first: their last EMF lines read the stopped consumers' counters (and their offset stores).
    await telemetry.close();
    for (const [what, close] of [
      ['invokers', () => targets.close()],
      ['injected invoker', () => options.invoker?.close()],
      ['offset stores', () => stores.close()],
      ['client', () => client.close()],
    ] as const) {
      try {
        await close();
      } catch (error) {
        log.error({ err: error }, `closing the ${what} failed`);
      }
    }
  };

  const stop = (): Promise<PollerExit> => {
    stopping ??= (async () => {
      log.info({ mappings: runtimes.size }, 'stopping');
      await healthBeat?.stop();
      await telemetry.stopPublishing();
      await Promise.all(
        [...runtimes].map(async ([name, runtime]) => {
          try {
            await runtime.stop();
          } catch (error) {
            log.error({ mapping: name, err: error }, 'mapping did not stop cleanly');
            failures.push({ mapping: name, error });
          }
        }),
      );
      const stats = invokeStats();
      await release();
      const exit: PollerExit = { failures: [...failures] };
      log.info(
        {
          failures: exit.failures.length,
          lambdaRequests: stats.lambda.requests,
          lambdaThrottles: stats.lambda.throttles,
          deadLettered: [...stats.mappings.values()].reduce((sum, s) => sum + s.deadLettered, 0),
        },
        'stopped',
      );
      resolveStopped(exit);
      return exit;
    })();
    return stopping;
  };

  try {
    for (const mapping of config.mappings) {
      const mappingLog = childLogger(log, { mapping: mapping.name });
      const target = targets.forMapping(mapping);
      const meter = telemetry.mapping(mapping);
      const listener = new FunctionMessageListener({
        invoker: target.invoker,
        functionRef: mapping.functionRef,
        consumerGroup: mapping.consumerGroup,
        logger: mappingLog,
        bisectBatchOnError: mapping.bisectBatchOnError,
        maxRecordAgeSeconds: mapping.maxRecordAgeSeconds,
        failureDestination: target.failureDestination,
        functionArn: target.functionArn,
        observer: meter.invokeObserver,
      });
      listeners.set(mapping.name, listener);
      const consumerOptions = {
        ...consumerOptionsOf(mapping, config.shutdownTimeoutMs, config.offsets.persistIntervalMs),
        ...options.consumerOverrides,
      };
      const runtime = new ConsumerRuntime(consumerOptions, {
        client,
        offsetStore: meter.observeOffsetStore(stores.forMapping(mapping)),
        listener,
        logger: mappingLog,
        observer: meter.consumerObserver,
      });
      meter.watch(runtime);
      runtime.onEvent((event) => {
        if (event.type !== 'fatal') return;
        failures.push({ mapping: mapping.name, error: event.error });
        log.error(
          {
            mapping: mapping.name,
            function: mapping.functionRef,
            err: event.error,
            reason: describeError(event.error),
          },
          'mapping failed fatally: stopping the poller',
        );
        stop().catch((error: unknown) => log.error({ err: error }, 'stopping after a fatal error failed'));
      });
      runtimes.set(mapping.name, runtime);
      mappingLog.info(
        {
          topic: mapping.topic,
          consumerGroup: mapping.consumerGroup,
          function: mapping.functionRef,
          invoker: target.kind,
          ...(target.kind === 'lambda'
            ? {
                lambdaRegion: config.lambda.region,
                lambdaEndpoint: config.lambda.endpoint,
                functionTimeoutMs: mapping.functionTimeoutMs,
              }
            : {}),
          messageModel: mapping.messageModel,
          orderly: mapping.orderly,
          offsetStore: offsetStoreKindOf(config.offsets, mapping),
          bisectBatchOnError: mapping.bisectBatchOnError,
          maxRecordAgeSeconds: mapping.maxRecordAgeSeconds,
          onFailure: mapping.onFailure,
        },
        'mapping configured',
      );
    }
    await telemetry.listen();
  } catch (error) {
    await release();
    throw error;
  }

  const started = await Promise.allSettled([...runtimes.values()].map((runtime) => runtime.start()));
  const startFailures = started.flatMap((result, index) =>
    result.status === 'rejected'
      ? [{ mapping: config.mappings[index]?.name ?? '?', error: result.reason }]
      : [],
  );
  const firstFailure = startFailures[0];
  if (firstFailure !== undefined) {
    await stop();
    const why = describeError(firstFailure.error);
    throw new RocketMQError(`mapping ${firstFailure.mapping} could not start: ${why}`, {
      cause: firstFailure.error,
    });
  }

  const signal = options.signal;
  if (signal !== undefined) {
    const onAbort = (): void => {
      stop().catch((error: unknown) => log.error({ err: error }, 'stopping on abort failed'));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    stopped
      .then(() => signal.removeEventListener('abort', onAbort))
      .catch((error: unknown) => log.error({ err: error }, 'poller stop listener failed'));
  }
  healthBeat?.start();
  telemetry.startPublishing();
  log.info(
    { clientId: client.clientId, mappings: [...runtimes.keys()], ...telemetry.describe() },
    'poller started',
  );

  return {
    clientId: client.clientId,
    runtimes,
    stopped,
    stop,
    status: () => Promise.all([...runtimes.values()].map((runtime) => runtime.status())),
    lag: () => Promise.all([...runtimes.values()].map((runtime) => measureConsumerLag(runtime))),
    invokeStats,
    health,
  };
}
