/**
 * Publishes the {@link LAG_METRIC} to CloudWatch: every interval, per consumer group this poller serves,
 * the summed lag of the queues it holds (0 when it holds none). That is what the poller service's target
 * tracking policy scales on. A failed publish is logged and counted, never fatal: the next interval tries
 * again.
 */

import { PutMetricDataCommand, type PutMetricDataCommandOutput } from '@aws-sdk/client-cloudwatch';
import { RocketMQError } from '../errors.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { nameAndMessage } from '../util/name-and-message.js';
import { PeriodicTask } from '../util/periodic-task.js';
import { LAG_METRIC } from './lag-metric.js';
import type { ConsumerLag } from './queue-lag.js';

/** CloudWatch's limit of metric data per PutMetricData request. */
const MAX_DATA_PER_REQUEST = 1000;
/** The first publish comes this soon after start (or after one interval when that is shorter). */
const FIRST_PUBLISH_DELAY_MS = 10_000;

/**
 * Where lag comes from: the consumer runtimes of the poller (a `ConsumerRuntime` is one).
 */
export interface LagSource {
  lag(): Promise<ConsumerLag>;
}

/**
 * The slice of a `CloudWatchClient` the publisher uses.
 */
export interface MetricSink {
  send(command: PutMetricDataCommand): Promise<PutMetricDataCommandOutput>;
}

/**
 * Options of {@link CloudWatchLagPublisher}.
 */
export interface CloudWatchLagPublisherOptions {
  readonly sources: () => readonly LagSource[];
  readonly cloudwatch: MetricSink;
  /** @default LAG_METRIC.namespace (`RocketMQLambda`, the namespace the scaling policy reads) */
  readonly namespace?: string | undefined;
  /** @default 60000 (the policy reads one-minute averages) */
  readonly intervalMs?: number | undefined;
  readonly logger?: Logger | undefined;
  readonly now?: (() => number) | undefined;
}

/**
 * One published value.
 */
export interface PublishedLag {
  readonly consumerGroup: string;
  readonly lag: number;
  /** Queues held (measured or not). */
  readonly queues: number;
  /** Queues whose lag could not be measured (not in `lag`). */
  readonly unknownQueues: number;
}

/**
 * Counters of a publisher.
 */
export interface LagPublisherStats {
  readonly requests: number;
  readonly failures: number;
  readonly lastPublishedAtMs: number | undefined;
}

/**
 * Sums the lag of the sources per consumer group. A group whose held queues could none be measured is left
 * out (publishing 0 would invite a scale-in while the brokers cannot be asked); a group holding no queue
 * is 0.
 */
export function lagPerGroup(lags: readonly ConsumerLag[]): PublishedLag[] {
  const groups = new Map<string, { lag: number; queues: number; unknownQueues: number }>();
  for (const lag of lags) {
    const group = groups.get(lag.consumerGroup) ?? { lag: 0, queues: 0, unknownQueues: 0 };
    group.lag += lag.total;
    group.queues += lag.queues.length;
    group.unknownQueues += lag.unknownQueues;
    groups.set(lag.consumerGroup, group);
  }
  return [...groups]
    .filter(([, group]) => group.queues === 0 || group.unknownQueues < group.queues)
    .map(([consumerGroup, group]) => ({ consumerGroup, ...group }));
}

/**
 * The publisher.
 */
export class CloudWatchLagPublisher {
  private readonly o: CloudWatchLagPublisherOptions;
  private readonly log: Logger;
  private readonly task: PeriodicTask;
  private requests = 0;
  private failures = 0;
  private lastPublishedAtMs: number | undefined;

  constructor(options: CloudWatchLagPublisherOptions) {
    const intervalMs = options.intervalMs ?? 60_000;
    if (!(Number.isSafeInteger(intervalMs) && intervalMs > 0)) {
      throw new RocketMQError(`lag publisher: intervalMs must be a positive integer, got ${intervalMs}`);
    }
    this.o = { ...options, intervalMs };
    this.log = componentLogger('metrics.lag', options.logger);
    this.task = new PeriodicTask('publish lag', intervalMs, () => this.publishOnce(), this.log);
  }

  /** Publishes every interval, the first time after at most 10 s. */
  start(): void {
    this.task.start(Math.min(FIRST_PUBLISH_DELAY_MS, this.o.intervalMs ?? FIRST_PUBLISH_DELAY_MS));
  }

  /** Stops publishing; resolves after a running publish ended. */
  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Counters since the start. */
  stats(): LagPublisherStats {
    return { requests: this.requests, failures: this.failures, lastPublishedAtMs: this.lastPublishedAtMs };
  }

  /**
   * Measures and publishes once; resolves with what was published. Rejects (after counting the failure)
   * when CloudWatch refused the data.
   */
  async publishOnce(): Promise<PublishedLag[]> {
    let lags: ConsumerLag[];
    try {
      lags = await Promise.all(this.o.sources().map((source) => source.lag()));
    } catch (cause) {
      this.failures++;
      throw new RocketMQError('measuring the consumer lag failed; the next interval tries again', { cause });
    }
    const values = lagPerGroup(lags);
    for (const lag of lags) {
      if (lag.unknownQueues > 0) {
        const reasons = [...new Set(lag.queues.flatMap((q) => (q.error === undefined ? [] : [q.error])))];
        this.log.warn(
          { mapping: lag.name, unknownQueues: lag.unknownQueues, queues: lag.queues.length, reasons },
          'lag of some queues could not be measured',
        );
      }
    }
    if (values.length === 0) return values;
    const timestamp = new Date((this.o.now ?? Date.now)());
    const data = values.map((value) => ({
      MetricName: LAG_METRIC.metricName,
      Dimensions: [{ Name: LAG_METRIC.dimension, Value: value.consumerGroup }],
      Unit: LAG_METRIC.unit,
      Value: value.lag,
      Timestamp: timestamp,
    }));
    const namespace = this.o.namespace ?? LAG_METRIC.namespace;
    for (let start = 0; start < data.length; start += MAX_DATA_PER_REQUEST) {
      this.requests++;
      try {
        await this.o.cloudwatch.send(
          new PutMetricDataCommand({
            Namespace: namespace,
            MetricData: data.slice(start, start + MAX_DATA_PER_REQUEST),
          }),
        );
      } catch (cause) {
        this.failures++;
        const reason = nameAndMessage(cause);
        throw new RocketMQError(
          `publishing ${namespace}/${LAG_METRIC.metricName} to CloudWatch failed (${reason}); the next interval tries again`,
          { cause },
        );
      }
    }
    this.lastPublishedAtMs = timestamp.getTime();
    this.log.debug({ namespace, values }, 'lag published');
    return values;
  }
}
