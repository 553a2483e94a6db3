/**
 * The {@link Poller} that `startPoller` (poller.ts) returns. Its constructor builds what the mappings share
 * (one {@link RocketMQClient}, the offset stores, the function targets, telemetry, the health beat);
 * {@link RunningPoller.start} wires the mappings (mapping-wiring.ts) and starts them. It stops them all
 * gracefully on `stop()`, an abort signal, or when one mapping fails fatally (e.g. its Lambda function
 * does not exist), then releases the stores, invokers, destinations and client.
 */

import { Producer } from '../client/producer.js';
import type { MappingConfig, RunConfig } from '../config/run-config.js';
import type { ConsumerLag } from '../consumer/consumer-lag.js';
import type { ConsumerRuntimeStatus } from '../consumer/consumer-status.js';
import type { MappingConsumer, MappingConsumerStatus } from '../consumer/mapping-consumer.js';
import type { PopConsumerStatus } from '../consumer/pop/pop-status.js';
import { RocketMQError } from '../errors.js';
import type { FunctionMessageListener } from '../invoke/function-listener.js';
import { describeError } from '../util/describe-error.js';
import { componentLogger, type Logger, rootLogger } from '../util/logger.js';
import { markStartupPhase } from '../util/startup-timeline.js';
import { FunctionTargets } from './function-targets.js';
import { HealthBeat } from './health-beat.js';
import { type SharedParts, wireMapping } from './mapping-wiring.js';
import { OffsetStores } from './offset-stores.js';
import type { MappingFailure, Poller, PollerExit, PollerInvokeStats, PollerOptions } from './poller.js';
import { assessPollerHealth, type PollerHealth } from './poller-health.js';
import { PollerTelemetry } from './poller-telemetry.js';
import { rocketMQClientOf } from './rocketmq-client-of-config.js';
import { withTaskZone } from './task-zone.js';

/**
 * A poller over a validated config. The functions of {@link Poller} are own bound properties, so a
 * caller may pass them around (`process.once('SIGTERM', poller.stop)`).
 */
export class RunningPoller implements Poller {
  readonly clientId: string;
  readonly runtimes = new Map<string, MappingConsumer>();
  readonly stopped: Promise<PollerExit>;
  private readonly options: PollerOptions;
  private readonly log: Logger;
  private readonly parts: SharedParts;
  private readonly healthBeat: HealthBeat | undefined;
  private readonly listeners = new Map<string, FunctionMessageListener>();
  private readonly failures: MappingFailure[] = [];
  private stopping: Promise<PollerExit> | undefined;
  private resolveStopped: (exit: PollerExit) => void = () => undefined;

  /**
   * Builds and starts a poller: resolves once every mapping has started; rejects (after stopping and
   * releasing whatever started) when one cannot start.
   */
  static async start(config: RunConfig, options: PollerOptions): Promise<RunningPoller> {
    const zoned = await withTaskZone(config, {
      env: process.env,
      fetch,
      log: componentLogger('poller', options.logger ?? rootLogger),
    });
    // The constructor checks the TLS key material (rocketMQClientOf); then the handlers load.
    const poller = new RunningPoller(zoned, options);
    markStartupPhase('poller: clients made');
    await poller.loadHandlers();
    markStartupPhase('poller: handlers loaded');
    await poller.parts.retryProducer.start();
    await poller.wireMappings();
    markStartupPhase('poller: mappings wired');
    await poller.startMappings();
    poller.run();
    return poller;
  }

  private constructor(config: RunConfig, options: PollerOptions) {
    this.options = options;
    this.log = componentLogger('poller', options.logger ?? rootLogger);
    const log = this.log;
    const client = rocketMQClientOf(config, { logger: options.logger });
    this.clientId = client.clientId;
    const stores = new OffsetStores(config.offsets, client.clientId);
    const targets = new FunctionTargets({
      baseDir: config.baseDir,
      lambda: config.lambda,
      destinations: config.destinations,
      invoker: options.invoker,
      logger: options.logger,
    });
    const telemetry = new PollerTelemetry({
      config: config.metrics,
      running: () => this.stopping === undefined,
      health: () => this.health(),
      log,
      logger: options.logger,
      deadLetters: client,
      deadLetterDepthIntervalMs: options.deadLetterDepthIntervalMs,
    });
    const consumerOverrides = options.consumerOverrides;
    const retryProducer = new Producer({ client, logger: options.logger });
    this.parts = {
      config,
      client,
      stores,
      targets,
      telemetry,
      consumerOverrides,
      wrapListener: options.wrapListener,
      retryProducer,
      log,
    };
    this.healthBeat =
      options.healthFile === undefined
        ? undefined
        : new HealthBeat({
            path: options.healthFile,
            assess: () => this.health(),
            log,
            intervalMs: options.healthIntervalMs,
          });
    this.stopped = new Promise<PollerExit>((resolve) => {
      this.resolveStopped = resolve;
    });
  }

  readonly stop = (): Promise<PollerExit> => {
    this.stopping ??= this.shutDown();
    return this.stopping;
  };

  readonly mappingStatus = (): Promise<MappingConsumerStatus[]> =>
    Promise.all([...this.runtimes.values()].map((consumer) => consumer.status()));

  readonly status = async (): Promise<ConsumerRuntimeStatus[]> =>
    (await this.mappingStatus()).filter((status): status is ConsumerRuntimeStatus => status.mode === 'PUSH');

  readonly popStatus = async (): Promise<PopConsumerStatus[]> =>
    (await this.mappingStatus()).filter((status): status is PopConsumerStatus => status.mode === 'POP');

  readonly lag = (): Promise<ConsumerLag[]> =>
    Promise.all([...this.runtimes.values()].map((consumer) => consumer.lag()));

  readonly invokeStats = (): PollerInvokeStats => ({
    lambda: this.parts.targets.lambdaStats(),
    mappings: new Map([...this.listeners].map(([name, listener]) => [name, listener.stats()])),
  });

  readonly health = (nowMs = Date.now()): PollerHealth =>
    assessPollerHealth(this.runtimes, this.stopping !== undefined, nowMs);

  // ---- starting -------------------------------------------------------------------------------

  /**
   * Imports every `local:` handler before anything consumes; when one cannot be invoked, logs each such
   * mapping, releases everything and rejects with one line per mapping (joined by `; `).
   */
  private async loadHandlers(): Promise<void> {
    const problems = await this.parts.targets.handlerLoadProblems(this.parts.config.mappings);
    if (problems.length === 0) return;
    for (const problem of problems) {
      this.log.error(
        { mapping: problem.mapping, function: problem.functionRef, err: problem.error },
        'the handler cannot be loaded',
      );
    }
    await this.release();
    // No cause: the line says it all, and a load error's own message can run over many lines.
    throw new RocketMQError(
      problems.map((problem) => `mapping ${problem.mapping} could not start: ${problem.message}`).join('; '),
    );
  }

  /** Wires every mapping and opens the metrics server; on failure releases everything and rejects. */
  private async wireMappings(): Promise<void> {
    try {
      for (const mapping of this.parts.config.mappings) {
        const { listener, runtime } = wireMapping(mapping, this.parts);
        this.listeners.set(mapping.name, listener);
        runtime.onEvent((event) => {
          if (event.type === 'fatal') this.onFatal(mapping, event.error);
        });
        this.runtimes.set(mapping.name, runtime);
      }
      await this.parts.telemetry.listen();
    } catch (error) {
      await this.release();
      throw error;
    }
  }

  /** Starts every mapping; when one cannot start, stops the poller and rejects with the first failure. */
  private async startMappings(): Promise<void> {
    const outcomes = await Promise.all(
      [...this.runtimes].map(async ([mapping, runtime]): Promise<MappingFailure | undefined> => {
        try {
          await runtime.start();
          return undefined;
        } catch (error) {
          return { mapping, error };
        }
      }),
    );
    const first = outcomes.find((outcome) => outcome !== undefined);
    if (first === undefined) return;
    await this.stop();
    throw new RocketMQError(`mapping ${first.mapping} could not start: ${describeError(first.error)}`, {
      cause: first.error,
    });
  }

  /** Every mapping runs: stop on abort, write the health file, publish metrics. */
  private run(): void {
    if (this.options.signal !== undefined) this.stopOnAbort(this.options.signal);
    this.healthBeat?.start();
    this.parts.telemetry.startPublishing();
    this.log.info(
      { clientId: this.clientId, mappings: [...this.runtimes.keys()], ...this.parts.telemetry.describe() },
      'poller started',
    );
  }

  private stopOnAbort(signal: AbortSignal): void {
    const onAbort = (): void => {
      this.stop().catch((error: unknown) => this.log.error({ err: error }, 'stopping on abort failed'));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    this.stopped
      .then(() => signal.removeEventListener('abort', onAbort))
      .catch((error: unknown) => this.log.error({ err: error }, 'poller stop listener failed'));
  }

  /** A mapping that fails fatally stops the whole poller (the exit lists it). */
  private onFatal(mapping: Pick<MappingConfig, 'name' | 'functionRef'>, error: unknown): void {
    this.failures.push({ mapping: mapping.name, error });
    this.log.error(
      { mapping: mapping.name, function: mapping.functionRef, err: error, reason: describeError(error) },
      'mapping failed fatally: stopping the poller',
    );
    this.stop().catch((e: unknown) => this.log.error({ err: e }, 'stopping after a fatal error failed'));
  }

  // ---- stopping -------------------------------------------------------------------------------

  /** Stops the outputs and the mappings, releases everything, then settles `stopped`. */
  private async shutDown(): Promise<PollerExit> {
    this.log.info({ mappings: this.runtimes.size }, 'stopping');
    await this.healthBeat?.stop();
    await this.parts.telemetry.stopPublishing();
    await this.stopMappings();
    const stats = this.invokeStats();
    await this.release();
    const exit: PollerExit = { failures: [...this.failures] };
    this.logStopped(exit, stats);
    this.resolveStopped(exit);
    return exit;
  }

  /** Stops every mapping at once; one that does not stop cleanly is a failure of the exit. */
  private async stopMappings(): Promise<void> {
    await Promise.all(
      [...this.runtimes].map(async ([name, runtime]) => {
        try {
          await runtime.stop();
        } catch (error) {
          this.log.error({ mapping: name, err: error }, 'mapping did not stop cleanly');
          this.failures.push({ mapping: name, error });
        }
      }),
    );
  }

  /** Closes what the mappings shared; a close that fails is logged and the next one still runs. */
  private async release(): Promise<void> {
    const { telemetry, targets, stores, client } = this.parts;
    // Metrics first: their last EMF lines read the stopped consumers' counters (and their offset stores).
    await telemetry.close();
    for (const [what, close] of [
      ['invokers', () => targets.close()],
      ['injected invoker', () => this.options.invoker?.close()],
      ['offset stores', () => stores.close()],
      ['client', () => client.close()],
    ] as const) {
      try {
        await close();
      } catch (error) {
        this.log.error({ err: error }, `closing the ${what} failed`);
      }
    }
  }

  /**
   * The shutdown summary. Its counts are the metrics' final totals (what `/metrics` and the EMF lines
   * reported, read after the consumers stopped): the listeners' own counters miss what the consumers
   * dead-letter (a message sent back at `maxReconsumeTimes`, an undecodable one, an orderly skip).
   */
  private logStopped(exit: PollerExit, stats: PollerInvokeStats): void {
    const totals = this.parts.telemetry.totals();
    this.log.info(
      {
        failures: exit.failures.length,
        lambdaRequests: stats.lambda.requests,
        lambdaThrottles: stats.lambda.throttles,
        ...(totals === undefined
          ? { totals: 'unavailable (see the error above)' }
          : {
              invocations: totals.invocations,
              invokeErrors: totals.invokeErrors,
              sentBack: totals.sentBack,
              deadLettered: totals.deadLettered,
            }),
      },
      'stopped',
    );
  }
}
