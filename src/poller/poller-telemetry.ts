/**
 * The metrics side of a poller, out of the composition root: the registry (always, it is cheap and
 * read only when asked), and the outputs the config turns on: EMF lines on stdout (`metrics.emf`), the
 * HTTP server of `/metrics`, `/healthz` and `/readyz` (`metrics.prometheus`), and the lag published with
 * PutMetricData (`metrics.cloudwatch`). Every output reads the same registry or snapshot. While EMF or
 * `/metrics` is on, the dead-letter depth of each mapping's consumer group is read from the brokers in
 * the background (one group at a time, every {@link DEAD_LETTER_DEPTH_INTERVAL_MS}) and recorded in the
 * registry; consumption never waits for it. At close it keeps the registry's final totals, which the
 * poller's `stopped` line repeats (so the line and the last EMF line cannot disagree).
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { type DeadLetterDepthClient, readDeadLetterDepth } from '../client/dead-letter-depth.js';
import type { MetricsConfig } from '../config/run-config.js';
import { RocketMQError } from '../errors.js';
import { CloudWatchLagPublisher } from '../metrics/cloudwatch-lag-publisher.js';
import { EmfPublisher, type GroupSummary } from '../metrics/emf-publisher.js';
import { DEAD_LETTER_DEPTH_INTERVAL_MS } from '../metrics/metric-catalog.js';
import { MetricsServer } from '../metrics/metrics-server.js';
import { type MappingMeter, type MeteredMapping, PollerMetrics } from '../metrics/poller-metrics.js';
import { awsClientIdentity } from '../util/local-endpoint-credentials.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { PeriodicTask } from '../util/periodic-task.js';
import { ThrottledLog } from '../util/throttled-log.js';

/**
 * Counts of the whole poller as its metrics report them (the sums over its consumer groups of what the
 * EMF lines carry as deltas): the shutdown summary.
 */
export interface TelemetryTotals {
  readonly invocations: number;
  readonly invokeErrors: number;
  readonly throttles: number;
  readonly sentBack: number;
  readonly deadLettered: number;
}

/**
 * Options of {@link PollerTelemetry}.
 */
export interface PollerTelemetryOptions {
  readonly config: MetricsConfig;
  readonly running: () => boolean;
  readonly health: () => { readonly healthy: boolean; readonly problems: readonly string[] };
  /** The poller's logger (for failures of the outputs). */
  readonly log: Logger;
  /** The parent logger of the outputs' own components. */
  readonly logger?: Logger | undefined;
  /**
   * Where the consumer groups' dead-letter depth is read (the poller's client); absent: not read.
   * Read only while EMF or `/metrics` is on.
   */
  readonly deadLetters?: DeadLetterDepthClient | undefined;
  /** @default DEAD_LETTER_DEPTH_INTERVAL_MS */
  readonly deadLetterDepthIntervalMs?: number | undefined;
}

/**
 * The registry and outputs of one poller.
 */
export class PollerTelemetry {
  readonly metrics: PollerMetrics;
  readonly #options: PollerTelemetryOptions;
  readonly #emf: EmfPublisher | undefined;
  readonly #cloudwatchClient: CloudWatchClient | undefined;
  readonly #lagPublisher: CloudWatchLagPublisher | undefined;
  readonly #depthTask: PeriodicTask | undefined;
  readonly #groups = new Set<string>();
  #server: MetricsServer | undefined;
  #totals: TelemetryTotals | undefined;

  constructor(options: PollerTelemetryOptions) {
    this.#options = options;
    const { config, logger } = options;
    this.metrics = new PollerMetrics({ running: options.running, health: options.health, logger });
    this.#depthTask = this.#deadLetterDepthTask();
    this.#emf =
      config.emf === undefined
        ? undefined
        : new EmfPublisher({
            registry: this.metrics.registry,
            namespace: config.emf.namespace,
            intervalMs: config.emf.intervalMs,
            logger,
          });
    const cloudwatch = config.cloudwatch;
    this.#cloudwatchClient =
      cloudwatch === undefined
        ? undefined
        : new CloudWatchClient({
            maxAttempts: 3,
            ...(cloudwatch.endpoint === undefined ? {} : { endpoint: cloudwatch.endpoint }),
            ...awsClientIdentity({ endpoint: cloudwatch.endpoint, region: cloudwatch.region }),
          });
    this.#lagPublisher =
      cloudwatch === undefined || this.#cloudwatchClient === undefined
        ? undefined
        : new CloudWatchLagPublisher({
            sources: () => this.metrics.lagSources(),
            cloudwatch: this.#cloudwatchClient,
            namespace: cloudwatch.namespace,
            intervalMs: cloudwatch.intervalMs,
            logger,
          });
  }

  /** The observers of a mapping (see {@link PollerMetrics.mapping}). */
  mapping(mapping: MeteredMapping): MappingMeter {
    this.#groups.add(mapping.consumerGroup);
    return this.metrics.mapping(mapping);
  }

  /**
   * The registry's totals when the telemetry closed (after the consumers stopped); undefined before, or
   * when they could not be read (logged).
   */
  totals(): TelemetryTotals | undefined {
    return this.#totals;
  }

  /** The outputs that are on, for the "poller started" log line. */
  describe(): Record<string, unknown> {
    const { emf, prometheus, cloudwatch } = this.#options.config;
    return {
      emf: emf === undefined ? 'off' : { namespace: emf.namespace, intervalMs: emf.intervalMs },
      prometheus:
        prometheus === undefined
          ? 'off'
          : { host: prometheus.host, port: this.#server?.port ?? prometheus.port },
      lagMetric:
        cloudwatch === undefined
          ? 'off'
          : {
              namespace: cloudwatch.namespace,
              intervalMs: cloudwatch.intervalMs,
              endpoint: cloudwatch.endpoint,
            },
    };
  }

  /**
   * Starts the HTTP server, if configured, before the consumers start (a port in use stops the start,
   * and `/readyz` answers 503 until every consumer runs). Rejects when it cannot listen.
   */
  async listen(): Promise<void> {
    const { prometheus } = this.#options.config;
    if (prometheus === undefined || this.#server !== undefined) return;
    this.#server = await MetricsServer.start({
      registry: this.metrics.scrapeRegistry,
      readiness: this.#options.health,
      port: prometheus.port,
      host: prometheus.host,
      logger: this.#options.logger,
    });
  }

  /** Starts the periodic publishers, once the consumers run. */
  startPublishing(): void {
    this.#emf?.start();
    this.#lagPublisher?.start();
    // The first read at once: a backlog of dead letters shows from the start.
    this.#depthTask?.start(0);
  }

  /** Stops the periodic publishers (before the consumers stop: a stopping consumer reads as unhealthy). */
  async stopPublishing(): Promise<void> {
    await Promise.all([this.#emf?.stop(), this.#lagPublisher?.stop(), this.#depthTask?.stop()]);
  }

  /**
   * After the consumers stopped: writes the EMF counts of their last batches, closes the HTTP server and
   * the CloudWatch client. Never rejects (failures are logged).
   */
  async close(): Promise<void> {
    await this.stopPublishing();
    const { log } = this.#options;
    // The consumers have stopped: their final counters, not a snapshot taken while batches finished.
    this.metrics.forgetSnapshot();
    for (const [what, close] of [
      ['writing the last EMF lines', () => this.#emf?.flushCounts()],
      ['reading the metrics totals', async () => this.#readTotals()],
      ['closing the metrics server', () => this.#server?.close()],
      ['closing the metrics client', async () => this.#cloudwatchClient?.destroy()],
    ] as const) {
      try {
        await close();
      } catch (error) {
        log.error({ err: error }, `${what} failed`);
      }
    }
    this.#server = undefined;
    this.metrics.close();
  }

  async #readTotals(): Promise<void> {
    const sum = (summaries: readonly GroupSummary[], key: keyof TelemetryTotals) =>
      summaries.reduce((total, summary) => total + summary.totals[key], 0);
    const summaries = await this.metrics.groupSummaries();
    this.#totals = {
      invocations: sum(summaries, 'invocations'),
      invokeErrors: sum(summaries, 'invokeErrors'),
      throttles: sum(summaries, 'throttles'),
      sentBack: sum(summaries, 'sentBack'),
      deadLettered: sum(summaries, 'deadLettered'),
    };
  }

  /**
   * The background read of every consumer group's dead-letter depth, when there is a client and an output
   * that shows it. Groups are read one after another (a poller has few); a group whose read fails keeps
   * its last value and is logged (throttled per group), the others are still read.
   */
  #deadLetterDepthTask(): PeriodicTask | undefined {
    const { deadLetters, config } = this.#options;
    if (deadLetters === undefined || (config.emf === undefined && config.prometheus === undefined)) {
      return undefined;
    }
    const intervalMs = this.#options.deadLetterDepthIntervalMs ?? DEAD_LETTER_DEPTH_INTERVAL_MS;
    if (!(Number.isSafeInteger(intervalMs) && intervalMs > 0)) {
      throw new RocketMQError(`deadLetterDepthIntervalMs must be a positive integer, got ${intervalMs}`);
    }
    const log = componentLogger('metrics.dead-letters', this.#options.logger);
    const failures = new ThrottledLog(log);
    return new PeriodicTask(
      'read dead-letter depth',
      intervalMs,
      async () => {
        for (const group of this.#groups) {
          try {
            const { depth } = await readDeadLetterDepth(deadLetters, group);
            this.metrics.recordDeadLetterDepth(group, depth);
            failures.clear(group);
          } catch (error) {
            failures.warn(
              group,
              { err: error, consumerGroup: group },
              'dead-letter depth unavailable: keeping the last value',
            );
          }
        }
      },
      log,
    );
  }
}
