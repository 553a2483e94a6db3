import { describe, expect, it } from 'vitest';
import { ConsumerOptionsError } from '../../../src/consumer/consumer-errors.js';
import { CONSUMER_OPTION_SPECS } from '../../../src/consumer/consumer-option-specs.js';
import { consumeFromWhere, normalizeConsumerOptions } from '../../../src/consumer/consumer-options.js';

const base = { name: 'm', topic: 'T', consumerGroup: 'G' };

/** Options whose valid range depends on another option; each pair has a test of its own. */
const BOUND_PAIRS: ReadonlySet<string> = new Set([
  'suspendTimeoutMs',
  'pullTimeoutMs',
  'maxDecompressedBodyBytes',
  'maxDecompressedPullBytes',
]);

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

  it.each(Object.entries(CONSUMER_OPTION_SPECS))(
    'checks and fills %s from its spec alone',
    (option, spec) => {
      const normalize = (value: unknown) =>
        normalizeConsumerOptions({ ...base, startingPositionTimestamp: 0, [option]: value });
      const rejects = (value: unknown) => {
        expect(() => normalize(value)).toThrowError(ConsumerOptionsError);
        try {
          normalize(value);
        } catch (error) {
          expect((error as ConsumerOptionsError).option).toBe(option);
        }
      };
      expect(normalizeConsumerOptions(base)).toHaveProperty(option, spec.default);
      switch (spec.kind) {
        case 'integer':
          // Bound to each other (below): the timeouts, and the two inflation limits.
          if (BOUND_PAIRS.has(option)) break;
          expect(normalize(spec.minimum)).toHaveProperty(option, spec.minimum);
          expect(normalize(spec.maximum)).toHaveProperty(option, spec.maximum);
          rejects(spec.minimum - 1);
          rejects(spec.maximum + 1);
          rejects(spec.minimum + 0.5);
          break;
        case 'enum':
          for (const value of spec.values) expect(normalize(value)).toHaveProperty(option, value);
          for (const value of spec.values) {
            rejects(value === value.toUpperCase() ? value.toLowerCase() : value.toUpperCase());
          }
          break;
        case 'boolean':
          expect(normalize(!spec.default)).toHaveProperty(option, !spec.default);
          rejects('yes');
          break;
      }
    },
  );

  it('takes the ranges of the two pull timeouts from their specs, pullTimeoutMs above suspendTimeoutMs', () => {
    const { suspendTimeoutMs, pullTimeoutMs } = CONSUMER_OPTION_SPECS;
    const both = (suspend: number, pull: number) =>
      normalizeConsumerOptions({ ...base, suspendTimeoutMs: suspend, pullTimeoutMs: pull });
    expect(both(suspendTimeoutMs.minimum, pullTimeoutMs.maximum)).toMatchObject({
      suspendTimeoutMs: suspendTimeoutMs.minimum,
      pullTimeoutMs: pullTimeoutMs.maximum,
    });
    expect(() => both(suspendTimeoutMs.minimum - 1, pullTimeoutMs.default)).toThrowError(/suspendTimeoutMs/);
    expect(() => both(suspendTimeoutMs.maximum + 1, pullTimeoutMs.maximum)).toThrowError(/suspendTimeoutMs/);
    expect(() => both(suspendTimeoutMs.default, pullTimeoutMs.maximum + 1)).toThrowError(/pullTimeoutMs/);
    expect(() => both(suspendTimeoutMs.default, suspendTimeoutMs.default)).toThrowError(/must exceed/);
  });

  it('takes the ranges of the two inflation limits from their specs, the pull limit at least the body limit', () => {
    const { maxDecompressedBodyBytes: body, maxDecompressedPullBytes: pull } = CONSUMER_OPTION_SPECS;
    const both = (bodyBytes: number, pullBytes: number) =>
      normalizeConsumerOptions({
        ...base,
        maxDecompressedBodyBytes: bodyBytes,
        maxDecompressedPullBytes: pullBytes,
      });
    expect(both(body.minimum, pull.minimum)).toMatchObject({
      maxDecompressedBodyBytes: body.minimum,
      maxDecompressedPullBytes: pull.minimum,
    });
    expect(both(body.maximum, pull.maximum)).toMatchObject({ maxDecompressedBodyBytes: body.maximum });
    expect(both(pull.minimum, pull.minimum)).toMatchObject({ maxDecompressedPullBytes: pull.minimum });
    expect(() => both(body.minimum - 1, pull.default)).toThrowError(/maxDecompressedBodyBytes/);
    expect(() => both(body.maximum + 1, pull.maximum)).toThrowError(/maxDecompressedBodyBytes/);
    expect(() => both(body.default, pull.maximum + 1)).toThrowError(/maxDecompressedPullBytes/);
    expect(() => both(body.default, pull.minimum - 1)).toThrowError(/maxDecompressedPullBytes/);
    expect(() => both(pull.minimum + 1, pull.minimum)).toThrowError(
      /must be at least maxDecompressedBodyBytes/,
    );
  });

  it('maps starting positions to consumeFromWhere', () => {
    expect(consumeFromWhere('LATEST')).toBe('CONSUME_FROM_LAST_OFFSET');
    expect(consumeFromWhere('TRIM_HORIZON')).toBe('CONSUME_FROM_FIRST_OFFSET');
    expect(consumeFromWhere('AT_TIMESTAMP')).toBe('CONSUME_FROM_TIMESTAMP');
  });
});
