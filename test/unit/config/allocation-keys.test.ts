/**
 * The mapping keys of allocation (`allocateStrategy`, `allocateVirtualNodes`, `zoneNearby`), the poller's
 * `zone` (or `ROCKETMQ_LAMBDA_ZONE`).
 */
import { describe, expect, it } from 'vitest';
import { consumerOptionsOf } from '../../../src/poller/poller.js';
import { parse, problems, raw } from './one-mapping-config.js';

describe('allocation keys', () => {
  it('default to AVG with 10 virtual nodes and no zones', () => {
    const mapping = parse(raw()).mappings[0];
    expect(mapping).toMatchObject({ allocateStrategy: 'AVG', allocateVirtualNodes: 10 });
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
