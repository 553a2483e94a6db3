import { describe, expect, it } from 'vitest';
import { OpaqueCounter } from '../../../src/network/opaque.js';

describe('OpaqueCounter', () => {
  it('starts at 0 and increments', () => {
    const counter = new OpaqueCounter();
    expect([counter.next(), counter.next(), counter.next()]).toEqual([0, 1, 2]);
  });

  it('wraps from int32 max to int32 min', () => {
    const counter = new OpaqueCounter(2147483646);
    expect([counter.next(), counter.next(), counter.next()]).toEqual([2147483646, 2147483647, -2147483648]);
  });

  it('skips values still in flight', () => {
    const counter = new OpaqueCounter(10);
    const inFlight = new Set([10, 11, 13]);
    expect(counter.next((opaque) => inFlight.has(opaque))).toBe(12);
    expect(counter.next((opaque) => inFlight.has(opaque))).toBe(14);
  });
});
