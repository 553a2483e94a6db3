import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSystemProperty, MessageConst, userProperties } from '../../../src/protocol/message.js';
import { decodeProperties } from '../../../src/protocol/message-properties.js';
import { readPropertiesHead } from '../../../src/protocol/properties-head.js';
import { roundRobin, sameLayoutTexts } from './same-layout-texts.js';

/** The property `key` of the properties object of `text` (an own property only). */
function own(properties: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(properties, key) ? properties[key] : undefined;
}

/**
 * Checks the head of one text against its properties object (decodeProperties): the same id, tags,
 * keys and user properties, each user key once, in the order of the text.
 */
function expectSameAsReference(text: string): void {
  const head = readPropertiesHead(text);
  const properties = decodeProperties(text);
  const label = JSON.stringify(text);
  expect(head.uniqKey, label).toBe(own(properties, MessageConst.UNIQ_KEY));
  expect(head.tags, label).toBe(own(properties, MessageConst.TAGS));
  expect(head.keys, label).toBe(own(properties, MessageConst.KEYS));
  expect(head.userValues.length, label).toBe(head.userKeys.length);
  expect(new Set(head.userKeys).size, `${label}: a user key twice`).toBe(head.userKeys.length);
  const pairs: Record<string, string> = Object.create(null);
  head.userKeys.forEach((key, i) => {
    pairs[key] = head.userValues[i] as string;
  });
  expect(pairs, label).toStrictEqual(userProperties(properties));
  expect(head.userKeys, `${label}: stored order`).toStrictEqual(storedUserKeys(text));
}

/** The user keys of a text in the order their first well-formed pieces come, by the format's rules. */
function storedUserKeys(text: string): string[] {
  const keys: string[] = [];
  for (const piece of text.split('\u0002')) {
    const separator = piece.indexOf('\u0001');
    if (separator <= 0 || separator === piece.length - 1) continue;
    const key = piece.slice(0, separator);
    if (!isSystemProperty(key) && !keys.includes(key)) keys.push(key);
  }
  return keys;
}

/** The user properties of a text as `{ key: value }`, in the head's order. */
function userOf(text: string): Record<string, string> {
  const head = readPropertiesHead(text);
  return Object.fromEntries(head.userKeys.map((key, i) => [key, head.userValues[i] as string]));
}

/** Pieces of properties texts: separators, JSON-escaped and non-ASCII characters, system and odd keys. */
const token = fc.constantFrom(
  '\u0001',
  '\u0002',
  '\u0001',
  '\u0002',
  'a',
  'b',
  '1',
  '0',
  '"',
  '\\',
  '\n',
  '\u0000',
  '\u001f',
  '\u007f',
  'é',
  '\u2028',
  '😀',
  '\ud800',
  'TAGS',
  'UNIQ_KEY',
  'KEYS',
  '__proto__',
  '__RMQ.TRANSIENT.x',
  'constructor',
);
const anyText = fc.array(token, { maxLength: 24 }).map((tokens) => tokens.join(''));
const key = fc.constantFrom(
  'a',
  'b',
  '1',
  '07',
  'UNIQ_KEY',
  'TAGS',
  'WAIT',
  '__proto__',
  'k"é',
  'x\\y',
  // What a regular expression would read as syntax: a remembered layout must match them literally.
  'a.b',
  '(x)|[y]',
  'k+*?',
  '^$',
  '\\u0001{2}',
);
const value = fc.constantFrom('', 'v', 'w', '1', 'é"\\\n', '\u0001z', '😀');
/** Texts of one layout (the same keys in the same order) with different values. */
const sameLayouts = sameLayoutTexts(key, value, 6);

describe('readPropertiesHead', () => {
  it('reads what the properties object holds, for any text (differential)', () => {
    fc.assert(
      fc.property(fc.array(anyText, { minLength: 1, maxLength: 4 }), (texts) => {
        for (const text of texts) expectSameAsReference(text);
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads what the properties object holds for texts that repeat a layout (differential)', () => {
    fc.assert(
      fc.property(sameLayouts, anyText, (texts, other) => {
        for (const text of texts) expectSameAsReference(text);
        expectSameAsReference(other);
        for (const text of texts) expectSameAsReference(text);
      }),
      { numRuns: 1_000 },
    );
  });

  it('reads what the properties object holds when layouts interleave (differential)', () => {
    fc.assert(
      fc.property(fc.array(sameLayouts, { minLength: 2, maxLength: 12 }), (groups) => {
        roundRobin(groups, expectSameAsReference);
      }),
      { numRuns: 500 },
    );
  });

  it('matches a remembered key literally, not as a pattern', () => {
    // Each layout is walked twice in a row, which compiles its pattern, before a text it must not match.
    for (const value of ['0', '1']) expect(userOf(`a.b\u0001${value}\u0002`)).toEqual({ 'a.b': value });
    expect(userOf('aXb\u00012\u0002')).toEqual({ aXb: '2' });
    for (const value of ['2', '3']) expect(userOf(`k+\u0001${value}\u0002`)).toEqual({ 'k+': value });
    expect(userOf('kk\u00014\u0002')).toEqual({ kk: '4' });
    for (const value of ['4', '5']) expect(userOf(`\\d\u0001${value}`)).toEqual({ '\\d': value });
    expect(userOf('7\u00016')).toEqual({ '7': '6' });
  });

  it('reads the id, tags and keys, and keeps user properties only, the first occurrence winning', () => {
    const text =
      'TAGS\u0001a\u0002color\u0001red\u0002UNIQ_KEY\u0001X\u0002KEYS\u0001k1 k2\u0002color\u0001blue';
    for (let i = 0; i < 3; i++) {
      // Walked, walked again (compiled), then matched by the pattern.
      expect(readPropertiesHead(text)).toStrictEqual({
        uniqKey: 'X',
        tags: 'a',
        keys: 'k1 k2',
        userKeys: ['color'],
        userValues: ['red'],
      });
    }
    expect(readPropertiesHead('UNIQ_KEY\u0001X\u0002__RMQ.TRANSIENT.T\u00011\u0002').userKeys).toEqual([]);
    expect(readPropertiesHead('')).toStrictEqual({
      uniqKey: undefined,
      tags: undefined,
      keys: undefined,
      userKeys: [],
      userValues: [],
    });
  });

  it('drops empty values, empty keys and pieces without a separator', () => {
    expect(userOf('a\u0001\u0002\u0001orphan\u0002junk\u0002b\u00012\u0002a\u00011\u0002')).toStrictEqual({
      b: '2',
      a: '1',
    });
    // An empty value does not take a key: its later well-formed occurrence is kept.
    expect(userOf('k\u0001\u0002k\u0001v')).toEqual({ k: 'v' });
    expect(readPropertiesHead('TAGS\u0001\u0002TAGS\u0001t').tags).toBe('t');
  });

  it('splits a piece at its first separator only', () => {
    expect(userOf('k\u0001a\u0001b\u0002')).toStrictEqual({ k: 'a\u0001b' });
    expect(readPropertiesHead('UNIQ_KEY\u0001a\u0001b').uniqKey).toBe('a\u0001b');
  });

  it('keeps __proto__ an ordinary key', () => {
    const head = readPropertiesHead('__proto__\u0001x\u0002');
    expect([head.userKeys, head.userValues]).toStrictEqual([['__proto__'], ['x']]);
  });

  it('follows a text that breaks the remembered layout', () => {
    expect(userOf('a\u00011\u0002TAGS\u0001t\u0002')).toEqual({ a: '1' });
    expect(userOf('a\u00012\u0002TAGS\u0001t\u0002')).toEqual({ a: '2' });
    expect(userOf('a\u00013\u0002TAGS\u0001t\u0002b\u00014\u0002')).toEqual({ a: '3', b: '4' });
    expect(userOf('a\u00015\u0002TAGS\u0001\u0002')).toEqual({ a: '5' });
    expect(readPropertiesHead('a\u00015\u0002TAGS\u0001\u0002').tags).toBeUndefined();
    expect(userOf('ab\u00016\u0002TAGS\u0001t\u0002')).toEqual({ ab: '6' });
    expect(userOf('a\u00017\u0002a\u00018\u0002')).toEqual({ a: '7' });
    expect(userOf('a\u00019\u0002a\u00010\u0002')).toEqual({ a: '9' });
  });
});
