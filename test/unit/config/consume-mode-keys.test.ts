/**
 * `consumeMode` of a mapping: POP is accepted with the keys it works with and refused with the ones it cannot honour
 * (order, a client-side start position, broadcasting, bisecting, PUSH's allocation keys).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { RunConfig } from '../../../src/config/run-config.js';

const MAPPING = { topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./h.mjs' };

function raw(mapping: Record<string, unknown> = {}, top: Record<string, unknown> = {}): unknown {
  return {
    nameServer: '127.0.0.1:9876',
    offsets: { store: 'memory' },
    mappings: [{ ...MAPPING, ...mapping }],
    ...top,
  };
}

function parse(input: unknown, env: Record<string, string> = {}): RunConfig {
  return parseConfig(input, { baseDir: '/app', env });
}

function problems(input: unknown): readonly string[] {
  try {
    parse(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the config was accepted');
}
describe('consumeMode POP', () => {
  it('is accepted with TRIM_HORIZON', () => {
    expect(parse(raw({ consumeMode: 'POP', startingPosition: 'TRIM_HORIZON' })).mappings[0]).toMatchObject({
      consumeMode: 'POP',
    });
  });

  it.each([
    ['orderly', true],
    ['messageModel', 'BROADCASTING'],
    ['bisectBatchOnError', true],
    ['allocateStrategy', 'AVG_BY_CIRCLE'],
    ['zoneNearby', {}],
  ])('refuses %s = %j', (key, value) => {
    expect(problems(raw({ consumeMode: 'POP', [key]: value }))).toEqual([
      expect.stringMatching(new RegExp(`${key}.*consumeMode`)),
    ]);
  });

  it('refuses AT_TIMESTAMP', () => {
    expect(
      problems(raw({ consumeMode: 'POP', startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: 1 })),
    ).toEqual([expect.stringMatching(/startingPosition: not with consumeMode POP/)]);
  });
});
