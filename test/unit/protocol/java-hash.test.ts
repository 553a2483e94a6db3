import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { javaStringHashCode } from '../../../src/protocol/java-hash.js';

/** Reference: the Java formula in arbitrary precision, wrapped to a signed 32-bit int at the end. */
function referenceHash(s: string): number {
  let h = 0n;
  for (let i = 0; i < s.length; i++) h = h * 31n + BigInt(s.charCodeAt(i));
  return Number(BigInt.asIntN(32, h));
}

describe('javaStringHashCode', () => {
  it('matches the test vectors of docs/protocol.md', () => {
    expect(javaStringHashCode('TagA')).toBe(2598919);
    expect(javaStringHashCode('TagB')).toBe(2598920);
    expect(javaStringHashCode('*')).toBe(42);
    expect(javaStringHashCode('订单')).toBe(1129459);
  });

  it('matches values printed by Java 17 (overflow, surrogate pairs, empty)', () => {
    expect(javaStringHashCode('')).toBe(0);
    expect(javaStringHashCode('hello world')).toBe(1794106052);
    expect(javaStringHashCode('The quick brown fox jumps over the lazy dog')).toBe(-609428141);
    expect(javaStringHashCode('\u{1F600}')).toBe(1772899);
    expect(javaStringHashCode('%RETRY%please_rename_unique_group_name_4')).toBe(-1595449568);
  });

  it('equals the arbitrary-precision formula for any UTF-16 string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const hash = javaStringHashCode(s);
        expect(hash).toBe(referenceHash(s));
        expect(Number.isInteger(hash) && hash >= -(2 ** 31) && hash < 2 ** 31).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
