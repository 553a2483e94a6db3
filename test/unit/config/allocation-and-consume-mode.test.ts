/**
 * The mapping keys of allocation (`allocateStrategy`, `allocateVirtualNodes`, `zoneNearby`), the poller's
 * `zone` (or `ROCKETMQ_LAMBDA_ZONE`), and `consumeMode` with the keys POP refuses.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { RunConfig } from '../../../src/config/run-config.js';
import { consumerOptionsOf } from '../../../src/poller/poller.js';

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

describe('allocation keys', () => {
  it('default to AVG with 10 virtual nodes and no zones', () => {
    const mapping = parse(raw()).mappings[0];
    expect(mapping).toMatchObject({ allocateStrategy: 'AVG', allocateVirtualNodes: 10, consumeMode: 'PUSH' });
    expect(mapping?.zoneNearby).toBeUndefined();
  });

  it('reach the consumer options as written', () => {
    const config = parse(
      raw({
        allocateStrategy: 'CONSISTENT_HASH',
        allocateVirtualNodes: 40,
        zoneNearby: { brokerZones: { 'broker-a': 'az1' } },
      }),
    );
    const mapping = config.mappings[0];
    if (mapping === undefined) throw new Error('no mapping');
    expect(consumerOptionsOf(mapping, config.shutdownTimeoutMs)).toMatchObject({
      allocateStrategy: 'CONSISTENT_HASH',
      allocateVirtualNodes: 40,
      zoneNearby: { brokerZones: { 'broker-a': 'az1' } },
    });
  });

  it('refuse unknown strategies, virtual nodes without CONSISTENT_HASH and unknown zoneNearby keys', () => {
    expect(problems(raw({ allocateStrategy: 'HASH' })).join('\n')).toMatch(/allocateStrategy/);
    expect(problems(raw({ allocateVirtualNodes: 5 }))).toEqual([
      expect.stringMatching(/allocateVirtualNodes.*only used when allocateStrategy is CONSISTENT_HASH/),
    ]);
    expect(problems(raw({ zoneNearby: { zones: {} } })).join('\n')).toMatch(/zoneNearby/);
  });
});

describe('the poller zone', () => {
  it('comes from the zone key, else ROCKETMQ_LAMBDA_ZONE', () => {
    expect(parse(raw({}, { zone: 'az1' }), { ROCKETMQ_LAMBDA_ZONE: 'az2' }).zone).toBe('az1');
    expect(parse(raw(), { ROCKETMQ_LAMBDA_ZONE: 'az2' }).zone).toBe('az2');
    expect(parse(raw()).zone).toBeUndefined();
  });

  it('may not contain @ (it is a part of the client id)', () => {
    expect(problems(raw({}, { zone: 'a@b' })).join('\n')).toMatch(/zone/);
  });
});

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
