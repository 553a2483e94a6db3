/**
 * fast-check arbitraries of JSON bodies as bytes, for the body scanner's tests
 * (test/unit/filter/json-body-scanner.test.ts): valid JSON written in the many ways the grammar allows
 * (whitespace, escapes of any character, duplicate keys, number spellings, deep nesting), and those
 * bytes mutated into mostly invalid JSON (bytes deleted, inserted, replaced, cut off; invalid UTF-8).
 * The oracle is always `JSON.parse` of the same bytes, so a generator need not know which it makes.
 */
import fc from 'fast-check';
import type { JsonValue } from './pattern-arbitraries.js';

/**
 * Keys of bodies and patterns: plain, a prototype name, non-ASCII (2, 3 and 4 bytes of UTF-8), with a
 * quote and a backslash, empty, U+FFFD (what invalid UTF-8 decodes to) and a lone surrogate (which
 * UTF-8 cannot carry as such).
 */
export const SCANNER_KEYS = [
  'a',
  'b',
  'c',
  '__proto__',
  'é',
  '€x',
  '😀',
  'k"\\',
  '',
  '\uFFFD',
  '\uD800',
] as const;

const wsArb = fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n  ', '  ');

/** Characters of strings: ASCII, those that must be escaped, non-ASCII, any code point, lone surrogates. */
const charArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'x', ' ', '/', '"', '\\', 'é', '€', '😀', '\uFFFD') },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
);

/**
 * String values: short ones, and long ones (the scanner searches a string natively past its first
 * bytes), mostly plain with now and then a character of any kind.
 */
const stringValueArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: charArb, maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.oneof(
        { weight: 20, arbitrary: fc.constantFrom('x', 'y', ' ') },
        { weight: 1, arbitrary: charArb },
      ),
      minLength: 16,
      maxLength: 120,
    }),
  },
);

/** One UTF-16 unit as `\uXXXX`, in lower or upper case hex. */
function unicodeEscape(unit: number, upper: boolean): string {
  const hex = unit.toString(16).padStart(4, '0');
  return `\\u${upper ? hex.toUpperCase() : hex}`;
}

/**
 * `text` as a JSON string literal, each UTF-16 unit written by its `ways` entry: as is when it may be
 * (a lone surrogate as is becomes U+FFFD's bytes in UTF-8), by its short escape, or as `\uXXXX`.
 */
function writeString(text: string, ways: readonly number[]): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const char = text[i] as string;
    const way = ways[i % Math.max(1, ways.length)] ?? 0;
    const mustEscape = unit < 0x20 || char === '"' || char === '\\';
    if (way === 1 || way === 2) out += unicodeEscape(unit, way === 2);
    else if (way === 3 && char === '/') out += '\\/';
    else if (mustEscape) out += JSON.stringify(char).slice(1, -1);
    else out += char;
  }
  return `${out}"`;
}

/** A string written with random escapes. */
export function stringTextArb(text: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(text, fc.array(fc.constantFrom(0, 0, 0, 0, 1, 2, 3), { maxLength: 6 }))
    .map(([value, ways]) => writeString(value, ways));
}

/** A number as JSON may spell it: signs, leading zero, fractions, exponents, many digits, huge or tiny. */
const numberTextArb: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  fc
    .tuple(
      fc.constantFrom('', '-'),
      fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,24}$/)),
      fc.option(fc.stringMatching(/^[0-9]{1,20}$/), { nil: undefined }),
      fc.option(
        fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.stringMatching(/^[0-9]{1,3}$/)),
        { nil: undefined },
      ),
    )
    .map(
      ([sign, integer, fraction, exponent]) =>
        `${sign}${integer}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : exponent.join('')}`,
    ),
);

const keyTextArb = stringTextArb(
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...SCANNER_KEYS) },
    { weight: 1, arbitrary: fc.string({ unit: charArb, maxLength: 4 }) },
  ),
);

/** JSON text of any value, written with random whitespace, escapes, duplicate keys and number spellings. */
export const jsonTextArb: fc.Arbitrary<string> = fc.letrec<{ value: string; object: string; array: string }>(
  (tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      stringTextArb(stringValueArb),
      numberTextArb,
      fc.constantFrom('true', 'false', 'null'),
      tie('object'),
      tie('array'),
    ),
    object: fc
      .tuple(wsArb, fc.array(fc.tuple(keyTextArb, wsArb, wsArb, tie('value'), wsArb), { maxLength: 5 }))
      .map(
        ([space, members]) =>
          `{${space}${members.map(([key, a, b, value, c]) => `${key}${a}:${b}${value}${c}`).join(',')}}`,
      ),
    array: fc
      .tuple(wsArb, fc.array(fc.tuple(tie('value'), wsArb), { maxLength: 4 }))
      .map(
        ([space, elements]) => `[${space}${elements.map(([value, after]) => `${value}${after}`).join(',')}]`,
      ),
  }),
).value;

/** A whole body: a JSON value (an object most often) between random whitespace, as UTF-8 bytes. */
export const jsonBodyArb: fc.Arbitrary<Buffer> = fc
  .tuple(
    wsArb,
    fc.oneof({ weight: 3, arbitrary: jsonObjectTextArb() }, { weight: 1, arbitrary: jsonTextArb }),
    wsArb,
  )
  .map(([before, text, after]) => Buffer.from(`${before}${text}${after}`, 'utf8'));

function jsonObjectTextArb(): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(keyTextArb, jsonTextArb), { maxLength: 6 })
    .map((members) => `{${members.map(([key, value]) => `${key}:${value}`).join(', ')}}`);
}

/** Bytes a mutation inserts or writes: JSON's structural bytes, controls, non-ASCII and invalid UTF-8. */
const mutationByteArb = fc.oneof(
  fc.constantFrom(
    0x22,
    0x5c,
    0x2c,
    0x3a,
    0x7b,
    0x7d,
    0x5b,
    0x5d,
    0x20,
    0x0a,
    0x00,
    0x1f,
    0x2d,
    0x2e,
    0x65,
    0x30,
    0x75,
  ),
  fc.constantFrom(0x80, 0xbf, 0xc0, 0xc3, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf8, 0xff),
  fc.integer({ min: 0, max: 255 }),
);

type Mutation =
  | { kind: 'delete' | 'truncate'; at: number }
  | { kind: 'insert' | 'replace'; at: number; byte: number }
  | { kind: 'bom' };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('delete' as const, 'truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constantFrom('insert' as const, 'replace' as const),
    at: fc.nat(),
    byte: mutationByteArb,
  }),
  fc.constant({ kind: 'bom' as const }),
);

function mutate(bytes: Buffer, mutation: Mutation): Buffer {
  if (mutation.kind === 'bom') return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
  const at = mutation.at % (bytes.length + 1);
  switch (mutation.kind) {
    case 'delete':
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
    case 'truncate':
      return bytes.subarray(0, at);
    case 'insert':
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([mutation.byte]), bytes.subarray(at)]);
    default: {
      const copy = Buffer.from(bytes);
      if (at < copy.length) copy[at] = mutation.byte;
      return copy;
    }
  }
}

/** A valid body with 1 to 3 mutations: mostly invalid JSON, sometimes still valid (a space inserted). */
export const mutatedBodyArb: fc.Arbitrary<Buffer> = fc
  .tuple(jsonBodyArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }))
  .map(([body, mutations]) => mutations.reduce(mutate, body));

/**
 * `value` (a record's body from pattern-arbitraries.ts) as JSON text written with random whitespace and
 * escapes, and now and then a duplicate of a key written before it with another value (which the last
 * one overrides, as JSON.parse does).
 */
export function writtenValueArb(value: JsonValue): fc.Arbitrary<string> {
  if (Array.isArray(value)) {
    return fc
      .tuple(wsArb, ...value.map((element) => writtenValueArb(element)))
      .map(([space, ...elements]) => `[${space}${elements.join(`,${space}`)}]`);
  }
  if (typeof value === 'string') return stringTextArb(fc.constant(value));
  if (typeof value !== 'object' || value === null) return fc.constant(JSON.stringify(value));
  const entries = Object.entries(value);
  return fc
    .tuple(
      wsArb,
      fc.option(
        fc.tuple(fc.constantFrom(...(entries.length > 0 ? entries.map(([key]) => key) : ['a'])), jsonTextArb),
        {
          nil: undefined,
        },
      ),
      ...entries.map(([key, inner]) => fc.tuple(stringTextArb(fc.constant(key)), writtenValueArb(inner))),
    )
    .map(([space, duplicate, ...members]) => {
      const written = members.map(([key, inner]) => `${key}:${space}${inner}`);
      if (duplicate !== undefined) written.unshift(`${JSON.stringify(duplicate[0])}:${duplicate[1]}`);
      return `{${space}${written.join(`,${space}`)}}`;
    });
}
