import { readFileSync } from 'node:fs';
import { register as globalRegistry, type Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { oldestMessageAgeSeconds } from '../../../src/metrics/collected-metrics.js';
import { METRICS } from '../../../src/metrics/metric-catalog.js';
import { PollerMetrics } from '../../../src/metrics/poller-metrics.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import { FakeConsumer } from './fake-consumer.js';

const NOW_MS = Date.UTC(2026, 0, 2, 3, 4, 5);
const ORDERS = { name: 'orders', consumerGroup: 'orders-fn', topic: 'Orders' };
const AUDIT = { name: 'audit', consumerGroup: 'audit-fn', topic: 'Audit' };
const ORDERS_LABELS = { mapping: 'orders', consumer_group: 'orders-fn' };

type Labels = Record<string, string>;

/** The value of the series `name` with exactly `labels` (undefined when absent). */
async function sample(registry: Registry, name: string, labels: Labels = {}): Promise<number | undefined> {
  const metrics = await registry.getMetricsAsJSON();
  const metric = metrics.find((m) => m.name === name);
  const found = metric?.values.find(
    (value) =>
      Object.keys(value.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([key, expected]) => String(value.labels[key]) === expected),
  );
  return found?.value;
}

function setup(options: { running?: () => boolean; healthy?: () => boolean } = {}) {
  let nowMs = NOW_MS;
  const metrics = new PollerMetrics({
    running: options.running ?? (() => true),
    health: () => ({ healthy: options.healthy?.() ?? true, problems: [] }),
    nowMs: () => nowMs,
  });
  const orders = new FakeConsumer(ORDERS);
  const meter = metrics.mapping(ORDERS);
  meter.watch(orders);
  return {
    metrics,
    registry: metrics.registry,
    orders,
    meter,
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

describe('PollerMetrics', () => {
  it('has a registry of its own: nothing lands in prom-client global registry', async () => {
    const before = (await globalRegistry.getMetricsAsJSON()).length;
    const { registry } = setup();
    expect(registry).not.toBe(globalRegistry);
    expect((await globalRegistry.getMetricsAsJSON()).length).toBe(before);
    expect(await sample(registry, METRICS.up.name)).toBe(1);
  });

  it('reads lag, buffers and the oldest message age per held queue from one snapshot', async () => {
    const { registry, orders } = setup();
    orders.queues = [
      { queueId: 0, lag: 30, buffered: 12, bytes: 4096, oldestStoreTimestampMs: NOW_MS - 7500 },
      { queueId: 1, lag: 0 },
      { queueId: 2, lag: 5 }, // backlog not pulled yet: no age sample
      { queueId: 3, lag: undefined, buffered: 2, bytes: 10, oldestStoreTimestampMs: NOW_MS - 1000 },
    ];
    const queue = (id: number) => ({ ...ORDERS_LABELS, topic: 'Orders', queue: `broker-a@${id}` });
    expect(await sample(registry, METRICS.consumerLag.name, queue(0))).toBe(30);
    expect(await sample(registry, METRICS.consumerLag.name, queue(1))).toBe(0);
    expect(await sample(registry, METRICS.consumerLag.name, queue(3))).toBeUndefined();
    expect(await sample(registry, METRICS.lagUnknownQueues.name, ORDERS_LABELS)).toBe(1);
    expect(await sample(registry, METRICS.oldestMessageAge.name, queue(0))).toBe(7.5);
    expect(await sample(registry, METRICS.oldestMessageAge.name, queue(1))).toBe(0);
    expect(await sample(registry, METRICS.oldestMessageAge.name, queue(2))).toBeUndefined();
    expect(await sample(registry, METRICS.oldestMessageAge.name, queue(3))).toBe(1);
    expect(await sample(registry, METRICS.bufferedMessages.name, queue(0))).toBe(12);
    expect(await sample(registry, METRICS.bufferedBytes.name, queue(0))).toBe(4096);
    expect(await sample(registry, METRICS.queuesHeld.name, ORDERS_LABELS)).toBe(4);
  });

  it('takes one status and one max offset per queue per scrape, however many metrics read them', async () => {
    const { registry, orders, advance } = setup();
    orders.queues = [{ queueId: 0, lag: 3 }];
    await registry.metrics();
    expect([orders.statusCalls, orders.maxOffsetCalls]).toEqual([1, 1]);
    advance(1000);
    await registry.metrics();
    expect([orders.statusCalls, orders.maxOffsetCalls]).toEqual([2, 2]);
  });

  it('copies the consumer counters: pulls, sent back (retries only), dead-lettered and filtered out', async () => {
    const { registry, orders } = setup();
    Object.assign(orders.counters, {
      pullRequests: 40,
      pullErrors: 2,
      pulledMessages: 300,
      consumedOk: 280,
      consumedFailed: 20,
      sentBack: 15,
      deadLettered: 4,
      undecodableDeadLettered: 1,
      filteredOut: 9,
    });
    expect(await sample(registry, METRICS.pulls.name, { ...ORDERS_LABELS, result: 'answered' })).toBe(40);
    expect(await sample(registry, METRICS.pulls.name, { ...ORDERS_LABELS, result: 'failed' })).toBe(2);
    expect(await sample(registry, METRICS.pulledMessages.name, ORDERS_LABELS)).toBe(300);
    expect(
      await sample(registry, METRICS.consumedMessages.name, { ...ORDERS_LABELS, result: 'failure' }),
    ).toBe(20);
    expect(await sample(registry, METRICS.sentBack.name, ORDERS_LABELS)).toBe(11);
    expect(await sample(registry, METRICS.deadLettered.name, ORDERS_LABELS)).toBe(5);
    expect(await sample(registry, METRICS.filteredOut.name, ORDERS_LABELS)).toBe(9);
  });

  it('counts invokes by outcome kind, throttles apart, and observes durations', async () => {
    const { registry, meter } = setup();
    const invoked = meter.invokeObserver.invoked;
    invoked?.({ kind: 'success', durationMs: 120, messages: 10 });
    invoked?.({ kind: 'success', durationMs: 80, messages: 10 });
    invoked?.({ kind: 'function-error', durationMs: 40, messages: 10 });
    invoked?.({ kind: 'payload-too-large', durationMs: 5, messages: 10 });
    meter.invokeObserver.throttled?.();
    meter.invokeObserver.throttled?.();
    const outcome = (kind: string) =>
      sample(registry, METRICS.invokeOutcomes.name, { ...ORDERS_LABELS, kind });
    expect(await sample(registry, METRICS.invocations.name, ORDERS_LABELS)).toBe(4);
    expect(await outcome('success')).toBe(2);
    expect(await outcome('function_error')).toBe(1);
    expect(await outcome('payload_too_large')).toBe(1);
    expect(await outcome('throttle')).toBe(2);
    expect(await outcome('timeout')).toBe(0);
    const text = await registry.metrics();
    expect(text).toContain(
      'rocketmq_lambda_invoke_duration_seconds_count{mapping="orders",consumer_group="orders-fn"} 4',
    );
    expect(text).toContain(
      'rocketmq_lambda_invoke_duration_seconds_sum{mapping="orders",consumer_group="orders-fn"} 0.245',
    );
  });

  it('observes pull durations, counts rebalances and offset writes', async () => {
    const { registry, meter, orders, metrics } = setup();
    const queue = { topic: 'Orders', brokerName: 'broker-a', queueId: 0 };
    meter.consumerObserver.pullCompleted?.({ queue, durationMs: 3, answered: true });
    meter.consumerObserver.pullCompleted?.({ queue, durationMs: 15_000, answered: true });
    orders.emit({ type: 'queues-changed', added: [queue], removed: [] });
    orders.emit({ type: 'started' });
    const store = meter.observeOffsetStore(new MemoryOffsetStore());
    await store.persistAll([queue]);
    await store.claim(queue);
    const failing = meter.observeOffsetStore(
      Object.assign(new MemoryOffsetStore(), {
        persistAll: async () => {
          throw new Error('table gone');
        },
      }),
    );
    await expect(failing.persistAll([queue])).rejects.toThrow('table gone');
    const text = await registry.metrics();
    expect(text).toContain(
      'rocketmq_lambda_pull_duration_seconds_bucket{le="0.005",mapping="orders",consumer_group="orders-fn"} 1',
    );
    expect(text).toContain(
      'rocketmq_lambda_pull_duration_seconds_count{mapping="orders",consumer_group="orders-fn"} 2',
    );
    expect(await sample(registry, METRICS.rebalances.name, ORDERS_LABELS)).toBe(1);
    const writes = (operation: string) =>
      sample(registry, METRICS.offsetWrites.name, { ...ORDERS_LABELS, operation });
    const failures = (operation: string) =>
      sample(registry, METRICS.offsetWriteFailures.name, { ...ORDERS_LABELS, operation });
    expect([await writes('persist_all'), await writes('claim'), await writes('release')]).toEqual([1, 1, 0]);
    expect(await failures('persist_all')).toBe(1);
    metrics.close();
    expect(orders.listenerCount).toBe(0);
  });

  it('has up, healthy and per-mapping health gauges', async () => {
    let running = true;
    let healthy = true;
    const { registry, orders, metrics } = setup({ running: () => running, healthy: () => healthy });
    const audit = new FakeConsumer(AUDIT);
    metrics.mapping(AUDIT).watch(audit);
    audit.verdict = { healthy: false, problems: ['queue Audit@broker-a@0: no pull completed for 130 s'] };
    healthy = false;
    const auditLabels = { mapping: 'audit', consumer_group: 'audit-fn' };
    expect(await sample(registry, METRICS.healthy.name)).toBe(0);
    expect(await sample(registry, METRICS.mappingHealthy.name, ORDERS_LABELS)).toBe(1);
    expect(await sample(registry, METRICS.mappingHealthy.name, auditLabels)).toBe(0);
    running = false;
    orders.verdict = { healthy: false, problems: ['consumer is stopping'] };
    expect(await sample(registry, METRICS.up.name)).toBe(0);
    expect(await sample(registry, METRICS.mappingHealthy.name, ORDERS_LABELS)).toBe(0);
  });

  it('has a build-info series: the package version and the Node.js version, always 1', async () => {
    const { registry } = setup();
    const { version } = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(
      await sample(registry, METRICS.buildInfo.name, {
        version,
        node_version: process.version.slice(1),
      }),
    ).toBe(1);
  });

  it("keeps each group's last recorded dead-letter depth; none before the first read", async () => {
    const { metrics, registry } = setup();
    const depth = (group: string) =>
      sample(registry, METRICS.deadLetterDepth.name, { consumer_group: group });
    expect(await depth('orders-fn')).toBeUndefined();
    metrics.recordDeadLetterDepth('orders-fn', 7);
    metrics.recordDeadLetterDepth('audit-fn', 0);
    metrics.recordDeadLetterDepth('orders-fn', 12);
    expect([await depth('orders-fn'), await depth('audit-fn')]).toEqual([12, 0]);
  });

  it('serves the Node.js runtime metrics beside its own on the scrape registry, never in its own', async () => {
    const { metrics, registry } = setup();
    const scraped = await metrics.scrapeRegistry.metrics();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_gc_duration_seconds',
      'nodejs_active_handles_total',
    ]) {
      expect(scraped).toContain(`# TYPE ${name} `);
    }
    expect(scraped).toContain(`# TYPE ${METRICS.invocations.name} counter`);
    expect(scraped).toContain(`# TYPE ${METRICS.buildInfo.name} gauge`);
    // One set per process: a second poller's scrape registry serves the same collectors, EMF never reads them.
    expect(await setup().metrics.scrapeRegistry.metrics()).toContain(
      '# TYPE nodejs_heap_size_used_bytes gauge',
    );
    expect((await registry.getMetricsAsJSON()).some((metric) => metric.name.includes('nodejs_'))).toBe(false);
  });

  it('sums the counters per group afresh once the snapshot is forgotten (the shutdown totals)', async () => {
    const { metrics, orders } = setup();
    orders.counters.deadLettered = 3;
    expect((await metrics.groupSummaries())[0]?.totals.deadLettered).toBe(3);
    orders.counters.deadLettered = 500;
    orders.counters.sentBack = 520;
    // Within the snapshot's age the old counters serve; forgotten, the next read has the final ones.
    expect((await metrics.groupSummaries())[0]?.totals.deadLettered).toBe(3);
    metrics.forgetSnapshot();
    expect((await metrics.groupSummaries())[0]?.totals).toMatchObject({ deadLettered: 500, sentBack: 20 });
  });

  it('serves the lag of the shared snapshot to the PutMetricData publisher', async () => {
    const { metrics, orders } = setup();
    orders.queues = [
      { queueId: 0, lag: 7 },
      { queueId: 1, lag: 5 },
    ];
    const [source] = metrics.lagSources();
    expect((await source?.lag())?.total).toBe(12);
    await metrics.registry.metrics();
    expect(orders.maxOffsetCalls).toBe(2); // one snapshot: one max offset per queue
  });
});

describe('oldestMessageAgeSeconds', () => {
  it('is 0 without lag, the buffered message age with it, unknown for a backlog not pulled yet', () => {
    expect(oldestMessageAgeSeconds({ oldestStoreTimestampMs: NOW_MS - 60_000 }, 0, NOW_MS)).toBe(0);
    expect(oldestMessageAgeSeconds({ oldestStoreTimestampMs: NOW_MS - 2500 }, 9, NOW_MS)).toBe(2.5);
    expect(oldestMessageAgeSeconds({ oldestStoreTimestampMs: NOW_MS + 500 }, 9, NOW_MS)).toBe(0);
    expect(oldestMessageAgeSeconds({ oldestStoreTimestampMs: undefined }, 9, NOW_MS)).toBeUndefined();
    expect(oldestMessageAgeSeconds({ oldestStoreTimestampMs: NOW_MS - 1000 }, undefined, NOW_MS)).toBe(1);
  });
});
