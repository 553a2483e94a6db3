import { describe, expect, it } from 'vitest';
import { CONSUME_STATES } from '../../../src/consumer/consume-state.js';
import { METRICS } from '../../../src/metrics/metric-catalog.js';
import { PollerMetrics } from '../../../src/metrics/poller-metrics.js';
import { FakeConsumer } from './fake-consumer.js';

const mapping = { name: 'orders', consumerGroup: 'orders-fn', topic: 'Orders' };

/** The samples of rocketmq_lambda_mapping_state: state → value. */
async function stateSamples(metrics: PollerMetrics): Promise<Map<string, number>> {
  const found = (await metrics.registry.getMetricsAsJSON()).find(
    (metric) => metric.name === METRICS.mappingState.name,
  );
  return new Map(
    (found?.values ?? []).map(({ labels, value }) => {
      expect(labels).toMatchObject({ mapping: 'orders', consumer_group: 'orders-fn' });
      return [String(labels.state), value];
    }),
  );
}

describe('rocketmq_lambda_mapping_state', () => {
  it('is 1 for the state the consumer reports and 0 for every other, read at each collection', async () => {
    const metrics = new PollerMetrics({
      running: () => true,
      health: () => ({ healthy: true, problems: [] }),
    });
    const consumer = new FakeConsumer(mapping);
    metrics.mapping(mapping).watch(consumer);
    consumer.verdict = {
      healthy: true,
      problems: [],
      state: { state: 'topic_missing', reason: 'topic Orders does not exist', sinceMs: 0 },
    };
    const missing = await stateSamples(metrics);
    expect([...missing.keys()].sort()).toEqual([...CONSUME_STATES].sort());
    expect([...missing].filter(([, value]) => value === 1)).toEqual([['topic_missing', 1]]);

    consumer.verdict = {
      healthy: true,
      problems: [],
      state: { state: 'consuming', reason: undefined, sinceMs: undefined },
    };
    const consuming = await stateSamples(metrics);
    expect([...consuming].filter(([, value]) => value === 1)).toEqual([['consuming', 1]]);
    expect(consuming.get('topic_missing')).toBe(0);
  });

  it('has no series for a mapping whose consumer tells no state', async () => {
    const metrics = new PollerMetrics({
      running: () => true,
      health: () => ({ healthy: true, problems: [] }),
    });
    metrics.mapping(mapping).watch(new FakeConsumer(mapping));
    expect((await stateSamples(metrics)).size).toBe(0);
  });
});
