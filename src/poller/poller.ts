/**
 * The composition root of a poller process: one {@link RocketMQClient}, and per mapping an offset store,
 * a {@link FunctionMessageListener} over a shared {@link LocalInvoker}, and a {@link ConsumerRuntime}.
 * It starts them, stops them all gracefully (on `stop()`, an abort signal, or when one mapping fails
 * fatally), and then releases the stores, the invoker and the client.
 */
import { RocketMQClient } from '../client/rocketmq-client.js';
import type { MappingConfig, RunConfig } from '../config/run-config.js';
import type { ConsumerOptions } from '../consumer/consumer-options.js';
import { ConsumerRuntime } from '../consumer/consumer-runtime.js';
import type { ConsumerRuntimeStatus } from '../consumer/consumer-status.js';
import { FunctionMessageListener } from '../invoke/function-listener.js';
import type { Invoker } from '../invoke/invoker.js';
import { LocalInvoker } from '../invoke/local-invoker.js';
import { RocketMQError } from '../protocol/errors.js';
import { componentLogger, type Logger, rootLogger } from '../util/logger.js';
import { OffsetStores, offsetStoreKindOf } from './offset-stores.js';

/** Options of {@link startPoller}. */
export interface PollerOptions {
  /** The parent logger. @default the root logger (pino JSON lines on stdout, level from LOG_LEVEL) */
  logger?: Logger | undefined;
  /** Aborting it stops the poller gracefully. */
  signal?: AbortSignal | undefined;
  /** Runs the functions. @default a LocalInvoker on the config's base directory */
  invoker?: Invoker | undefined;
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
}

/**
 * The consumer options of a mapping.
 *
 * @example
 * ```ts
 * new ConsumerRuntime(consumerOptionsOf(config.mappings[0], config.shutdownTimeoutMs), deps);
 * ```
 */
export function consumerOptionsOf(mapping: MappingConfig, shutdownTimeoutMs: number): ConsumerOptions {
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
    tls: config.tls,
    logger: options.logger,
  });
  const stores = new OffsetStores(config.offsets, client.clientId);
  const invoker = options.invoker ?? new LocalInvoker({ baseDir: config.baseDir, logger: options.logger });
  const runtimes = new Map<string, ConsumerRuntime>();
  const failures: MappingFailure[] = [];
  let stopping: Promise<PollerExit> | undefined;
  let resolveStopped: (exit: PollerExit) => void = () => undefined;
  const stopped = new Promise<PollerExit>((resolve) => {
    resolveStopped = resolve;
  });

  const release = async (): Promise<void> => {
    for (const [what, close] of [
      ['invoker', () => invoker.close()],
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
      await release();
      const exit: PollerExit = { failures: [...failures] };
      log.info({ failures: exit.failures.length }, 'stopped');
      resolveStopped(exit);
      return exit;
    })();
    return stopping;
  };

  try {
    for (const mapping of config.mappings) {
      const mappingLog = log.child({ mapping: mapping.name });
      const listener = new FunctionMessageListener({
        invoker,
        functionRef: mapping.functionRef,
        consumerGroup: mapping.consumerGroup,
        logger: mappingLog,
      });
      const runtime = new ConsumerRuntime(consumerOptionsOf(mapping, config.shutdownTimeoutMs), {
        client,
        offsetStore: stores.forMapping(mapping),
        listener,
        logger: mappingLog,
      });
      runtime.onEvent((event) => {
        if (event.type !== 'fatal') return;
        failures.push({ mapping: mapping.name, error: event.error });
        log.error({ mapping: mapping.name, err: event.error }, 'mapping failed fatally: stopping the poller');
        stop().catch((error: unknown) => log.error({ err: error }, 'stopping after a fatal error failed'));
      });
      runtimes.set(mapping.name, runtime);
      mappingLog.info(
        {
          topic: mapping.topic,
          consumerGroup: mapping.consumerGroup,
          function: mapping.functionRef,
          messageModel: mapping.messageModel,
          orderly: mapping.orderly,
          offsetStore: offsetStoreKindOf(config.offsets, mapping),
        },
        'mapping configured',
      );
    }
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
    const why = firstFailure.error instanceof Error ? firstFailure.error.message : String(firstFailure.error);
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
  log.info({ clientId: client.clientId, mappings: [...runtimes.keys()] }, 'poller started');

  return {
    clientId: client.clientId,
    runtimes,
    stopped,
    stop,
    status: () => Promise.all([...runtimes.values()].map((runtime) => runtime.status())),
  };
}
