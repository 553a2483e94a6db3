/**
 * The metrics whose values are read when the registry is collected (a scrape, an EMF line): the poller's
 * and each mapping's health, and what the consumers already keep (status: held queues, buffers,
 * counters; lag), from one shared snapshot of every mapping.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { QueueStatus } from '../consumer/consumer-status.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { METRICS, type MetricDefinition } from './metric-catalog.js';
import type { MeteredMapping, MeteredStatus } from './poller-metrics.js';
import type { ConsumerLag, QueueLag } from './queue-lag.js';

type Labels = Record<string, string>;
type Fill = (set: (labels: Labels, value: number) => void) => void | Promise<void>;

/**
 * One mapping at one moment.
 */
export interface MappingSnapshot {
  readonly mapping: MeteredMapping;
  readonly status: MeteredStatus;
  readonly lag: ConsumerLag;
}

/**
 * The `queue` label of a message queue: `<broker>@<queueId>`.
 */
export function queueLabel(queue: MessageQueue): string {
  return `${queue.brokerName}@${queue.queueId}`;
}

/**
 * Age in seconds of the oldest unconsumed message of a queue (see `METRICS.oldestMessageAge`): 0 when its
 * lag is 0, from the oldest buffered message when there is one, else unknown (undefined).
 */
export function oldestMessageAgeSeconds(
  queue: { readonly oldestStoreTimestampMs: number | undefined },
  lag: number | undefined,
  nowMs: number,
): number | undefined {
  if (lag === 0) return 0;
  if (queue.oldestStoreTimestampMs === undefined) return undefined;
  return Math.max(0, nowMs - queue.oldestStoreTimestampMs) / 1000;
}

/**
 * Where the collected metrics read from.
 */
export interface CollectedSource {
  snapshots(): Promise<readonly MappingSnapshot[]>;
  /** The verdict on every mapping (unwatched ones are not healthy). */
  mappingHealth(nowMs: number): readonly { readonly labels: Labels; readonly healthy: boolean }[];
  running(): boolean;
  healthy(): boolean;
  nowMs(): number;
}

/**
 * Registers the collected metrics of the catalog in `registry`.
 */
export function registerCollectedMetrics(registry: Registry, source: CollectedSource): void {
  const mappingLabels = (snapshot: MappingSnapshot): Labels => ({
    mapping: snapshot.mapping.name,
    consumer_group: snapshot.mapping.consumerGroup,
  });
  collectedGauge(registry, METRICS.up, (set) => set({}, source.running() ? 1 : 0));
  collectedGauge(registry, METRICS.healthy, (set) => set({}, source.healthy() ? 1 : 0));
  collectedGauge(registry, METRICS.mappingHealthy, (set) => {
    for (const { labels, healthy } of source.mappingHealth(source.nowMs())) set(labels, healthy ? 1 : 0);
  });
  const perQueue = (
    definition: MetricDefinition,
    sample: (queue: QueueStatus, lag: QueueLag | undefined, nowMs: number) => number | undefined,
  ) =>
    collectedGauge(registry, definition, async (set) => {
      const nowMs = source.nowMs();
      for (const snapshot of await source.snapshots()) {
        const lags = new Map(snapshot.lag.queues.map((lag) => [queueKey(lag.queue), lag]));
        for (const queue of snapshot.status.queues) {
          const value = sample(queue, lags.get(queueKey(queue.queue)), nowMs);
          if (value === undefined) continue;
          set(
            { ...mappingLabels(snapshot), topic: queue.queue.topic, queue: queueLabel(queue.queue) },
            value,
          );
        }
      }
    });
  perQueue(METRICS.consumerLag, (_, lag) => lag?.lag);
  perQueue(METRICS.oldestMessageAge, (queue, lag, nowMs) => oldestMessageAgeSeconds(queue, lag?.lag, nowMs));
  perQueue(METRICS.bufferedMessages, (queue) => queue.cachedMessageCount);
  perQueue(METRICS.bufferedBytes, (queue) => queue.cachedMessageBytes);
  const perMapping = (
    definition: MetricDefinition,
    values: (snapshot: MappingSnapshot) => readonly [Labels, number][],
  ) => {
    const fill: Fill = async (set) => {
      for (const snapshot of await source.snapshots()) {
        for (const [extra, value] of values(snapshot)) set({ ...mappingLabels(snapshot), ...extra }, value);
      }
    };
    if (definition.type === 'gauge') collectedGauge(registry, definition, fill);
    else collectedCounter(registry, definition, fill);
  };
  perMapping(METRICS.lagShare, ({ lag }) =>
    lag.queues.length > 0 && lag.unknownQueues >= lag.queues.length ? [] : [[{}, lag.total]],
  );
  perMapping(METRICS.lagUnknownQueues, ({ lag }) => [[{}, lag.unknownQueues]]);
  perMapping(METRICS.queuesHeld, ({ status }) => [[{}, status.queues.length]]);
  perMapping(METRICS.pulls, ({ status: { counters } }) => [
    [{ result: 'answered' }, counters.pullRequests],
    [{ result: 'failed' }, counters.pullErrors],
  ]);
  perMapping(METRICS.pulledMessages, ({ status }) => [[{}, status.counters.pulledMessages]]);
  perMapping(METRICS.consumedMessages, ({ status: { counters } }) => [
    [{ result: 'success' }, counters.consumedOk],
    [{ result: 'failure' }, counters.consumedFailed],
  ]);
  // `sentBack` counts every send-back; the ones bound for the DLQ are dead letters, not retries.
  perMapping(METRICS.sentBack, ({ status: { counters } }) => [
    [{}, Math.max(0, counters.sentBack - counters.deadLettered)],
  ]);
  perMapping(METRICS.deadLettered, ({ status: { counters } }) => [
    [{}, counters.deadLettered + counters.undecodableDeadLettered],
  ]);
  perMapping(METRICS.filteredOut, ({ status: { counters } }) => [[{}, counters.filteredOut]]);
}

/** Values are gathered first, then swapped in at once: a concurrent collection never sees half a set. */
async function gather(fill: Fill): Promise<[Labels, number][]> {
  const values: [Labels, number][] = [];
  await fill((labels, value) => values.push([labels, value]));
  return values;
}

function collectedGauge(registry: Registry, definition: MetricDefinition, fill: Fill): void {
  const gauge: Gauge<string> = new Gauge(
    collecting(registry, definition, fill, (values) => {
      gauge.reset();
      for (const [labels, value] of values) gauge.set(labels, value);
    }),
  );
}

/** A counter whose value is a counter the consumer keeps, copied at each collection. */
function collectedCounter(registry: Registry, definition: MetricDefinition, fill: Fill): void {
  const counter: Counter<string> = new Counter(
    collecting(registry, definition, fill, (values) => {
      counter.reset();
      for (const [labels, value] of values) counter.inc(labels, value);
    }),
  );
}

/** The settings of a metric in `registry` whose values `fill` gathers at each collection for `replace`. */
function collecting(
  registry: Registry,
  definition: MetricDefinition,
  fill: Fill,
  replace: (values: [Labels, number][]) => void,
) {
  return {
    name: definition.name,
    help: definition.help,
    labelNames: definition.labels,
    registers: [registry],
    collect: async () => replace(await gather(fill)),
  };
}

function queueKey(queue: MessageQueue): string {
  return `${queue.topic}@${queue.brokerName}@${queue.queueId}`;
}
