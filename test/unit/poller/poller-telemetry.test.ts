/**
 * The poller's telemetry without a broker: the background read of each consumer group's dead-letter
 * depth (through a fake client) as `/metrics` serves it, and the totals it keeps at close for the
 * `stopped` line, read from the same registry as the metrics.
 */
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BrokerError } from '../../../src/client/broker-error.js';
import type { DeadLetterDepthClient } from '../../../src/client/dead-letter-depth.js';
import type { MetricsConfig } from '../../../src/config/run-config.js';
import { METRICS } from '../../../src/metrics/metric-catalog.js';
import { PollerTelemetry } from '../../../src/poller/poller-telemetry.js';
import { RequestCode } from '../../../src/protocol/request-code.js';
import { ResponseCode } from '../../../src/protocol/response-code.js';
import type { TopicRouteData } from '../../../src/protocol/route-data.js';
import { FakeConsumer } from '../metrics/fake-consumer.js';

const PROMETHEUS_ONLY: MetricsConfig = {
  emf: undefined,
  prometheus: { port: 0, host: '127.0.0.1' },
  cloudwatch: undefined,
};

function dlqRoute(): TopicRouteData {
  return {
    brokerDatas: [{ cluster: 'C', brokerName: 'broker-a', brokerAddrs: new Map([[0, 'a:10911']]) }],
    queueDatas: [{ brokerName: 'broker-a', readQueueNums: 1, writeQueueNums: 1, perm: 6, topicSysFlag: 0 }],
  };
}

/** A client whose DLQ of `group` holds `depths.get(group)` messages (undefined: no topic; an Error: thrown). */
function fakeClient(depths: Map<string, number | Error | undefined>) {
  const reads: string[] = [];
  const client: DeadLetterDepthClient = {
    nameServer: {
      async getRoute(topic) {
        const group = topic.replace('%DLQ%', '');
        reads.push(group);
        const depth = depths.get(group);
        if (depth instanceof Error) throw depth;
        if (depth === undefined) {
          throw new BrokerError({
            code: ResponseCode.TOPIC_NOT_EXIST,
            requestCode: RequestCode.GET_ROUTEINFO_BY_TOPIC,
            address: 'ns:9876',
            retriable: false,
          });
        }
        return dlqRoute();
      },
    },
    broker: {
      getMinOffset: async () => 10,
      getMaxOffset: async (_address, header) => 10 + Number(depths.get(header.topic.replace('%DLQ%', ''))),
    },
  };
  return { client, reads };
}

function telemetry(options: {
  config?: MetricsConfig;
  client?: DeadLetterDepthClient;
  intervalMs?: number;
  lines?: Record<string, unknown>[];
}) {
  const lines = options.lines ?? [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const created = new PollerTelemetry({
    config: options.config ?? PROMETHEUS_ONLY,
    running: () => true,
    health: () => ({ healthy: true, problems: [] }),
    log: logger,
    logger,
    deadLetters: options.client,
    deadLetterDepthIntervalMs: options.intervalMs,
  });
  onTestFinished(() => created.close());
  return { telemetry: created, lines };
}

/** The value of `rocketmq_lambda_dead_letter_depth{consumer_group="<group>"}` as `/metrics` serves it. */
async function scrapedDepth(port: number, group: string): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text
    .split('\n')
    .find((candidate) => candidate.startsWith(`${METRICS.deadLetterDepth.name}{consumer_group="${group}"}`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function port(described: Record<string, unknown>): number {
  return (described.prometheus as { port: number }).port;
}

describe('PollerTelemetry', () => {
  it("reads each group's dead-letter depth at start and every interval; a group that never dead-lettered is 0", async () => {
    const depths = new Map<string, number | Error | undefined>([['orders-fn', 4]]);
    const { client, reads } = fakeClient(depths);
    const { telemetry: t } = telemetry({ client, intervalMs: 50 });
    t.mapping({ name: 'orders', consumerGroup: 'orders-fn', topic: 'Orders' });
    t.mapping({ name: 'orders-eu', consumerGroup: 'orders-fn', topic: 'OrdersEu' });
    t.mapping({ name: 'audit', consumerGroup: 'audit-fn', topic: 'Audit' });
    await t.listen();
    const served = port(t.describe());
    t.startPublishing();
    expect(
      await waitFor('orders 4', async () =>
        (await scrapedDepth(served, 'orders-fn')) === 4 ? 4 : undefined,
      ),
    ).toBe(4);
    expect(await scrapedDepth(served, 'audit-fn')).toBe(0);
    depths.set('orders-fn', 9);
    await waitFor('orders 9', async () => ((await scrapedDepth(served, 'orders-fn')) === 9 ? 9 : undefined));
    // One read per group per round, not per mapping.
    const rounds = reads.filter((group) => group === 'audit-fn').length;
    expect(reads.filter((group) => group === 'orders-fn').length).toBeLessThanOrEqual(rounds + 1);
    await t.stopPublishing();
    const stoppedAt = reads.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(reads.length).toBe(stoppedAt);
  });

  it('keeps the last depth of a group whose read fails, logs it, and still reads the other groups', async () => {
    const depths = new Map<string, number | Error | undefined>([
      ['orders-fn', 4],
      ['audit-fn', 2],
    ]);
    const { client } = fakeClient(depths);
    const { telemetry: t, lines } = telemetry({ client, intervalMs: 50 });
    t.mapping({ name: 'orders', consumerGroup: 'orders-fn', topic: 'Orders' });
    t.mapping({ name: 'audit', consumerGroup: 'audit-fn', topic: 'Audit' });
    await t.listen();
    const served = port(t.describe());
    t.startPublishing();
    await waitFor('orders 4', async () => ((await scrapedDepth(served, 'orders-fn')) === 4 ? 4 : undefined));
    depths.set('orders-fn', new Error('connect ECONNREFUSED 10.0.0.1:9876'));
    depths.set('audit-fn', 3);
    await waitFor('audit 3', async () => ((await scrapedDepth(served, 'audit-fn')) === 3 ? 3 : undefined));
    expect(await scrapedDepth(served, 'orders-fn')).toBe(4);
    const warning = await waitFor('the warning', async () =>
      lines.find((line) => line.msg === 'dead-letter depth unavailable: keeping the last value'),
    );
    expect(warning).toMatchObject({ consumerGroup: 'orders-fn', level: 40 });
    expect(JSON.stringify(warning.err)).toContain('ECONNREFUSED');
  });

  it('reads no depth while neither EMF nor /metrics is on, and refuses an interval that is not a positive integer', async () => {
    const { client, reads } = fakeClient(new Map([['orders-fn', 1]]));
    const { telemetry: t } = telemetry({
      client,
      intervalMs: 10,
      config: { emf: undefined, prometheus: undefined, cloudwatch: undefined },
    });
    t.mapping({ name: 'orders', consumerGroup: 'orders-fn', topic: 'Orders' });
    t.startPublishing();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(reads).toEqual([]);
    expect(() => telemetry({ client, intervalMs: 0 })).toThrow(
      'deadLetterDepthIntervalMs must be a positive integer, got 0',
    );
  });

  it('keeps at close the totals the metrics report: dead letters the consumer counted, not the listener', async () => {
    const { telemetry: t } = telemetry({
      config: { emf: undefined, prometheus: undefined, cloudwatch: undefined },
    });
    const orders = new FakeConsumer({ name: 'orders', consumerGroup: 'orders-fn', topic: 'Orders' });
    const audit = new FakeConsumer({ name: 'audit', consumerGroup: 'audit-fn', topic: 'Audit' });
    const ordersMeter = t.mapping(orders.mapping);
    ordersMeter.watch(orders);
    t.mapping(audit.mapping).watch(audit);
    ordersMeter.invokeObserver.invoked?.({ kind: 'function-error', durationMs: 5, messages: 10 });
    // Read once while running (a scrape), then the consumers finish their last batches.
    await t.metrics.groupSummaries();
    orders.counters.sentBack = 510;
    orders.counters.deadLettered = 500;
    audit.counters.undecodableDeadLettered = 2;
    expect(t.totals()).toBeUndefined();
    await t.close();
    expect(t.totals()).toEqual({
      invocations: 1,
      invokeErrors: 1,
      throttles: 0,
      sentBack: 10,
      deadLettered: 502,
    });
  });
});
