import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { userPropertiesJsonOfText } from '../../../src/invoke/user-properties-json.js';
import { userProperties } from '../../../src/protocol/message.js';
import { decodeProperties } from '../../../src/protocol/message-properties.js';

/** What the event builder writes for a properties object (jsonUserProperties in event-builder.ts). */
function reference(text: string): string {
  return JSON.stringify(userProperties(decodeProperties(text)));
}

/**
 * Checks the walker's JSON against the reference for one text: the same key/value pairs once parsed,
 * and no key written twice (a duplicate would make the JSON longer than its parse re-written).
 */
function expectSameAsReference(text: string): void {
  const json = userPropertiesJsonOfText(text);
  const expected = reference(text);
  expect(JSON.parse(json), JSON.stringify(text)).toStrictEqual(JSON.parse(expected));
  expect(JSON.stringify(JSON.parse(json)).length).toBe(json.length);
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
const sameLayoutTexts = fc.array(key, { minLength: 1, maxLength: 6 }).chain((keys) =>
  fc.array(
    fc
      .array(value, { minLength: keys.length, maxLength: keys.length })
      .map((values) => keys.map((k, i) => `${k}\u0001${values[i] ?? ''}\u0002`).join('')),
    { minLength: 2, maxLength: 4 },
  ),
);

describe('userPropertiesJsonOfText', () => {
  it('writes what the properties object would give, for any text (differential)', () => {
    fc.assert(
      fc.property(fc.array(anyText, { minLength: 1, maxLength: 4 }), (texts) => {
        for (const text of texts) expectSameAsReference(text);
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes what the properties object would give for texts that repeat a layout (differential)', () => {
    fc.assert(
      fc.property(sameLayoutTexts, anyText, (texts, other) => {
        for (const text of texts) expectSameAsReference(text);
        expectSameAsReference(other);
        for (const text of texts) expectSameAsReference(text);
      }),
      { numRuns: 1_000 },
    );
  });

  it('writes what the properties object would give when layouts interleave (differential)', () => {
    fc.assert(
      fc.property(fc.array(sameLayoutTexts, { minLength: 2, maxLength: 12 }), (groups) => {
        // Round robin over the groups: each text follows one of another layout, and some layouts are
        // pushed out of the remembered ones (more than eight) before their turn comes again.
        const longest = Math.max(...groups.map((texts) => texts.length));
        for (let i = 0; i < longest; i++) {
          for (const texts of groups) {
            const text = texts[i];
            if (text !== undefined) expectSameAsReference(text);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('matches a remembered key literally, not as a pattern', () => {
    // Each layout is walked twice in a row, which compiles its pattern, before a text it must not match.
    for (const value of ['0', '1'])
      expect(userPropertiesJsonOfText(`a.b\u0001${value}\u0002`)).toBe(`{"a.b":"${value}"}`);
    expect(userPropertiesJsonOfText('aXb\u00012\u0002')).toBe('{"aXb":"2"}');
    for (const value of ['2', '3'])
      expect(userPropertiesJsonOfText(`k+\u0001${value}\u0002`)).toBe(`{"k+":"${value}"}`);
    expect(userPropertiesJsonOfText('kk\u00014\u0002')).toBe('{"kk":"4"}');
    for (const value of ['4', '5'])
      expect(userPropertiesJsonOfText(`\\d\u0001${value}`)).toBe(`{"\\\\d":"${value}"}`);
    expect(userPropertiesJsonOfText('7\u00016')).toBe('{"7":"6"}');
  });

  it('keeps user properties only, the first occurrence of a key winning', () => {
    expect(userPropertiesJsonOfText('TAGS\u0001a\u0002color\u0001red\u0002color\u0001blue\u0002')).toBe(
      '{"color":"red"}',
    );
    expect(userPropertiesJsonOfText('UNIQ_KEY\u0001X\u0002__RMQ.TRANSIENT.T\u00011\u0002')).toBe('{}');
    expect(userPropertiesJsonOfText('')).toBe('{}');
  });

  it('drops empty values, empty keys and pieces without a separator', () => {
    expect(
      userPropertiesJsonOfText('a\u0001\u0002\u0001orphan\u0002junk\u0002b\u00012\u0002a\u00011\u0002'),
    ).toBe('{"b":"2","a":"1"}');
    // An empty value does not take a key: its later well-formed occurrence is kept.
    expect(userPropertiesJsonOfText('k\u0001\u0002k\u0001v')).toBe('{"k":"v"}');
  });

  it('splits a piece at its first separator only', () => {
    expect(JSON.parse(userPropertiesJsonOfText('k\u0001a\u0001b\u0002'))).toStrictEqual({ k: 'a\u0001b' });
  });

  it('escapes JSON characters and keeps non-ASCII text', () => {
    const json = userPropertiesJsonOfText(
      'q"\\\u0001line\nfeed\u0000\u0002caf\u00e9\u0001\u{1f600}\u2028\u0002',
    );
    expect(JSON.parse(json)).toStrictEqual({ 'q"\\': 'line\nfeed\u0000', café: '\u{1f600}\u2028' });
  });

  it('writes __proto__ as an ordinary key', () => {
    const parsed: unknown = JSON.parse(userPropertiesJsonOfText('__proto__\u0001x\u0002'));
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toBe('x');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it('follows a text that breaks the remembered layout', () => {
    expect(userPropertiesJsonOfText('a\u00011\u0002TAGS\u0001t\u0002')).toBe('{"a":"1"}');
    expect(userPropertiesJsonOfText('a\u00012\u0002TAGS\u0001t\u0002')).toBe('{"a":"2"}');
    expect(userPropertiesJsonOfText('a\u00013\u0002TAGS\u0001t\u0002b\u00014\u0002')).toBe(
      '{"a":"3","b":"4"}',
    );
    expect(userPropertiesJsonOfText('a\u00015\u0002TAGS\u0001\u0002')).toBe('{"a":"5"}');
    expect(userPropertiesJsonOfText('ab\u00016\u0002TAGS\u0001t\u0002')).toBe('{"ab":"6"}');
    expect(userPropertiesJsonOfText('a\u00017\u0002a\u00018\u0002')).toBe('{"a":"7"}');
    expect(userPropertiesJsonOfText('a\u00019\u0002a\u00010\u0002')).toBe('{"a":"9"}');
  });
});
