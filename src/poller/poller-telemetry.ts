/**
 * The metrics side of a poller, out of the composition root: the registry (always, it is cheap and
 * read only when asked), and the outputs the config turns on: EMF lines on stdout (`metrics.emf`), the
 * HTTP server of `/metrics`, `/healthz` and `/readyz` (`metrics.prometheus`), and the lag published with
 * PutMetricData (`metrics.cloudwatch`). Every output reads the same registry or snapshot.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { MetricsConfig } from '../config/run-config.js';
import { CloudWatchLagPublisher } from '../metrics/cloudwatch-lag-publisher.js';
import { EmfPublisher } from '../metrics/emf-publisher.js';
import { MetricsServer } from '../metrics/metrics-server.js';
import { type MappingMeter, type MeteredMapping, PollerMetrics } from '../metrics/poller-metrics.js';
import type { Logger } from '../util/logger.js';

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
  #server: MetricsServer | undefined;

  constructor(options: PollerTelemetryOptions) {
    this.#options = options;
    const { config, logger } = options;
    this.metrics = new PollerMetrics({ running: options.running, health: options.health, logger });
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
            ...(cloudwatch.region === undefined ? {} : { region: cloudwatch.region }),
            ...(cloudwatch.endpoint === undefined ? {} : { endpoint: cloudwatch.endpoint }),
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
    return this.metrics.mapping(mapping);
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
      registry: this.metrics.registry,
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
  }

  /** Stops the periodic publishers (before the consumers stop: a stopping consumer reads as unhealthy). */
  async stopPublishing(): Promise<void> {
    await Promise.all([this.#emf?.stop(), this.#lagPublisher?.stop()]);
  }

  /**
   * After the consumers stopped: writes the EMF counts of their last batches, closes the HTTP server and
   * the CloudWatch client. Never rejects (failures are logged).
   */
  async close(): Promise<void> {
    await this.stopPublishing();
    const { log } = this.#options;
    for (const [what, close] of [
      ['writing the last EMF lines', () => this.#emf?.flushCounts()],
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
}
