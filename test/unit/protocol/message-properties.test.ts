import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { decodeProperties, encodeProperties } from '../../../src/protocol/message-properties.js';

const S1 = '\u0001';
const S2 = '\u0002';

describe('encodeProperties', () => {
  it('writes key U+0001 value U+0002 with the trailing separator, in key order', () => {
    expect(encodeProperties({ TAGS: 'TagA', KEYS: 'k1 k2' })).toBe(`TAGS${S1}TagA${S2}KEYS${S1}k1 k2${S2}`);
    expect(encodeProperties({})).toBe('');
  });

  it('rejects separators in keys and values, naming the key', () => {
    expect(() => encodeProperties({ [`bad${S1}key`]: 'v' })).toThrow(ProtocolError);
    expect(() => encodeProperties({ color: `r${S2}ed` })).toThrow(/"color"/);
    expect(() => encodeProperties({ color: `r${S1}ed` })).toThrow(/"color"/);
  });

  it('rejects empty keys and empty values (decoders would drop them)', () => {
    expect(() => encodeProperties({ '': 'v' })).toThrow(ProtocolError);
    expect(() => encodeProperties({ k: '' })).toThrow(/"k"/);
  });
});

describe('decodeProperties (Java string2messageProperties rules)', () => {
  it('parses pairs with or without the trailing separator', () => {
    expect(decodeProperties(`a${S1}1${S2}b${S1}2${S2}`)).toEqual({ a: '1', b: '2' });
    expect(decodeProperties(`a${S1}1${S2}b${S1}2`)).toEqual({ a: '1', b: '2' });
  });

  it('skips empty keys, empty values, short pieces and pieces without a separator', () => {
    expect(decodeProperties(`${S1}orphan${S2}k${S1}${S2}ab${S2}${S2}ok${S1}yes${S2}`)).toEqual({ ok: 'yes' });
    expect(decodeProperties('')).toEqual({});
    expect(decodeProperties(`a${S1}`)).toEqual({});
  });

  it('keeps U+0001 inside a value (only the first one separates)', () => {
    expect(decodeProperties(`k${S1}v${S1}w${S2}`)).toEqual({ k: `v${S1}w` });
  });

  it('looks for U+0001 past the piece like Java: a piece without one is skipped', () => {
    expect(decodeProperties(`abc${S2}k${S1}v${S2}`)).toEqual({ k: 'v' });
  });

  it("keeps the first of duplicate keys (a message's own UNIQ_KEY before its batch's)", () => {
    expect(decodeProperties(`k${S1}1${S2}k${S1}2${S2}`)).toEqual({ k: '1' });
  });

  it('handles unicode keys and values, and __proto__ as a plain key', () => {
    const decoded = decodeProperties(`订单${S1}红色 🚀${S2}__proto__${S1}x${S2}`);
    expect(decoded.订单).toBe('红色 🚀');
    expect(Object.keys(decoded)).toEqual(['订单', '__proto__']);
    expect(Object.getPrototypeOf(decoded)).toBeNull();
  });

  it('round-trips any valid properties', () => {
    const text = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
      .filter((s) => !s.includes('\u0001') && !s.includes('\u0002'));
    fc.assert(
      fc.property(fc.dictionary(text, text, { maxKeys: 10 }), (properties) => {
        expect(decodeProperties(encodeProperties(properties))).toEqual({ ...properties });
      }),
    );
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', S1, S2, 'é', '🚀') }), (text) => {
        const decoded = decodeProperties(text);
        for (const [key, value] of Object.entries(decoded)) {
          expect(key.length).toBeGreaterThan(0);
          expect(value.length).toBeGreaterThan(0);
          expect(key).not.toContain(S2);
        }
      }),
    );
  });
});
