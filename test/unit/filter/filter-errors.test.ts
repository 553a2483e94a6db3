import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_FILTER_PATTERNS,
  MAX_BODY_JSON_BYTES,
  MAX_EVENT_ARRAY_NESTING,
  MAX_FILTER_PATTERNS_LIMIT,
  MAX_PATTERN_CHARS,
  MAX_PATTERN_DEPTH,
  MAX_VALUES_PER_FIELD,
  MAX_WILDCARDS_PER_VALUE,
} from '../../../src/filter/filter-limits.js';
import { FilterPatternError } from '../../../src/filter/filter-pattern-error.js';
import { compileFilter } from '../../../src/filter/message-filter.js';

/** The FilterPatternError compileFilter throws for `patterns`. */
function refusal(patterns: unknown, options?: Parameters<typeof compileFilter>[1]): FilterPatternError {
  try {
    compileFilter(patterns, options);
  } catch (error) {
    if (error instanceof FilterPatternError) return error;
    throw error;
  }
  throw new Error(`compileFilter accepted ${JSON.stringify(patterns)}`);
}

describe('compileFilter: refusals name the bad part', () => {
  it.each([
    [
      [{ body: { status: [{ numeric: ['~', 5] }] } }],
      'filters[0].body.status[0].numeric',
      "expected an operator ('<', '<=', '=', '>=', '>') followed by a number",
    ],
    [[{ n: [{ numeric: ['>', '5'] }] }], 'filters[0].n[0].numeric', 'followed by a number'],
    [
      [{ n: [{ numeric: ['<', 5, '>', 1] }] }],
      'filters[0].n[0].numeric',
      "a range starts with a lower bound ('>' or '>=')",
    ],
    [
      [{ n: [{ numeric: ['>', 1, '>', 5] }] }],
      'filters[0].n[0].numeric',
      "a range ends with an upper bound ('<' or '<=')",
    ],
    [
      [{ n: [{ numeric: ['>', 5, '<', 5] }] }],
      'filters[0].n[0].numeric',
      'the lower bound 5 must be below the upper bound 5',
    ],
    [[{ n: [{ numeric: ['>', 1, '<'] }] }], 'filters[0].n[0].numeric', 'or a lower bound'],
    [[{ n: [{ numeric: 5 }] }], 'filters[0].n[0].numeric', 'followed by a number'],
    [
      [{ t: [{ prefix: 5 }] }],
      'filters[0].t[0].prefix',
      'expected a string or {"equals-ignore-case": string}; got number 5',
    ],
    [[{ t: [{ prefix: { exactly: 'a' } }] }], 'filters[0].t[0].prefix', 'got an object with "exactly"'],
    [
      [{ t: [{ suffix: { 'equals-ignore-case': 1 } }] }],
      'filters[0].t[0].suffix["equals-ignore-case"]',
      'expected a string; got number 1',
    ],
    [
      [{ t: [{ 'equals-ignore-case': ['a'] }] }],
      'filters[0].t[0]["equals-ignore-case"]',
      'expected a string; got an array',
    ],
    [
      [{ t: [{ wildcard: 'a**b' }] }],
      'filters[0].t[0].wildcard',
      "consecutive '*' are not allowed (at character 1",
    ],
    [[{ t: [{ wildcard: 'a\\b' }] }], 'filters[0].t[0].wildcard', "a backslash may only escape '*' or '\\'"],
    [[{ t: [{ exists: 'yes' }] }], 'filters[0].t[0].exists', 'expected true or false'],
    [[{ t: [{ cidr: '10.0.0.0/8' }] }], 'filters[0].t[0].cidr', 'unknown operator "cidr"'],
    [[{ t: [{ prefix: 'a', suffix: 'b' }] }], 'filters[0].t[0]', 'an operator object has exactly one key'],
    [[{ t: [{}] }], 'filters[0].t[0]', 'got none'],
    [
      [{ t: [[1]] }],
      'filters[0].t[0]',
      'expected a string, number, true, false, null or an operator object; got an array',
    ],
    [[{ t: [] }], 'filters[0].t', 'an empty array matches nothing'],
    [
      [{ t: 'paid' }],
      'filters[0].t',
      'expected an array of values (["paid"]) or a nested pattern object; got the string "paid"',
    ],
    [[{ 'detail-type': 5 }], 'filters[0]["detail-type"]', 'got number 5'],
    [[{ t: [{ 'anything-but': [] }] }], 'filters[0].t[0]["anything-but"]', 'an empty list'],
    [
      [{ t: [{ 'anything-but': ['a', 1] }] }],
      'filters[0].t[0]["anything-but"]',
      'only strings or only numbers',
    ],
    [[{ t: [{ 'anything-but': null }] }], 'filters[0].t[0]["anything-but"]', 'got null'],
    [[{ t: [{ 'anything-but': { exists: true } }] }], 'filters[0].t[0]["anything-but"]', 'got "exists"'],
    [
      [{ t: [{ 'anything-but': { prefix: '' } }] }],
      'filters[0].t[0]["anything-but"].prefix',
      'an empty prefix would exclude every string',
    ],
    [
      [{ t: [{ 'anything-but': { suffix: ['a', 2] } }] }],
      'filters[0].t[0]["anything-but"].suffix[1]',
      'expected a string; got number 2',
    ],
    [
      [{ t: [{ 'anything-but': { wildcard: 'a**' } }] }],
      'filters[0].t[0]["anything-but"].wildcard',
      "consecutive '*'",
    ],
    [[{}], 'filters[0]', 'an empty pattern object'],
    [['[1]'], 'filters[0]', 'expected a pattern object; got an array'],
    [['{"a": ['], 'filters[0]', 'not valid JSON'],
    [[5], 'filters[0]', 'expected a pattern object; got number 5'],
    [[{ $or: [{ a: [1] }] }], 'filters[0].$or', 'expected an array of at least 2 pattern objects'],
    [[{ $or: [{ a: [1] }, 'x'] }], 'filters[0].$or[1]', 'expected a pattern object'],
    [
      [{ a: ['x'], $or: [{ a: ['y'] }, { b: [1] }] }],
      'filters[0].$or[0]',
      'the field a is also matched outside this $or',
    ],
    [
      [{ body: { c: { d: [1] }, $or: [{ c: { d: [2] } }, { e: [1] }] } }],
      'filters[0].body.$or[0]',
      'the field c.d is also matched outside this $or',
    ],
    [[{ body: ['x'] }], 'filters[0].body', 'a rule on the body as a whole is not supported'],
    [{ a: ['x'] }, 'filters', 'expected an array of patterns; got an object'],
    [[], 'filters', 'no patterns'],
  ])('%j: %s', (patterns, path, problem) => {
    const error = refusal(patterns);
    expect(error.path).toBe(path);
    expect(error.message.startsWith(`${path}: `)).toBe(true);
    expect(error.message).toContain(problem);
    expect(error.permanent).toBe(true);
  });

  it('names the place given by the caller', () => {
    expect(refusal([{ a: [] }], { path: 'mappings[2].filters' }).path).toBe('mappings[2].filters[0].a');
  });
});

describe('compileFilter: bounds', () => {
  const one = { tags: ['a'] };

  it(`allows ${DEFAULT_MAX_FILTER_PATTERNS} patterns by default, up to ${MAX_FILTER_PATTERNS_LIMIT} when asked`, () => {
    expect(compileFilter(Array(DEFAULT_MAX_FILTER_PATTERNS).fill(one)).patternCount).toBe(
      DEFAULT_MAX_FILTER_PATTERNS,
    );
    expect(refusal(Array(DEFAULT_MAX_FILTER_PATTERNS + 1).fill(one)).message).toContain(
      `${DEFAULT_MAX_FILTER_PATTERNS + 1} patterns, more than the ${DEFAULT_MAX_FILTER_PATTERNS} allowed (maxPatterns`,
    );
    expect(compileFilter(Array(10).fill(one), { maxPatterns: MAX_FILTER_PATTERNS_LIMIT }).patternCount).toBe(
      10,
    );
    expect(refusal([one], { maxPatterns: MAX_FILTER_PATTERNS_LIMIT + 1 }).message).toContain(
      `expected an integer from 1 to ${MAX_FILTER_PATTERNS_LIMIT} (MAX_FILTER_PATTERNS_LIMIT); got 11`,
    );
    expect(refusal([one], { maxPatterns: 0 }).path).toBe('filters (maxPatterns)');
  });

  it(`refuses a pattern of more than ${MAX_PATTERN_CHARS} characters, as text or as an object`, () => {
    const value = 'x'.repeat(MAX_PATTERN_CHARS);
    const text = JSON.stringify({ a: [value] });
    expect(refusal([text]).message).toBe(
      `filters[0]: ${text.length} characters of JSON, more than ${MAX_PATTERN_CHARS} (MAX_PATTERN_CHARS, Lambda's limit per pattern)`,
    );
    expect(refusal([one, { a: [value] }]).path).toBe('filters[1]');
    const fits = JSON.stringify({ a: ['x'.repeat(MAX_PATTERN_CHARS - 10)] });
    expect(fits.length).toBe(MAX_PATTERN_CHARS);
    expect(compileFilter([fits]).matches({ a: 'x'.repeat(MAX_PATTERN_CHARS - 10) })).toBe(true);
  });

  it(`refuses patterns nested deeper than ${MAX_PATTERN_DEPTH} objects`, () => {
    const nest = (levels: number): unknown => (levels === 1 ? { leaf: [1] } : { n: nest(levels - 1) });
    expect(compileFilter([nest(MAX_PATTERN_DEPTH)]).patternCount).toBe(1);
    const error = refusal([nest(MAX_PATTERN_DEPTH + 1)]);
    expect(error.message).toContain(`nested deeper than ${MAX_PATTERN_DEPTH} objects (MAX_PATTERN_DEPTH)`);
    expect(error.path).toBe(`filters[0]${'.n'.repeat(MAX_PATTERN_DEPTH)}`);
  });

  it(`refuses more than ${MAX_VALUES_PER_FIELD} values in a rule array or an anything-but list`, () => {
    const values = Array.from({ length: MAX_VALUES_PER_FIELD }, (_, i) => `v${i}`);
    expect(compileFilter([{ a: values }]).matches({ a: `v${MAX_VALUES_PER_FIELD - 1}` })).toBe(true);
    expect(refusal([{ a: [...values, 'more'] }]).message).toContain(
      `${MAX_VALUES_PER_FIELD + 1} values, more than ${MAX_VALUES_PER_FIELD} (MAX_VALUES_PER_FIELD)`,
    );
    expect(refusal([{ a: [{ 'anything-but': [...values, 'more'] }] }]).path).toBe(
      'filters[0].a[0]["anything-but"]',
    );
  });

  it(`refuses more than ${MAX_WILDCARDS_PER_VALUE} '*' in one wildcard`, () => {
    const stars = (count: number): string => Array.from({ length: count + 1 }, (_, i) => `p${i}`).join('*');
    expect(compileFilter([{ a: [{ wildcard: stars(MAX_WILDCARDS_PER_VALUE) }] }]).patternCount).toBe(1);
    expect(refusal([{ a: [{ wildcard: stars(MAX_WILDCARDS_PER_VALUE + 1) }] }]).message).toContain(
      `more than ${MAX_WILDCARDS_PER_VALUE} '*' in one wildcard (MAX_WILDCARDS_PER_VALUE)`,
    );
  });

  it(`parses a body of at most ${MAX_BODY_JSON_BYTES} bytes; a larger one counts as not JSON`, () => {
    const filter = compileFilter([{ body: { a: [1] } }]);
    const frame = '{"a":1,"p":""}';
    const exact = `{"a":1,"p":"${'x'.repeat(MAX_BODY_JSON_BYTES - frame.length)}"}`;
    expect(Buffer.byteLength(exact)).toBe(MAX_BODY_JSON_BYTES);
    expect(filter.matches({}, Buffer.from(exact))).toBe(true);
    const over = `{"a":1,"p":"${'x'.repeat(MAX_BODY_JSON_BYTES - frame.length + 1)}"}`;
    expect(filter.matches({}, Buffer.from(over))).toBe(false);
    expect(filter.matches({}, over)).toBe(false);
  });

  it(`looks no deeper than ${MAX_EVENT_ARRAY_NESTING} nested arrays of an event value`, () => {
    const wrap = (levels: number): unknown => (levels === 0 ? 'x' : [wrap(levels - 1)]);
    const filter = compileFilter([{ a: ['x'] }]);
    expect(filter.matches({ a: wrap(MAX_EVENT_ARRAY_NESTING) })).toBe(true);
    expect(filter.matches({ a: wrap(MAX_EVENT_ARRAY_NESTING + 1) })).toBe(false);
    const deepBody = `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(filter.matches({}, deepBody)).toBe(false);
    expect(compileFilter([{ body: { a: ['x'] } }]).matches({}, deepBody)).toBe(false);
  });
});
