import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { RocketMQError } from '../../../src/errors.js';
import { MetricsServer } from '../../../src/metrics/metrics-server.js';
import { PollerMetrics } from '../../../src/metrics/poller-metrics.js';
import { FakeConsumer } from './fake-consumer.js';

const servers: MetricsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(verdict: () => { healthy: boolean; problems: readonly string[] }) {
  const metrics = new PollerMetrics({ running: () => true, health: verdict });
  const orders = new FakeConsumer({ name: 'orders', consumerGroup: 'orders-fn', topic: 'Orders' });
  metrics.mapping(orders.mapping).watch(orders);
  orders.queues = [{ queueId: 0, lag: 3 }];
  const server = await MetricsServer.start({
    registry: metrics.registry,
    readiness: verdict,
    port: 0,
    host: '127.0.0.1',
  });
  servers.push(server);
  return server;
}

describe('MetricsServer', () => {
  it('serves /metrics in the Prometheus text format with the registry content type', async () => {
    const server = await serve(() => ({ healthy: true, problems: [] }));
    expect(server.port).toBeGreaterThan(0);
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(new Registry().contentType);
    const text = await response.text();
    expect(text).toContain('# TYPE rocketmq_lambda_invocations_total counter');
    expect(text).toContain(
      'rocketmq_lambda_consumer_lag{mapping="orders",consumer_group="orders-fn",topic="Orders",queue="broker-a@0"} 3',
    );
    expect(text).toContain('rocketmq_lambda_up 1');
  });

  it('/healthz is 200 while the process serves; /readyz follows the health verdict', async () => {
    let verdict = { healthy: true, problems: [] as string[] };
    const server = await serve(() => verdict);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, problems: [] });

    verdict = {
      healthy: false,
      problems: [
        'orders: queue Orders@broker-a@0: no pull completed for 130 s (NO_PERMISSION)',
        'audit: consumer is failed',
      ],
    };
    const notReady = await fetch(`${server.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await notReady.json()).toEqual({ ready: false, problems: verdict.problems });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("/readyz passes each mapping's consume state on, so a 503 names the missing topic and a standby shows as waiting", async () => {
    const mappings = [
      {
        mapping: 'orders',
        healthy: false,
        state: 'topic_missing',
        reason: 'topic Orders does not exist',
        problems: ['x'],
      },
      { mapping: 'audit', healthy: true, state: 'waiting', reason: 'standby', problems: [] },
    ];
    const server = await serve(() => ({
      healthy: false,
      problems: ['orders: cannot consume (topic_missing) for 31 s: topic Orders does not exist'],
      mappings,
    }));
    const answer = await fetch(`${server.url}/readyz`);
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({
      ready: false,
      problems: ['orders: cannot consume (topic_missing) for 31 s: topic Orders does not exist'],
      mappings,
    });
  });

  it('answers 404 elsewhere, 405 to other methods, 500 when the verdict throws', async () => {
    const server = await serve(() => {
      throw new Error('boom');
    });
    expect((await fetch(`${server.url}/`)).status).toBe(404);
    expect((await fetch(`${server.url}/metrics`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(500);
  });

  it('refuses a port in use with an error naming the config key, and stops listening on close', async () => {
    const server = await serve(() => ({ healthy: true, problems: [] }));
    const start = MetricsServer.start({
      registry: new Registry(),
      readiness: () => ({ healthy: true, problems: [] }),
      port: server.port,
      host: '127.0.0.1',
    });
    await expect(start).rejects.toThrow(RocketMQError);
    await expect(start).rejects.toThrow(/metrics\.prometheus/);
    const { url } = server;
    await server.close();
    servers.length = 0;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
