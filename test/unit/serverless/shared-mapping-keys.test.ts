/**
 * The keys a `rocketmq` event shares with a run config mapping are declared once (src/config/mapping-keys.ts)
 * and checked by the same rules (src/config/config-rules.ts): the plugin refuses at `serverless package`
 * what the poller would refuse at start, in the poller's words.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { runConfigSchema } from '../../../src/config/config-schema.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { MAPPING_KEYS } from '../../../src/config/mapping-keys.js';
import { rocketmqEventSchema } from '../../../src/serverless/rocketmq-event-schema.js';
import { eventRuleProblems, validateWith } from '../../../src/serverless/schema-problems.js';

const EVENT = { topic: 'Orders', consumerGroup: 'orders-fn' };

/** The problem lines of one event, without their `functions.<fn>.events[0].rocketmq.` prefix. */
function eventProblems(event: Record<string, unknown>): string[] {
  const checked = validateWith(rocketmqEventSchema, { ...EVENT, ...event }, []);
  if (!checked.ok) return checked.problems;
  return eventRuleProblems(checked.value, []);
}

/** The problem lines of a run config with one mapping, without their `mappings[0].` prefix. */
function mappingProblems(mapping: Record<string, unknown>): string[] {
  const raw = {
    nameServer: '127.0.0.1:9876',
    offsets: { store: 'memory' },
    mappings: [{ ...EVENT, function: 'orders', ...mapping }],
  };
  try {
    parseConfig(raw, { baseDir: '/app', env: {} });
  } catch (error) {
    if (error instanceof ConfigError)
      return error.problems.map((line) => line.replace(/^mappings\[0\]\./, ''));
    throw error;
  }
  return [];
}

describe('keys a rocketmq event shares with a run config mapping', () => {
  it('are one declaration: both schemas hold the same key schemas', () => {
    const mapping = runConfigSchema.shape.mappings.element.shape;
    const event = rocketmqEventSchema.shape;
    for (const [key, schema] of Object.entries(MAPPING_KEYS)) {
      expect(event[key as keyof typeof event], key).toBe(schema);
      expect(mapping[key as keyof typeof mapping], key).toBe(schema);
    }
  });

  it.each([
    [
      'a date that is no day',
      { startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: '2025-02-30T12:00:00Z' },
    ],
    ['POP with orderly', { consumeMode: 'POP', orderly: true }],
    [
      'POP with AT_TIMESTAMP',
      { consumeMode: 'POP', startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: 1 },
    ],
    ['POP with BROADCASTING', { consumeMode: 'POP', messageModel: 'BROADCASTING' }],
    ['POP with bisectBatchOnError', { consumeMode: 'POP', bisectBatchOnError: true }],
    ['POP with an allocation strategy', { consumeMode: 'POP', allocateStrategy: 'AVG' }],
    ['virtual nodes without CONSISTENT_HASH', { allocateVirtualNodes: 20 }],
    ['an SQL92 filter that does not parse', { filter: { sql: 'a > ' } }],
  ])('are refused in the same words by both: %s', (_case, keys) => {
    const expected = mappingProblems(keys);
    expect(expected).not.toEqual([]);
    expect(eventProblems(keys).sort()).toEqual(expected.sort());
  });
});
