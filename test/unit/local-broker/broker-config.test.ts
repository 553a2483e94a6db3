import { describe, expect, it } from 'vitest';
import {
  brokerConfig,
  ROCKETMQ_TIMER_FLUSH_INTERVAL_MS,
  TEST_TIMER_FLUSH_INTERVAL_MS,
  toPropertiesText,
} from '../../../src/local-broker/broker-config.js';

const ADDRESSES = {
  clusterName: 'DefaultCluster',
  brokerName: 'broker-a',
  brokerPort: 20911,
  namesrvAddr: '127.0.0.1:19876',
  storeDir: '/tmp/x/store',
};

describe('the test broker config', () => {
  it('flushes the timer wheel once a minute instead of every second', () => {
    const text = toPropertiesText(brokerConfig(ADDRESSES));
    expect(text).toContain(`\ntimerFlushIntervalMs=${TEST_TIMER_FLUSH_INTERVAL_MS}\n`);
    expect(TEST_TIMER_FLUSH_INTERVAL_MS).toBeGreaterThan(ROCKETMQ_TIMER_FLUSH_INTERVAL_MS);
  });

  it('lets an override set the flush back to the RocketMQ default, as a measured bench run does', () => {
    const config = brokerConfig({
      ...ADDRESSES,
      overrides: { timerFlushIntervalMs: ROCKETMQ_TIMER_FLUSH_INTERVAL_MS },
    });
    expect(config.timerFlushIntervalMs).toBe(1000);
  });
});
