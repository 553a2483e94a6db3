/**
 * The metrics registry of one poller (a prom-client `Registry` of its own, never the global one), built
 * from the catalog (metric-catalog.ts). Most values are read when someone asks (a scrape, an EMF line):
 * gauges and counters the consumer already keeps come from one status-and-lag snapshot of every
 * mapping, taken at most once per {@link DEFAULT_SNAPSHOT_MAX_AGE_MS} so that every metric of a scrape
 * and the publishers see the same moment. Events nothing counts yet (invoke outcomes and durations, pull
 * durations, offset writes, rebalances) arrive through the observers each mapping hands to its listener,
 * runtime and offset store. The dead-letter depth of each group is read from the brokers by the poller
 * (poller-telemetry.ts) and recorded here; `/metrics` adds the process's runtime metrics
 * ({@link PollerMetrics.scrapeRegistry}).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CONSUME_STATES } from '../consumer/consume-state.js';
import type { ConsumerHealth } from '../consumer/consumer-health.js';
import type { ConsumerObserver } from '../consumer/consumer-observer.js';
import type { ConsumerRuntimeEvent, ConsumerRuntimeStatus } from '../consumer/consumer-status.js';
import type { MessageTraceObserver } from '../consumer/trace/message-trace-writer.js';
import type { InvokeObserver, InvokeResultKind } from '../invoke/invoke-observer.js';
import type { OffsetStore } from '../offsets/offset-store.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { buildInfo } from '../util/build-info.js';
import { componentLogger, type Logger } from '../util/logger.js';
import type { LagSource } from './cloudwatch-lag-publisher.js';
import { type MappingSnapshot, registerCollectedMetrics } from './collected-metrics.js';
import { type GroupSummary, summarizeGroups } from './emf-publisher.js';
import {
  INVOKE_OUTCOME_LABELS,
  type InvokeOutcomeLabel,
  METRICS,
  type MetricDefinition,
} from './metric-catalog.js';
import { ObservedOffsetStore, type OffsetWriteOperation } from './observed-offset-store.js';
import { processMetricsRegistry } from './process-metrics.js';
import { type ConsumerLag, measureConsumerLag } from './queue-lag.js';

/** How long one snapshot of the mappings serves the metrics asking for it. */
export const DEFAULT_SNAPSHOT_MAX_AGE_MS = 1000;
const OFFSET_WRITE_OPERATIONS: readonly OffsetWriteOperation[] = [
  'persist_all',
  'persist',
  'claim',
  'release',
];

/**
 * What a metered mapping is called.
 */
export interface MeteredMapping {
  readonly name: string;
  readonly consumerGroup: string;
  readonly topic: string;
}

/** A mapping's status as the metrics read it: a PUSH consumer's, which any mode can give. */
export type MeteredStatus = Omit<ConsumerRuntimeStatus, 'mode'>;

/**
 * The consumer of a mapping, as the metrics read it (a `ConsumerRuntime` is one).
 */
export interface MeteredConsumer {
  /** Held queues and counters, in any consume mode (a mode that holds no queue reports none). */
  status(): Promise<MeteredStatus>;
  maxOffset(queue: MessageQueue): Promise<number>;
  /**
   * The mapping's lag when it is not that of the held queues (a POP consumer holds none, see
   * `popLag`); absent: measured from the status's queues.
   */
  measureLag?: (() => Promise<ConsumerLag>) | undefined;
  health(nowMs?: number): ConsumerHealth;
  onEvent(listener: (event: ConsumerRuntimeEvent) => void): () => void;
}

/**
 * Options of {@link PollerMetrics}.
 */
export interface PollerMetricsOptions {
  /** False once the poller is stopping (`rocketmq_lambda_up`). */
  readonly running: () => boolean;
  /** The poller's verdict (`rocketmq_lambda_healthy`). */
  readonly health: () => { readonly healthy: boolean; readonly problems: readonly string[] };
  readonly logger?: Logger | undefined;
  /** @default Date.now */
  readonly nowMs?: (() => number) | undefined;
  /** @default DEFAULT_SNAPSHOT_MAX_AGE_MS */
  readonly snapshotMaxAgeMs?: number | undefined;
}

type MappingLabels = { mapping: string; consumer_group: string };

interface Entry {
  readonly mapping: MeteredMapping;
  readonly labels: MappingLabels;
  consumer: MeteredConsumer | undefined;
  unsubscribe: (() => void) | undefined;
}

/**
 * What one mapping hands to its collaborators so that their events reach the registry.
 */
export interface MappingMeter {
  readonly invokeObserver: InvokeObserver;
  readonly consumerObserver: ConsumerObserver;
  /** Counts the mapping's message trace records (its `messageTrace` writer). */
  readonly traceObserver: MessageTraceObserver;
  /** The store, wrapped so that its writes are counted. */
  observeOffsetStore(store: OffsetStore): OffsetStore;
  /** Reads the consumer's status, lag and health from now on, and counts its rebalances. */
  watch(consumer: MeteredConsumer): void;
}

/**
 * The `kind` label of an invoke's outcome.
 */
export function outcomeLabel(kind: InvokeResultKind): InvokeOutcomeLabel {
  return kind.replaceAll('-', '_') as InvokeOutcomeLabel;
}

/**
 * The registry of one poller and its mappings' observers.
 */
export class PollerMetrics {
  /** The poller's own metrics (what EMF reads). */
  readonly registry = new Registry();
  readonly #options: PollerMetricsOptions;
  readonly #log: Logger;
  readonly #nowMs: () => number;
  readonly #entries: Entry[] = [];
  #snapshot: { readonly atMs: number; readonly value: Promise<MappingSnapshot[]> } | undefined;
  readonly #rebalances: Counter<string>;
  readonly #pullDuration: Histogram<string>;
  readonly #invocations: Counter<string>;
  readonly #invokeDuration: Histogram<string>;
  readonly #invokeOutcomes: Counter<string>;
  readonly #offsetWrites: Counter<string>;
  readonly #offsetWriteFailures: Counter<string>;
  readonly #deadLetterDepth: Gauge<string>;
  readonly #traceRecords: Counter<string>;
  #scrapeRegistry: Registry | undefined;

  constructor(options: PollerMetricsOptions) {
    this.#options = options;
    this.#log = componentLogger('metrics', options.logger);
    this.#nowMs = options.nowMs ?? Date.now;
    this.#rebalances = this.#counter(METRICS.rebalances);
    this.#pullDuration = this.#histogram(METRICS.pullDuration);
    this.#invocations = this.#counter(METRICS.invocations);
    this.#invokeDuration = this.#histogram(METRICS.invokeDuration);
    this.#invokeOutcomes = this.#counter(METRICS.invokeOutcomes);
    this.#offsetWrites = this.#counter(METRICS.offsetWrites);
    this.#offsetWriteFailures = this.#counter(METRICS.offsetWriteFailures);
    this.#traceRecords = this.#counter(METRICS.traceRecords);
    const build = buildInfo();
    this.#gauge(METRICS.buildInfo).set({ version: build.version, node_version: build.nodeVersion }, 1);
    this.#deadLetterDepth = this.#gauge(METRICS.deadLetterDepth);
    registerCollectedMetrics(this.registry, {
      snapshots: () => this.snapshots(),
      mappingHealth: (nowMs) =>
        this.#entries.map((entry) => ({
          labels: entry.labels,
          healthy: entry.consumer?.health(nowMs).healthy === true,
        })),
      running: options.running,
      healthy: () => options.health().healthy,
      nowMs: this.#nowMs,
    });
    this.#registerMappingState();
  }

  /**
   * What `/metrics` serves: the poller's registry and the process's runtime metrics
   * (process-metrics.ts), whose collectors start on the first call.
   */
  get scrapeRegistry(): Registry {
    // Every metric of the poller is registered by the constructor: merged once, none is missed.
    this.#scrapeRegistry ??= Registry.merge([this.registry, processMetricsRegistry()]);
    return this.#scrapeRegistry;
  }

  /** Records a consumer group's dead-letter depth read from the brokers (`dead_letter_depth`). */
  recordDeadLetterDepth(consumerGroup: string, depth: number): void {
    this.#deadLetterDepth.set({ consumer_group: consumerGroup }, depth);
  }

  /**
   * Makes the next read take a new snapshot: after the consumers stopped, the last EMF line and the
   * shutdown summary must see their final counters, not a snapshot taken while batches were finishing.
   */
  forgetSnapshot(): void {
    this.#snapshot = undefined;
  }

  /** What the registry says of every consumer group (the totals the EMF lines are the deltas of). */
  async groupSummaries(): Promise<GroupSummary[]> {
    return summarizeGroups(await this.registry.getMetricsAsJSON());
  }

  /** Adds a mapping; its series exist (at 0) from now on. */
  mapping(mapping: MeteredMapping): MappingMeter {
    const labels: MappingLabels = { mapping: mapping.name, consumer_group: mapping.consumerGroup };
    const entry: Entry = { mapping, labels, consumer: undefined, unsubscribe: undefined };
    this.#entries.push(entry);
    this.#rebalances.inc(labels, 0);
    this.#invocations.inc(labels, 0);
    for (const kind of INVOKE_OUTCOME_LABELS) this.#invokeOutcomes.inc({ ...labels, kind }, 0);
    for (const operation of OFFSET_WRITE_OPERATIONS) {
      this.#offsetWrites.inc({ ...labels, operation }, 0);
      this.#offsetWriteFailures.inc({ ...labels, operation }, 0);
    }
    return {
      invokeObserver: {
        invoked: ({ kind, durationMs }) => {
          this.#invocations.inc(labels);
          this.#invokeOutcomes.inc({ ...labels, kind: outcomeLabel(kind) });
          this.#invokeDuration.observe(labels, durationMs / 1000);
        },
        throttled: () => this.#invokeOutcomes.inc({ ...labels, kind: 'throttle' }),
      },
      consumerObserver: {
        pullCompleted: ({ durationMs }) => this.#pullDuration.observe(labels, durationMs / 1000),
      },
      traceObserver: {
        written: (records) => this.#traceRecords.inc({ ...labels, result: 'written' }, records),
        dropped: (records, reason) =>
          this.#traceRecords.inc({ ...labels, result: reason.replaceAll('-', '_') }, records),
      },
      observeOffsetStore: (store) =>
        new ObservedOffsetStore(store, (operation, ok) =>
          (ok ? this.#offsetWrites : this.#offsetWriteFailures).inc({ ...labels, operation }),
        ),
      watch: (consumer) => {
        entry.unsubscribe?.();
        entry.consumer = consumer;
        entry.unsubscribe = consumer.onEvent((event) => {
          if (event.type === 'queues-changed') this.#rebalances.inc(labels);
        });
      },
    };
  }

  /**
   * Status and lag of every watched mapping, shared by every caller for `snapshotMaxAgeMs`. A mapping
   * whose status cannot be read is left out (and logged).
   */
  snapshots(): Promise<MappingSnapshot[]> {
    const nowMs = this.#nowMs();
    const maxAgeMs = this.#options.snapshotMaxAgeMs ?? DEFAULT_SNAPSHOT_MAX_AGE_MS;
    if (this.#snapshot !== undefined && nowMs - this.#snapshot.atMs < maxAgeMs) return this.#snapshot.value;
    const value = this.#takeSnapshots();
    this.#snapshot = { atMs: nowMs, value };
    return value;
  }

  /** The mappings' lag from the shared snapshot, for the PutMetricData publisher. */
  lagSources(): LagSource[] {
    return this.#entries
      .filter((entry) => entry.consumer !== undefined)
      .map((entry) => ({
        lag: async () => {
          const found = (await this.snapshots()).find((snapshot) => snapshot.mapping === entry.mapping);
          if (found === undefined)
            throw new Error(`the status of mapping ${entry.mapping.name} could not be read`);
          return found.lag;
        },
      }));
  }

  /** Stops listening to the consumers' events. */
  close(): void {
    for (const entry of this.#entries) entry.unsubscribe?.();
  }

  async #takeSnapshots(): Promise<MappingSnapshot[]> {
    const watched = this.#entries.filter(
      (entry): entry is Entry & { consumer: MeteredConsumer } => entry.consumer !== undefined,
    );
    const results = await Promise.allSettled(
      watched.map(async (entry) => {
        const status = await entry.consumer.status();
        const lag =
          entry.consumer.measureLag === undefined
            ? await measureConsumerLag(entry.consumer, status)
            : await entry.consumer.measureLag();
        return { mapping: entry.mapping, status, lag };
      }),
    );
    return results.flatMap((result, index) => {
      if (result.status === 'fulfilled') return [result.value];
      this.#log.warn(
        { err: result.reason, mapping: watched[index]?.mapping.name },
        'mapping status unavailable',
      );
      return [];
    });
  }

  #counter(definition: MetricDefinition): Counter<string> {
    return new Counter({
      name: definition.name,
      help: definition.help,
      labelNames: definition.labels,
      registers: [this.registry],
    });
  }

  #gauge(definition: MetricDefinition): Gauge<string> {
    return new Gauge({
      name: definition.name,
      help: definition.help,
      labelNames: definition.labels,
      registers: [this.registry],
    });
  }

  /**
   * `rocketmq_lambda_mapping_state`: 1 for the state each mapping's consumer reports (consume-state.ts), 0
   * for the others, read at each collection (a mapping whose consumer tells no state reports none).
   */
  #registerMappingState(): void {
    const definition = METRICS.mappingState;
    const gauge: Gauge<string> = new Gauge({
      name: definition.name,
      help: definition.help,
      labelNames: definition.labels,
      registers: [this.registry],
      collect: () => {
        gauge.reset();
        const nowMs = this.#nowMs();
        for (const entry of this.#entries) {
          const current = entry.consumer?.health(nowMs).state?.state;
          if (current === undefined) continue;
          for (const state of CONSUME_STATES)
            gauge.set({ ...entry.labels, state }, state === current ? 1 : 0);
        }
      },
    });
  }

  #histogram(definition: MetricDefinition): Histogram<string> {
    return new Histogram({
      name: definition.name,
      help: definition.help,
      labelNames: definition.labels,
      buckets: [...(definition.buckets ?? [])],
      registers: [this.registry],
    });
  }
}
