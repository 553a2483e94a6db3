import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  brokerZoneLookup,
  clientIdInZone,
  clientZoneFromId,
} from '../../../../src/consumer/rebalance/zone-conventions.js';
import { RocketMQError } from '../../../../src/errors.js';

describe('clientZoneFromId', () => {
  it.each([
    ['10.0.0.7@4242#k2x@use1-az1', 'use1-az1'],
    ['10.0.0.7@DEFAULT@unit@STREAM', 'unit'], // Java appends @STREAM after the unit name
    ['10.0.0.7@4242#k2x', undefined],
    ['10.0.0.7@4242#k2x@', undefined],
    ['no-at-all', undefined],
  ])('%s -> %s', (id, zone) => {
    expect(clientZoneFromId(id)).toBe(zone);
  });
});

describe('clientIdInZone', () => {
  it('appends the zone so that clientZoneFromId reads it back', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9.]{1,15}@[0-9a-z#-]{1,20}$/),
        fc.stringMatching(/^[a-z0-9-]{1,16}$/),
        (id, zone) => {
          expect(clientZoneFromId(clientIdInZone(id, zone))).toBe(zone);
        },
      ),
    );
  });

  it.each([
    ['10.0.0.7@1', ''],
    ['10.0.0.7@1', 'a@b'],
    ['10.0.0.7@1@az1', 'az2'],
  ])('refuses %s in zone %j (permanent)', (id, zone) => {
    expect(() => clientIdInZone(id, zone)).toThrow(
      expect.objectContaining({ permanent: true, constructor: RocketMQError }),
    );
  });
});

describe('brokerZoneLookup', () => {
  it('prefers the mapping, then the <zone>@<name> convention', () => {
    const zoneOf = brokerZoneLookup({ 'broker-a': 'az1', 'az9@broker-b': 'az2' });
    expect(zoneOf('broker-a')).toBe('az1');
    expect(zoneOf('az9@broker-b')).toBe('az2');
    expect(zoneOf('az3@broker-c')).toBe('az3');
    expect(zoneOf('broker-d')).toBeUndefined();
    expect(zoneOf('@broker-e')).toBeUndefined();
    expect(zoneOf('a@b@c')).toBeUndefined();
  });

  it('does not mistake inherited object keys for broker names', () => {
    expect(brokerZoneLookup({})('constructor')).toBeUndefined();
    expect(brokerZoneLookup()('toString')).toBeUndefined();
  });
});
