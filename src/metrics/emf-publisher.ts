/**
 * Writes the poller's metrics as CloudWatch Embedded Metric Format lines: every interval, one line per
 * consumer group, read from the poller's registry (so the lines and `/metrics` cannot disagree). Counts
 * are deltas since the previous line; lag and age are the values at that moment. Lines go to stdout
 * directly (not through the logger, whose fields would break the format), where the container's awslogs
 * driver ships them to CloudWatch Logs, which extracts the metrics.
 */
import type { Registry } from 'prom-client';
import { CANNOT_CONSUME_STATES, type ConsumeStateName } from '../consumer/consume-state.js';
import { RocketMQError } from '../errors.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { PeriodicTask } from '../util/periodic-task.js';
import { EMF_METRICS, type EmfValue, emfDocument } from './emf-document.js';
import { LAG_METRIC } from './lag-metric.js';
import { type InvokeOutcomeLabel, METRICS, NOT_INVOKE_ERRORS } from './metric-catalog.js';

/** The counts of a group that lines carry as deltas. */
interface GroupTotals {
  invocations: number;
  invokeErrors: number;
  throttles: number;
  sentBack: number;
  deadLettered: number;
  filteredOut: number;
  traceWritten: number;
  traceDropped: number;
}

/**
 * What the registry says about one consumer group at one moment.
 */
export interface GroupSummary {
  readonly consumerGroup: string;
  /** Undefined when no held queue could be measured (publishing 0 would invite a scale-in). */
  readonly lag: number | undefined;
  readonly oldestMessageAgeSeconds: number;
  /** The group's dead letters stored on the brokers; undefined until read. */
  readonly deadLetterDepth: number | undefined;
  readonly unhealthy: boolean;
  /** A mapping of the group is in a state that cannot consume (consume-state.ts), whatever its grace. */
  readonly cannotConsume: boolean;
  readonly totals: Readonly<GroupTotals>;
}

type MetricJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];

/**
 * Sums the registry's series per consumer group (see `EMF_METRICS` for what each value means).
 */
export function summarizeGroups(metrics: readonly MetricJson[]): GroupSummary[] {
  const byName = new Map(metrics.map((metric) => [metric.name, metric.values]));
  const groups = new Map<
    string,
    {
      lag: number;
      measured: boolean;
      age: number;
      deadLetterDepth: number | undefined;
      unhealthy: boolean;
      cannotConsume: boolean;
      totals: GroupTotals;
    }
  >();
  const group = (labels: Record<string, string | number | undefined>) => {
    const name = String(labels.consumer_group ?? '');
    let found = groups.get(name);
    if (found === undefined) {
      found = {
        lag: 0,
        measured: false,
        age: 0,
        deadLetterDepth: undefined,
        unhealthy: false,
        cannotConsume: false,
        totals: {
          invocations: 0,
          invokeErrors: 0,
          throttles: 0,
          sentBack: 0,
          deadLettered: 0,
          filteredOut: 0,
          traceWritten: 0,
          traceDropped: 0,
        },
      };
      groups.set(name, found);
    }
    return found;
  };
  const each = (
    name: string,
    add: (value: number, labels: Record<string, string | number | undefined>) => void,
  ) => {
    for (const { value, labels } of byName.get(name) ?? []) add(value, labels);
  };
  each(METRICS.mappingHealthy.name, (value, labels) => {
    const found = group(labels);
    found.unhealthy ||= value !== 1;
  });
  each(METRICS.mappingState.name, (value, labels) => {
    if (value === 1 && CANNOT_CONSUME_STATES.has(String(labels.state) as ConsumeStateName)) {
      group(labels).cannotConsume = true;
    }
  });
  each(METRICS.lagShare.name, (value, labels) => {
    const found = group(labels);
    found.lag += value;
    found.measured = true;
  });
  each(METRICS.oldestMessageAge.name, (value, labels) => {
    const found = group(labels);
    found.age = Math.max(found.age, value);
  });
  each(METRICS.deadLetterDepth.name, (value, labels) => {
    const found = group(labels);
    found.deadLetterDepth = Math.max(found.deadLetterDepth ?? 0, value);
  });
  each(METRICS.invocations.name, (value, labels) => {
    group(labels).totals.invocations += value;
  });
  each(METRICS.invokeOutcomes.name, (value, labels) => {
    const kind = String(labels.kind) as InvokeOutcomeLabel;
    const totals = group(labels).totals;
    if (kind === 'throttle') totals.throttles += value;
    else if (!NOT_INVOKE_ERRORS.has(kind)) totals.invokeErrors += value;
  });
  each(METRICS.sentBack.name, (value, labels) => {
    group(labels).totals.sentBack += value;
  });
  each(METRICS.deadLettered.name, (value, labels) => {
    group(labels).totals.deadLettered += value;
  });
  each(METRICS.traceRecords.name, (value, labels) => {
    const totals = group(labels).totals;
    if (labels.result === 'written') totals.traceWritten += value;
    else totals.traceDropped += value;
  });
  each(METRICS.filteredOut.name, (value, labels) => {
    group(labels).totals.filteredOut += value;
  });
  return [...groups].map(([consumerGroup, found]) => ({
    consumerGroup,
    // No lag_share sample: no mapping of the group could be measured (publishing 0 would invite a scale-in).
    lag: found.measured ? found.lag : undefined,
    oldestMessageAgeSeconds: found.age,
    deadLetterDepth: found.deadLetterDepth,
    unhealthy: found.unhealthy,
    cannotConsume: found.cannotConsume,
    totals: found.totals,
  }));
}

/**
 * Options of {@link EmfPublisher}.
 */
export interface EmfPublisherOptions {
  readonly registry: Registry;
  /** @default LAG_METRIC.namespace (`RocketMQLambda`) */
  readonly namespace?: string | undefined;
  /** @default 60000 */
  readonly intervalMs?: number | undefined;
  /** Receives each line (without its newline). @default a write of the line and `\n` to stdout */
  readonly write?: ((line: string) => void) | undefined;
  readonly logger?: Logger | undefined;
  readonly nowMs?: (() => number) | undefined;
}

/**
 * The publisher.
 */
export class EmfPublisher {
  readonly #options: EmfPublisherOptions;
  readonly #log: Logger;
  readonly #task: PeriodicTask;
  readonly #previous = new Map<string, GroupTotals>();
  #publishing: Promise<string[]> = Promise.resolve([]);
  #started = false;

  constructor(options: EmfPublisherOptions) {
    const intervalMs = options.intervalMs ?? 60_000;
    if (!(Number.isSafeInteger(intervalMs) && intervalMs > 0)) {
      throw new RocketMQError(`EMF publisher: intervalMs must be a positive integer, got ${intervalMs}`);
    }
    this.#options = { ...options, intervalMs };
    this.#log = componentLogger('metrics.emf', options.logger);
    this.#task = new PeriodicTask(
      'write EMF metrics',
      intervalMs,
      () => this.publishOnce().then(() => undefined),
      this.#log,
    );
  }

  /** Writes a line per group every interval, the first after one interval. */
  start(): void {
    this.#started = true;
    this.#task.start(this.#options.intervalMs);
  }

  /** Stops the interval; resolves after a running publish ended. */
  stop(): Promise<void> {
    return this.#task.stop();
  }

  /**
   * After {@link stop}, once the consumers have stopped: writes a last line per group with the counts
   * since the previous line only (their lag, none held, and health, stopped, would read as a scale-in
   * signal and an alarm). Does nothing when the publisher never started.
   */
  async flushCounts(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await this.publishOnce({ countsOnly: true });
  }

  /**
   * Reads the registry and writes one line per consumer group; resolves with the lines written.
   * `countsOnly` leaves out `ConsumerLag`, `OldestMessageAge`, `DeadLetterDepth`, `Unhealthy` and
   * `CannotConsume`.
   */
  publishOnce(options: { readonly countsOnly?: boolean } = {}): Promise<string[]> {
    // One at a time: the deltas of two overlapping publishes would count the same events twice.
    this.#publishing = this.#publishing
      .catch(() => [])
      .then(() => this.#publish(options.countsOnly === true));
    return this.#publishing;
  }

  async #publish(countsOnly: boolean): Promise<string[]> {
    const summaries = summarizeGroups(await this.#options.registry.getMetricsAsJSON());
    const timestampMs = (this.#options.nowMs ?? Date.now)();
    const namespace = this.#options.namespace ?? LAG_METRIC.namespace;
    const write = this.#options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
    const lines = summaries.map((summary) => {
      const previous = this.#previous.get(summary.consumerGroup);
      this.#previous.set(summary.consumerGroup, { ...summary.totals });
      const delta = (key: keyof GroupTotals) => Math.max(0, summary.totals[key] - (previous?.[key] ?? 0));
      const counts: EmfValue[] = [
        { ...EMF_METRICS.invocations, value: delta('invocations') },
        { ...EMF_METRICS.invokeErrors, value: delta('invokeErrors') },
        { ...EMF_METRICS.throttles, value: delta('throttles') },
        { ...EMF_METRICS.sentBack, value: delta('sentBack') },
        { ...EMF_METRICS.deadLettered, value: delta('deadLettered') },
        { ...EMF_METRICS.filteredOut, value: delta('filteredOut') },
        // Only for groups whose mappings trace: a line of a group without `messageTrace` stays as it was.
        ...(summary.totals.traceWritten + summary.totals.traceDropped > 0
          ? [
              { ...EMF_METRICS.traceRecordsWritten, value: delta('traceWritten') },
              { ...EMF_METRICS.traceRecordsDropped, value: delta('traceDropped') },
            ]
          : []),
      ];
      const values: EmfValue[] = countsOnly
        ? counts
        : [
            ...(summary.lag === undefined ? [] : [{ ...EMF_METRICS.consumerLag, value: summary.lag }]),
            { ...EMF_METRICS.oldestMessageAge, value: summary.oldestMessageAgeSeconds },
            ...counts,
            ...(summary.deadLetterDepth === undefined
              ? []
              : [{ ...EMF_METRICS.deadLetterDepth, value: summary.deadLetterDepth }]),
            { ...EMF_METRICS.unhealthy, value: summary.unhealthy ? 1 : 0 },
            { ...EMF_METRICS.cannotConsume, value: summary.cannotConsume ? 1 : 0 },
          ];
      return JSON.stringify(
        emfDocument({ namespace, consumerGroup: summary.consumerGroup, timestampMs, values }),
      );
    });
    for (const line of lines) write(line);
    return lines;
  }
}
