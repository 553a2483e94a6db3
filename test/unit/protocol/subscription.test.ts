import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RocketMQError } from '../../../src/errors.js';
import { javaStringHashCode } from '../../../src/protocol/java-hash.js';
import { buildSubscriptionData, matchesTags, SUB_ALL } from '../../../src/protocol/subscription.js';

describe('buildSubscriptionData', () => {
  it('defaults to everything with empty sets, a TAG type and a current subVersion', () => {
    const before = Date.now();
    const sub = buildSubscriptionData('TopicTest');
    expect(sub).toMatchObject({
      topic: 'TopicTest',
      subString: '*',
      tagsSet: [],
      codeSet: [],
      expressionType: 'TAG',
      classFilterMode: false,
    });
    expect(sub.subVersion).toBeGreaterThanOrEqual(before);
    expect(sub.subVersion).toBeLessThanOrEqual(Date.now());
  });

  it('treats empty, blank and padded * expressions as *', () => {
    for (const expression of ['', '*', '  ', ' * ']) {
      const sub = buildSubscriptionData('T', expression, 'TAG', 1);
      expect(sub, expression).toEqual({
        topic: 'T',
        subString: SUB_ALL,
        tagsSet: [],
        codeSet: [],
        subVersion: 1,
        expressionType: 'TAG',
        classFilterMode: false,
      });
    }
  });

  it('splits on ||, trims, drops empties and duplicates, and hashes like Java', () => {
    const sub = buildSubscriptionData('T', ' TagA ||TagB|| || TagA||订单||', 'TAG', 7);
    expect(sub.subString).toBe(' TagA ||TagB|| || TagA||订单||');
    expect(sub.tagsSet).toEqual(['TagA', 'TagB', '订单']);
    expect(sub.codeSet).toEqual([2598919, 2598920, 1129459]);
    expect(sub.subVersion).toBe(7);
  });

  it('keeps a single | inside a tag (only || separates)', () => {
    expect(buildSubscriptionData('T', 'a|b||c').tagsSet).toEqual(['a|b', 'c']);
  });

  it('rejects a TAG expression that names no tag, like Java FilterAPI', () => {
    expect(() => buildSubscriptionData('T', '||')).toThrow(RocketMQError);
    expect(() => buildSubscriptionData('T', ' || || ')).toThrow(RocketMQError);
  });

  it('keeps SQL92 expressions as given with empty sets, and rejects empty ones', () => {
    expect(buildSubscriptionData('T', "a > 5 AND b = 'x'", 'SQL92', 3)).toEqual({
      topic: 'T',
      subString: "a > 5 AND b = 'x'",
      tagsSet: [],
      codeSet: [],
      subVersion: 3,
      expressionType: 'SQL92',
      classFilterMode: false,
    });
    expect(() => buildSubscriptionData('T', '', 'SQL92')).toThrow(RocketMQError);
    expect(() => buildSubscriptionData('T', '   ', 'SQL92')).toThrow(RocketMQError);
  });

  it('codeSet is always the Java hash of tagsSet', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 6 }), (parts) => {
        const expression = parts.join('||');
        let sub: ReturnType<typeof buildSubscriptionData>;
        try {
          sub = buildSubscriptionData('T', expression);
        } catch (err) {
          expect(err).toBeInstanceOf(RocketMQError);
          expect(parts.every((p) => p.trim() === '')).toBe(true);
          return;
        }
        expect(sub.codeSet).toEqual(sub.tagsSet.map(javaStringHashCode));
        expect(new Set(sub.tagsSet).size).toBe(sub.tagsSet.length);
        expect(sub.tagsSet.every((t) => t.length > 0 && t === t.trim() && !t.includes('||'))).toBe(true);
      }),
    );
  });
});

describe('matchesTags', () => {
  it('matches everything for *, including messages without a tag', () => {
    const all = buildSubscriptionData('T');
    expect(matchesTags(all, 'TagA')).toBe(true);
    expect(matchesTags(all, undefined)).toBe(true);
    expect(matchesTags(all, '')).toBe(true);
  });

  it('keeps only listed tags for a tag expression; untagged messages do not match', () => {
    const sub = buildSubscriptionData('T', 'TagA || TagB');
    expect(matchesTags(sub, 'TagA')).toBe(true);
    expect(matchesTags(sub, 'TagB')).toBe(true);
    expect(matchesTags(sub, 'TagC')).toBe(false);
    expect(matchesTags(sub, 'taga')).toBe(false);
    expect(matchesTags(sub, undefined)).toBe(false);
  });

  it('re-filters tags whose hash collides with a subscribed tag', () => {
    // "Aa" and "BB" have the same Java hash code, so the broker lets both through.
    expect(javaStringHashCode('Aa')).toBe(javaStringHashCode('BB'));
    const sub = buildSubscriptionData('T', 'Aa');
    expect(matchesTags(sub, 'Aa')).toBe(true);
    expect(matchesTags(sub, 'BB')).toBe(false);
  });

  it('leaves SQL92 filtering to the broker', () => {
    const sub = buildSubscriptionData('T', 'a > 1', 'SQL92');
    expect(matchesTags(sub, 'anything')).toBe(true);
    expect(matchesTags(sub, undefined)).toBe(true);
  });
});
