import { describe, expect, it } from 'vitest';
import { choosePullTarget } from '../../../../src/consumer/membership/topic-route-table.js';

const group = new Map([
  [0, 'master:10911'],
  [1, 'slave-1:10911'],
  [2, 'slave-2:10911'],
]);

describe('choosePullTarget (which broker of a group a pull goes to)', () => {
  it('the suggested broker id when the group lists it', () => {
    expect(choosePullTarget(group, 0)).toEqual({ address: 'master:10911', brokerId: 0 });
    expect(choosePullTarget(group, 2)).toEqual({ address: 'slave-2:10911', brokerId: 2 });
  });

  it('the master when the suggested slave is not listed', () => {
    expect(choosePullTarget(group, 5)).toEqual({ address: 'master:10911', brokerId: 0 });
  });

  it('the slave with the lowest id when the master is gone', () => {
    const noMaster = new Map([
      [2, 'slave-2:10911'],
      [1, 'slave-1:10911'],
    ]);
    expect(choosePullTarget(noMaster, 0)).toEqual({ address: 'slave-1:10911', brokerId: 1 });
    expect(choosePullTarget(noMaster, 2)).toEqual({ address: 'slave-2:10911', brokerId: 2 });
  });

  it('nothing when the group lists no address', () => {
    expect(choosePullTarget(new Map(), 0)).toBeUndefined();
  });
});
