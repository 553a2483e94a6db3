import { describe, expect, it } from 'vitest';
import {
  EMF_MAX_METRICS_PER_DIRECTIVE,
  EMF_METRICS,
  emfDocument,
} from '../../../src/metrics/emf-document.js';
import { EmfPublisher } from '../../../src/metrics/emf-publisher.js';
import { METRICS } from '../../../src/metrics/metric-catalog.js';
import { PollerMetrics } from '../../../src/metrics/poller-metrics.js';
import { popLag } from '../../../src/metrics/queue-lag.js';
import { emfProblems } from './emf-schema.js';
import { FakeConsumer } from './fake-consumer.js';

const NOW_MS = Date.UTC(2026, 0, 2, 3, 4, 5);
const ALL_NAMES: readonly string[] = Object.values(EMF_METRICS).map((metric) => metric.name);

function setup() {
  // A fresh snapshot per read: these tests change the consumers between two lines written at once.
  const metrics = new PollerMetrics({
    running: () => true,
    health: () => ({ healthy: true, problems: [] }),
    snapshotMaxAgeMs: 0,
  });
  const add = (name: string, consumerGroup: string) => {
    const consumer = new FakeConsumer({ name, consumerGroup, topic: name });
    const meter = metrics.mapping(consumer.mapping);
    meter.watch(consumer);
    return { consumer, meter };
  };
  const lines: string[] = [];
  const publisher = new EmfPublisher({
    registry: metrics.registry,
    intervalMs: 60_000,
    write: (line) => lines.push(line),
    nowMs: () => NOW_MS,
  });
  return { metrics, add, lines, publisher };
}

const parse = (line: string | undefined) => JSON.parse(line ?? 'null') as Record<string, unknown>;

describe('EMF lines', () => {
  it('one valid EMF line per consumer group, namespace RocketMQLambda, one dimension set [["ConsumerGroup"]]', async () => {
    const { add, publisher } = setup();
    add('orders', 'orders-fn').consumer.queues = [{ queueId: 0, lag: 4 }];
    add('audit', 'audit-fn');
    const lines = await publisher.publishOnce();
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(emfProblems(line)).toEqual([]);
    const orders = parse(lines.find((line) => line.includes('"orders-fn"')));
    expect(orders._aws).toEqual({
      Timestamp: NOW_MS,
      CloudWatchMetrics: [
        {
          Namespace: 'RocketMQLambda',
          Dimensions: [['ConsumerGroup']],
          Metrics: [
            { Name: 'ConsumerLag', Unit: 'Count' },
            { Name: 'OldestMessageAge', Unit: 'Seconds' },
            { Name: 'Invocations', Unit: 'Count' },
            { Name: 'InvokeErrors', Unit: 'Count' },
            { Name: 'Throttles', Unit: 'Count' },
            { Name: 'SentBack', Unit: 'Count' },
            { Name: 'DeadLettered', Unit: 'Count' },
            { Name: 'FilteredOut', Unit: 'Count' },
            { Name: 'Unhealthy', Unit: 'Count' },
            { Name: 'CannotConsume', Unit: 'Count' },
          ],
        },
      ],
    });
    expect(orders.ConsumerGroup).toBe('orders-fn');
    expect(orders.ConsumerLag).toBe(4);
    expect(parse(lines.find((line) => line.includes('"audit-fn"'))).ConsumerLag).toBe(0);
  });

  it('sums lag and takes the largest age over the mappings of a group; counts are deltas per line', async () => {
    const { add, publisher } = setup();
    const a = add('orders-a', 'orders-fn');
    const b = add('orders-b', 'orders-fn');
    a.consumer.queues = [{ queueId: 0, lag: 10, buffered: 10, oldestStoreTimestampMs: Date.now() - 30_000 }];
    b.consumer.queues = [{ queueId: 1, lag: 5, buffered: 5, oldestStoreTimestampMs: Date.now() - 90_000 }];
    for (let i = 0; i < 3; i++)
      a.meter.invokeObserver.invoked?.({ kind: 'success', durationMs: 1, messages: 1 });
    b.meter.invokeObserver.invoked?.({ kind: 'function-error', durationMs: 1, messages: 1 });
    b.meter.invokeObserver.invoked?.({ kind: 'timeout', durationMs: 1, messages: 1 });
    b.meter.invokeObserver.invoked?.({ kind: 'aborted', durationMs: 1, messages: 1 });
    a.meter.invokeObserver.throttled?.();
    Object.assign(a.consumer.counters, { sentBack: 6, deadLettered: 2, filteredOut: 7 });
    Object.assign(b.consumer.counters, { filteredOut: 3 });
    const first = parse((await publisher.publishOnce())[0]);
    expect(first).toMatchObject({
      ConsumerLag: 15,
      Invocations: 6,
      InvokeErrors: 2,
      Throttles: 1,
      SentBack: 4,
      DeadLettered: 2,
      FilteredOut: 10,
      Unhealthy: 0,
    });
    expect(first.OldestMessageAge).toBeGreaterThanOrEqual(90);
    expect(first.OldestMessageAge).toBeLessThan(100);

    a.meter.invokeObserver.invoked?.({ kind: 'network', durationMs: 1, messages: 1 });
    Object.assign(a.consumer.counters, { sentBack: 7, filteredOut: 8 });
    const second = parse((await publisher.publishOnce())[0]);
    expect(second).toMatchObject({
      Invocations: 1,
      InvokeErrors: 1,
      Throttles: 0,
      SentBack: 1,
      DeadLettered: 0,
      FilteredOut: 1,
    });
  });

  it('trace records: written and dropped deltas, only on the lines of groups whose mappings trace', async () => {
    const { add, publisher, metrics } = setup();
    const traced = add('orders', 'orders-fn');
    add('audit', 'audit-fn');
    traced.meter.traceObserver.written?.(40);
    traced.meter.traceObserver.dropped?.(6, 'queue-full');
    traced.meter.traceObserver.dropped?.(4, 'topic-unavailable');
    const lines = await publisher.publishOnce();
    for (const line of lines) expect(emfProblems(line)).toEqual([]);
    const orders = parse(lines.find((line) => line.includes('"orders-fn"')));
    expect(orders).toMatchObject({ TraceRecordsWritten: 40, TraceRecordsDropped: 10 });
    const audit = parse(lines.find((line) => line.includes('"audit-fn"')));
    expect(audit).not.toHaveProperty('TraceRecordsWritten');
    expect(audit).not.toHaveProperty('TraceRecordsDropped');
    const series = (await metrics.registry.getMetricsAsJSON()).find(
      (metric) => metric.name === METRICS.traceRecords.name,
    );
    expect(series?.values.map((v) => [v.labels.result, v.value])).toEqual([
      ['written', 40],
      ['queue_full', 6],
      ['topic_unavailable', 4],
    ]);
    traced.meter.traceObserver.written?.(2);
    const next = parse((await publisher.publishOnce()).find((line) => line.includes('"orders-fn"')));
    expect(next).toMatchObject({ TraceRecordsWritten: 2, TraceRecordsDropped: 0 });
  });

  it("a POP mapping (no held queue) reports its share of the group's backlog, added to the group's PUSH lag", async () => {
    const { add, publisher, metrics } = setup();
    const push = add('orders-push', 'orders-fn');
    push.consumer.queues = [{ queueId: 0, lag: 5 }];
    const pop = add('orders-pop', 'orders-fn');
    const backlog = {
      pollers: 4,
      queues: [0, 1].map((queueId) => ({
        queue: { topic: 'orders-pop', brokerName: 'b', queueId },
        maxOffset: 110,
        consumedOffset: 100,
        error: undefined,
      })),
    };
    pop.consumer.measureLag = async () => popLag(pop.consumer.mapping, backlog);
    const document = parse((await publisher.publishOnce())[0]);
    // 5 held by PUSH + ceil(20 / 4) for POP.
    expect(document.ConsumerLag).toBe(10);
    const share = await metrics.registry.getSingleMetric(METRICS.lagShare.name)?.get();
    expect(share?.values.map(({ labels, value }) => [labels.mapping, value])).toEqual([
      ['orders-push', 5],
      ['orders-pop', 5],
    ]);
  });

  it('leaves ConsumerLag out for a group whose consumer is not watched yet (0 would invite a scale-in)', async () => {
    const { metrics, publisher } = setup();
    metrics.mapping({ name: 'starting', consumerGroup: 'starting-fn', topic: 'T' });
    const [line] = await publisher.publishOnce();
    expect(emfProblems(line ?? '')).toEqual([]);
    expect(parse(line)).not.toHaveProperty('ConsumerLag');
  });

  it('leaves ConsumerLag out while no held queue can be measured, and says Unhealthy', async () => {
    const { add, publisher } = setup();
    const { consumer } = add('orders', 'orders-fn');
    consumer.queues = [{ queueId: 0, lag: undefined }];
    consumer.verdict = { healthy: false, problems: ['queue Orders@broker-a@0: no pull completed for 130 s'] };
    const [line] = await publisher.publishOnce();
    expect(emfProblems(line ?? '')).toEqual([]);
    const document = parse(line);
    expect(document).not.toHaveProperty('ConsumerLag');
    expect(document.Unhealthy).toBe(1);
  });

  it('says CannotConsume at once for a mapping that cannot consume, 0 for a waiting standby', async () => {
    const { add, publisher } = setup();
    const missing = add('orders', 'orders-fn').consumer;
    missing.verdict = {
      healthy: true,
      problems: [],
      state: { state: 'topic_missing', reason: 'topic orders does not exist', sinceMs: 0 },
    };
    const standby = add('audit', 'audit-fn').consumer;
    standby.verdict = {
      healthy: true,
      problems: [],
      state: { state: 'waiting', reason: 'more members than queues', sinceMs: 0 },
    };
    const lines = await publisher.publishOnce();
    for (const line of lines) expect(emfProblems(line)).toEqual([]);
    expect(parse(lines.find((line) => line.includes('"orders-fn"'))).CannotConsume).toBe(1);
    expect(parse(lines.find((line) => line.includes('"audit-fn"'))).CannotConsume).toBe(0);
    const last = await publisher.publishOnce({ countsOnly: true });
    expect(last.every((line) => !line.includes('CannotConsume'))).toBe(true);
  });

  it('the last lines at stop carry only the counts since the previous line', async () => {
    const { add, publisher, lines } = setup();
    const { meter } = add('orders', 'orders-fn');
    publisher.start();
    await publisher.stop();
    meter.invokeObserver.invoked?.({ kind: 'success', durationMs: 1, messages: 1 });
    await publisher.flushCounts();
    expect(lines).toHaveLength(1);
    expect(emfProblems(lines[0] ?? '')).toEqual([]);
    const document = parse(lines[0]);
    expect(Object.keys(document).filter((key) => ALL_NAMES.includes(key))).toEqual([
      'Invocations',
      'InvokeErrors',
      'Throttles',
      'SentBack',
      'DeadLettered',
      'FilteredOut',
    ]);
    expect(document.Invocations).toBe(1);
    await publisher.flushCounts();
    expect(lines).toHaveLength(1);
  });

  it("carries the group's dead-letter depth once read, the same for every mapping of the group, never in the last lines", async () => {
    const { metrics, add, publisher, lines } = setup();
    add('orders', 'orders-fn');
    add('orders-2', 'orders-fn');
    add('audit', 'audit-fn');
    const before = await publisher.publishOnce();
    expect(before.every((line) => !line.includes('DeadLetterDepth'))).toBe(true);
    metrics.recordDeadLetterDepth('orders-fn', 500);
    metrics.recordDeadLetterDepth('audit-fn', 0);
    const after = await publisher.publishOnce();
    for (const line of after) expect(emfProblems(line)).toEqual([]);
    const orders = parse(after.find((line) => line.includes('"orders-fn"')));
    expect(orders.DeadLetterDepth).toBe(500);
    expect(
      (orders._aws as { CloudWatchMetrics: { Metrics: { Name: string; Unit: string }[] }[] })
        .CloudWatchMetrics[0]?.Metrics,
    ).toContainEqual({ Name: 'DeadLetterDepth', Unit: 'Count' });
    expect(parse(after.find((line) => line.includes('"audit-fn"'))).DeadLetterDepth).toBe(0);
    publisher.start();
    await publisher.stop();
    lines.length = 0;
    await publisher.flushCounts();
    expect(lines.every((line) => !line.includes('DeadLetterDepth'))).toBe(true);
    expect(lines).toHaveLength(2);
  });
});

describe('emfDocument and the validator', () => {
  it('refuses more than 100 metrics per directive', () => {
    const values = Array.from({ length: EMF_MAX_METRICS_PER_DIRECTIVE + 1 }, (_, i) => ({
      name: `M${i}`,
      unit: 'Count',
      value: i,
    }));
    expect(() => emfDocument({ namespace: 'N', consumerGroup: 'g', timestampMs: NOW_MS, values })).toThrow(
      RangeError,
    );
  });

  it('the validator catches what CloudWatch would reject', () => {
    const valid = emfDocument({
      namespace: 'RocketMQLambda',
      consumerGroup: 'g',
      timestampMs: NOW_MS,
      values: [{ name: 'ConsumerLag', unit: 'Count', value: 1 }],
    });
    expect(emfProblems(JSON.stringify(valid))).toEqual([]);
    const broken = (change: (document: Record<string, unknown>) => void) => {
      const document = structuredClone(valid);
      change(document);
      return emfProblems(JSON.stringify(document));
    };
    expect(broken((d) => delete d.ConsumerLag)).not.toEqual([]);
    expect(broken((d) => (d.ConsumerGroup = 7))).not.toEqual([]);
    expect(broken((d) => (d.ConsumerLag = '1'))).not.toEqual([]);
    expect(broken((d) => ((d._aws as { Timestamp: unknown }).Timestamp = '2026-01-02'))).not.toEqual([]);
    expect(
      broken((d) => {
        const [directive] = (d._aws as { CloudWatchMetrics: { Metrics: unknown[] }[] }).CloudWatchMetrics;
        directive?.Metrics.push({ Name: 'X', Unit: 'Requests' });
        d.X = 1;
      }),
    ).not.toEqual([]);
    expect(emfProblems(JSON.stringify(valid, null, 2))).toEqual(['the document spans several lines']);
  });
});
