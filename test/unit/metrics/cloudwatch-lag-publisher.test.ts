import type { PutMetricDataCommand, PutMetricDataCommandInput } from '@aws-sdk/client-cloudwatch';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RocketMQError } from '../../../src/errors.js';
import {
  CloudWatchLagPublisher,
  type CloudWatchLagPublisherOptions,
  type LagSource,
  lagPerGroup,
  type MetricSink,
} from '../../../src/metrics/cloudwatch-lag-publisher.js';
import { LAG_METRIC } from '../../../src/metrics/lag-metric.js';
import { type ConsumerLag, type QueueLag, summarizeLag } from '../../../src/metrics/queue-lag.js';

const NOW_MS = Date.UTC(2026, 0, 2, 3, 4, 5);

/** One held queue: a number is its measured lag, an Error a failed measurement. */
type QueueSpec = number | Error;

function queueLag(queueId: number, spec: QueueSpec): QueueLag {
  const queue = { topic: 'T', brokerName: 'b', queueId };
  return spec instanceof Error
    ? { queue, retry: false, maxOffset: undefined, consumedOffset: 0, lag: undefined, error: spec.message }
    : { queue, retry: false, maxOffset: 100 + spec, consumedOffset: 100, lag: spec, error: undefined };
}

function mappingLag(name: string, consumerGroup: string, specs: readonly QueueSpec[]): ConsumerLag {
  return summarizeLag(
    { name, consumerGroup, topic: 'T' },
    specs.map((spec, i) => queueLag(i, spec)),
  );
}

const source = (lag: ConsumerLag): LagSource => ({ lag: async () => lag });

/** A MetricSink that records what it was sent; `fail` makes the next sends reject. */
function recordingSink() {
  const inputs: PutMetricDataCommandInput[] = [];
  const sink = {
    inputs,
    fail: undefined as Error | undefined,
    async send(command: PutMetricDataCommand) {
      inputs.push(command.input);
      if (sink.fail !== undefined) throw sink.fail;
      return { $metadata: { httpStatusCode: 200 } };
    },
  } satisfies MetricSink & Record<string, unknown>;
  return sink;
}

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines, warnings: () => lines.filter((line) => line.level === 40) };
}

function publisher(sources: readonly LagSource[], options: Partial<CloudWatchLagPublisherOptions> = {}) {
  const sink = recordingSink();
  const log = capturingLogger();
  const instance = new CloudWatchLagPublisher({
    sources: () => sources,
    cloudwatch: sink,
    logger: log.logger,
    now: () => NOW_MS,
    ...options,
  });
  return { publisher: instance, sink, log };
}

/** The values sent, per consumer group, over every request. */
function sentValues(inputs: readonly PutMetricDataCommandInput[]): Record<string, number | undefined> {
  const values: Record<string, number | undefined> = {};
  for (const input of inputs) {
    for (const datum of input.MetricData ?? []) values[datum.Dimensions?.[0]?.Value ?? '?'] = datum.Value;
  }
  return values;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('lagPerGroup', () => {
  it('sums the mappings of one group, counts queues and unknown queues', () => {
    expect(
      lagPerGroup([
        mappingLag('orders-1', 'orders-fn', [10, 20]),
        mappingLag('orders-2', 'orders-fn', [5, new Error('down')]),
        mappingLag('audit', 'audit-fn', [1]),
      ]),
    ).toEqual([
      { consumerGroup: 'orders-fn', lag: 35, queues: 4, unknownQueues: 1 },
      { consumerGroup: 'audit-fn', lag: 1, queues: 1, unknownQueues: 0 },
    ]);
  });

  it('a group holding no queue is 0; a group with every queue unknown is left out', () => {
    expect(
      lagPerGroup([
        mappingLag('idle', 'idle-fn', []),
        mappingLag('blind-1', 'blind-fn', [new Error('x')]),
        mappingLag('blind-2', 'blind-fn', [new Error('y'), new Error('z')]),
      ]),
    ).toEqual([{ consumerGroup: 'idle-fn', lag: 0, queues: 0, unknownQueues: 0 }]);
  });

  it('a group is published when one of its mappings is measured even if another is all unknown', () => {
    expect(lagPerGroup([mappingLag('a', 'g', [new Error('x')]), mappingLag('b', 'g', [7])])).toEqual([
      { consumerGroup: 'g', lag: 7, queues: 2, unknownQueues: 1 },
    ]);
  });
});

describe('CloudWatchLagPublisher.publishOnce', () => {
  it('publishes one datum per group: sums, 0 for an idle group, partly unknown as measured, all unknown left out', async () => {
    const t = publisher([
      source(mappingLag('orders-1', 'orders-fn', [10, 20])),
      source(mappingLag('orders-2', 'orders-fn', [5])),
      source(mappingLag('idle', 'idle-fn', [])),
      source(
        mappingLag('blind', 'blind-fn', [
          new Error('connect ECONNREFUSED'),
          new Error('connect ECONNREFUSED'),
        ]),
      ),
      source(mappingLag('partial', 'partial-fn', [7, new Error('GET_MAX_OFFSET timed out')])),
    ]);

    const published = await t.publisher.publishOnce();

    expect(published).toEqual([
      { consumerGroup: 'orders-fn', lag: 35, queues: 3, unknownQueues: 0 },
      { consumerGroup: 'idle-fn', lag: 0, queues: 0, unknownQueues: 0 },
      { consumerGroup: 'partial-fn', lag: 7, queues: 2, unknownQueues: 1 },
    ]);
    expect(t.sink.inputs).toHaveLength(1);
    expect(sentValues(t.sink.inputs)).toEqual({ 'orders-fn': 35, 'idle-fn': 0, 'partial-fn': 7 });
  });

  it('warns per mapping with unknown queues, with the distinct reasons', async () => {
    const t = publisher([
      source(mappingLag('ok', 'ok-fn', [1])),
      source(
        mappingLag('blind', 'blind-fn', [
          new Error('connect ECONNREFUSED'),
          new Error('connect ECONNREFUSED'),
        ]),
      ),
      source(mappingLag('partial', 'partial-fn', [7, new Error('timed out')])),
    ]);
    await t.publisher.publishOnce();
    expect(t.log.warnings()).toEqual([
      expect.objectContaining({
        component: 'metrics.lag',
        mapping: 'blind',
        unknownQueues: 2,
        queues: 2,
        reasons: ['connect ECONNREFUSED'],
        msg: 'lag of some queues could not be measured',
      }),
      expect.objectContaining({ mapping: 'partial', unknownQueues: 1, queues: 2, reasons: ['timed out'] }),
    ]);
  });

  it('sends nothing when every group is unknown (no 0 that would invite a scale-in)', async () => {
    const t = publisher([source(mappingLag('blind', 'blind-fn', [new Error('down')]))]);
    expect(await t.publisher.publishOnce()).toEqual([]);
    expect(t.sink.inputs).toEqual([]);
    expect(t.publisher.stats()).toEqual({ requests: 0, failures: 0, lastPublishedAtMs: undefined });
    expect(t.log.warnings()).toHaveLength(1);
  });

  it('sends nothing without sources', async () => {
    const t = publisher([]);
    expect(await t.publisher.publishOnce()).toEqual([]);
    expect(t.sink.inputs).toEqual([]);
  });

  it('writes the LAG_METRIC contract: namespace RocketMQLambda, metric, dimension, unit, timestamp from now', async () => {
    const t = publisher([source(mappingLag('orders', 'orders-fn', [12]))]);
    await t.publisher.publishOnce();
    expect(t.sink.inputs).toEqual([
      {
        Namespace: 'RocketMQLambda',
        MetricData: [
          {
            MetricName: 'ConsumerLag',
            Dimensions: [{ Name: 'ConsumerGroup', Value: 'orders-fn' }],
            Unit: 'Count',
            Value: 12,
            Timestamp: new Date(NOW_MS),
          },
        ],
      },
    ]);
    expect(LAG_METRIC).toMatchObject({
      namespace: 'RocketMQLambda',
      metricName: 'ConsumerLag',
      dimension: 'ConsumerGroup',
      unit: 'Count',
    });
    expect(t.publisher.stats()).toEqual({ requests: 1, failures: 0, lastPublishedAtMs: NOW_MS });
  });

  it('takes another namespace', async () => {
    const t = publisher([source(mappingLag('orders', 'orders-fn', [1]))], { namespace: 'Staging/RocketMQ' });
    await t.publisher.publishOnce();
    expect(t.sink.inputs.map((input) => input.Namespace)).toEqual(['Staging/RocketMQ']);
  });

  it('sends at most 1000 data per request', async () => {
    const sources = Array.from({ length: 2500 }, (_, i) => source(mappingLag(`m${i}`, `g${i}`, [i])));
    const t = publisher(sources);
    const published = await t.publisher.publishOnce();
    expect(published).toHaveLength(2500);
    expect(t.sink.inputs.map((input) => input.MetricData?.length)).toEqual([1000, 1000, 500]);
    expect(t.sink.inputs.flatMap((input) => input.MetricData ?? []).map((d) => d.Value)).toEqual(
      Array.from({ length: 2500 }, (_, i) => i),
    );
    expect(t.publisher.stats().requests).toBe(3);
  });

  it('a refused request rejects with a RocketMQError naming the namespace and the cause, and is counted', async () => {
    const t = publisher([source(mappingLag('orders', 'orders-fn', [1]))], { namespace: 'Ns' });
    const cause = Object.assign(new Error('User is not authorized to perform: cloudwatch:PutMetricData'), {
      name: 'AccessDenied',
    });
    t.sink.fail = cause;

    const error = await t.publisher.publishOnce().then(
      () => undefined,
      (rejection: unknown) => rejection,
    );

    expect(error).toBeInstanceOf(RocketMQError);
    expect(error).toMatchObject({
      message: expect.stringContaining('Ns/ConsumerLag'),
      cause,
    });
    expect((error as Error).message).toContain(
      'AccessDenied: User is not authorized to perform: cloudwatch:PutMetricData',
    );
    expect(t.publisher.stats()).toEqual({ requests: 1, failures: 1, lastPublishedAtMs: undefined });

    t.sink.fail = undefined;
    await t.publisher.publishOnce();
    expect(t.publisher.stats()).toEqual({ requests: 2, failures: 1, lastPublishedAtMs: NOW_MS });
  });

  it('asks the sources anew on every publish', async () => {
    let lag = 3;
    const t = publisher([{ lag: async () => mappingLag('orders', 'orders-fn', [lag]) }]);
    await t.publisher.publishOnce();
    lag = 9;
    await t.publisher.publishOnce();
    expect(t.sink.inputs.map((input) => input.MetricData?.[0]?.Value)).toEqual([3, 9]);
  });
});

describe('CloudWatchLagPublisher start/stop', () => {
  it('publishes first after 10 s, then every interval, and not after stop', async () => {
    vi.useFakeTimers();
    const t = publisher([source(mappingLag('orders', 'orders-fn', [4]))], { intervalMs: 60_000 });
    t.publisher.start();
    await vi.advanceTimersByTimeAsync(9_999);
    expect(t.sink.inputs).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.sink.inputs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(t.sink.inputs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.sink.inputs).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(t.sink.inputs).toHaveLength(3);

    await t.publisher.stop();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(t.sink.inputs).toHaveLength(3);
  });

  it('with an interval under 10 s, the first publish comes after one interval', async () => {
    vi.useFakeTimers();
    const t = publisher([source(mappingLag('orders', 'orders-fn', [4]))], { intervalMs: 3_000 });
    t.publisher.start();
    await vi.advanceTimersByTimeAsync(2_999);
    expect(t.sink.inputs).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.sink.inputs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(t.sink.inputs).toHaveLength(2);
    await t.publisher.stop();
  });

  it('the default interval is 60 s', async () => {
    vi.useFakeTimers();
    const t = publisher([source(mappingLag('orders', 'orders-fn', [4]))], { intervalMs: undefined });
    t.publisher.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(t.sink.inputs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(t.sink.inputs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.sink.inputs).toHaveLength(2);
    await t.publisher.stop();
  });

  it('a failed publish is logged and the next interval tries again', async () => {
    vi.useFakeTimers();
    const t = publisher([source(mappingLag('orders', 'orders-fn', [4]))], { intervalMs: 20_000 });
    t.sink.fail = new Error('throttled');
    t.publisher.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(t.publisher.stats()).toMatchObject({ requests: 1, failures: 1 });
    expect(t.log.warnings()).toEqual([
      expect.objectContaining({
        task: 'publish lag',
        err: expect.objectContaining({ message: expect.stringContaining('Error: throttled') }),
      }),
    ]);
    t.sink.fail = undefined;
    await vi.advanceTimersByTimeAsync(20_000);
    expect(t.publisher.stats()).toMatchObject({ requests: 2, failures: 1, lastPublishedAtMs: NOW_MS });
    await t.publisher.stop();
  });

  it('stop() waits for a publish in progress', async () => {
    vi.useFakeTimers();
    let release: (() => void) | undefined;
    const t = publisher([
      {
        lag: () =>
          new Promise<ConsumerLag>((resolve) => {
            release = () => resolve(mappingLag('orders', 'orders-fn', [4]));
          }),
      },
    ]);
    t.publisher.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(release).toBeDefined();
    let stopped = false;
    const stopping = t.publisher.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release?.();
    await stopping;
    expect(t.sink.inputs).toHaveLength(1);
  });
});

describe('CloudWatchLagPublisher options', () => {
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses intervalMs %s', (intervalMs) => {
    expect(() => publisher([], { intervalMs })).toThrow(RocketMQError);
    expect(() => publisher([], { intervalMs })).toThrow(
      `lag publisher: intervalMs must be a positive integer, got ${intervalMs}`,
    );
  });
});
