import { describe, expect, it } from 'vitest';
import { ConsumerOptionsError } from '../../../src/consumer/consumer-errors.js';
import { consumeFromWhere, normalizeConsumerOptions } from '../../../src/consumer/consumer-options.js';

const base = { name: 'm', topic: 'T', consumerGroup: 'G' };

describe('normalizeConsumerOptions', () => {
  it('fills the documented defaults', () => {
    expect(normalizeConsumerOptions(base)).toMatchObject({
      filter: { type: 'TAG', expression: '*' },
      batchSize: 100,
      maximumBatchingWindowMs: 500,
      maxBatchBytes: 5 * 1024 * 1024,
      maxConcurrency: 10,
      maxReconsumeTimes: 16,
      messageModel: 'CLUSTERING',
      startingPosition: 'LATEST',
      pullBatchSize: 32,
      pullThresholdForQueue: 1000,
      pullThresholdSizeForQueue: 100 * 1024 * 1024,
      consumeConcurrentlyMaxSpan: 2000,
      consumeTimeoutMs: 900_000,
      suspendTimeoutMs: 15_000,
      pullTimeoutMs: 30_000,
      shutdownTimeoutMs: 30_000,
      retryTopic: '%RETRY%G',
    });
  });

  it.each([
    [{ batchSize: 0 }, 'batchSize'],
    [{ batchSize: 10_001 }, 'batchSize'],
    [{ maximumBatchingWindowMs: 300_001 }, 'maximumBatchingWindowMs'],
    [{ startingPosition: 'AT_TIMESTAMP' as const }, 'startingPositionTimestamp'],
    [{ pullTimeoutMs: 10_000 }, 'pullTimeoutMs'],
    [{ filter: { type: 'SQL92' as const, expression: ' ' } }, 'filter.expression'],
    [{ topic: '' }, 'topic'],
  ])('rejects %o naming %s', (override, option) => {
    expect(() => normalizeConsumerOptions({ ...base, ...override })).toThrowError(ConsumerOptionsError);
    try {
      normalizeConsumerOptions({ ...base, ...override });
    } catch (error) {
      expect((error as ConsumerOptionsError).option).toBe(option);
    }
  });

  it('maps starting positions to consumeFromWhere', () => {
    expect(consumeFromWhere('LATEST')).toBe('CONSUME_FROM_LAST_OFFSET');
    expect(consumeFromWhere('TRIM_HORIZON')).toBe('CONSUME_FROM_FIRST_OFFSET');
    expect(consumeFromWhere('AT_TIMESTAMP')).toBe('CONSUME_FROM_TIMESTAMP');
  });
});
