/**
 * Properties of the filter over random patterns and records (test/support/filter/pattern-arbitraries.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FilterPatternError } from '../../../src/filter/filter-pattern-error.js';
import { compileFilter } from '../../../src/filter/message-filter.js';
import { compileWildcard } from '../../../src/filter/wildcard.js';
import {
  INNER_KEYS,
  type JsonValue,
  leafArb,
  NUMBERS,
  type RandomRecord,
  recordArb,
  topPatternArb,
} from '../../support/filter/pattern-arbitraries.js';
import { expandAlternatives } from '../../support/filter/pattern-expansion.js';

const RUNS = {
  numRuns: Number(process.env.FILTER_PROPERTY_RUNS ?? 300),
  seed: Number(process.env.FILTER_PROPERTY_SEED ?? 33),
};

function matchesRecord(patterns: unknown[], record: RandomRecord): boolean {
  return compileFilter(patterns).matches(record.metadata, JSON.stringify(record.body));
}

/** `pattern` compiled, or undefined when refused. */
function accepted(pattern: unknown): unknown | undefined {
  try {
    compileFilter([pattern]);
    return pattern;
  } catch (error) {
    if (error instanceof FilterPatternError) return undefined;
    throw error;
  }
}

/** The leaves of a record's body with their key paths (through objects, not arrays). */
function bodyLeaves(value: JsonValue, path: string[] = []): { path: string[]; value: JsonValue }[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return path.length > 0 ? [{ path, value }] : [];
  return Object.entries(value).flatMap(([key, inner]) => bodyLeaves(inner, [...path, key]));
}

/** `{body: {a: {b: rule}}}` for the path a.b. */
function bodyPattern(path: readonly string[], rule: JsonValue[]): Record<string, JsonValue> {
  let inner: JsonValue = rule;
  for (const key of [...path].reverse()) inner = { [key]: inner };
  return { body: inner };
}

describe('filter properties', () => {
  it('an exact-value pattern built from a record matches it (metadata and body leaves)', () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        for (const [key, value] of Object.entries(record.metadata)) {
          const values = (Array.isArray(value) ? value : [value]).filter(
            (leaf) => typeof leaf !== 'object' || leaf === null,
          );
          if (values.length > 0) expect(matchesRecord([{ [key]: values.slice(0, 1) }], record)).toBe(true);
        }
        for (const leaf of bodyLeaves(record.body)) {
          if (typeof leaf.value !== 'object' || leaf.value === null) {
            expect(matchesRecord([bodyPattern(leaf.path, [leaf.value])], record)).toBe(true);
          }
        }
      }),
      RUNS,
    );
  });

  it('anything-but X never matches a field whose one value is X, and matches one whose value differs', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...INNER_KEYS),
        fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(...NUMBERS)),
        leafArb,
        (key, excluded, other) => {
          const filter = compileFilter([{ [key]: [{ 'anything-but': excluded }] }]);
          expect(filter.matches({ [key]: excluded })).toBe(false);
          expect(filter.matches({ [key]: [excluded] })).toBe(false);
          expect(filter.matches({ [key]: other })).toBe(other !== excluded);
        },
      ),
      RUNS,
    );
  });

  it('numeric ranges agree with direct comparison', () => {
    const number = fc.double({ min: -1e12, max: 1e12, noNaN: true, noDefaultInfinity: true });
    fc.assert(
      fc.property(
        fc.constantFrom('>', '>='),
        fc.constantFrom('<', '<='),
        number,
        number,
        number,
        (lowOp, highOp, a, b, value) => {
          fc.pre(a !== b);
          const [low, high] = a < b ? [a, b] : [b, a];
          const filter = compileFilter([{ n: [{ numeric: [lowOp, low, highOp, high] }] }]);
          const expected =
            (lowOp === '>' ? value > low : value >= low) && (highOp === '<' ? value < high : value <= high);
          expect(filter.matches({ n: value })).toBe(expected);
          expect(compileFilter([{ n: [{ numeric: ['=', low] }] }]).matches({ n: value })).toBe(value === low);
        },
      ),
      RUNS,
    );
  });

  it('$or matches exactly when one of its branches does, and a list of patterns when one pattern does', () => {
    fc.assert(
      fc.property(topPatternArb, topPatternArb, recordArb, (first, second, record) => {
        fc.pre(accepted(first) !== undefined && accepted(second) !== undefined);
        const either = matchesRecord([first], record) || matchesRecord([second], record);
        expect(matchesRecord([{ $or: [first, second] }], record)).toBe(either);
        expect(matchesRecord([first, second], record)).toBe(either);
      }),
      RUNS,
    );
  });

  it('a rule array matches exactly when one of its values alone would (the OR of its alternatives)', () => {
    fc.assert(
      fc.property(topPatternArb, recordArb, (pattern, record) => {
        fc.pre(accepted(pattern) !== undefined);
        const expanded = expandAlternatives(pattern, 64);
        fc.pre(expanded !== undefined);
        const any = (expanded ?? []).some((single) => matchesRecord([single], record));
        expect(matchesRecord([pattern], record)).toBe(any);
      }),
      RUNS,
    );
  });

  it('wildcard agrees with a regular expression of the same pattern', () => {
    const alphabet = fc.constantFrom('a', 'b', '*', '-');
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 8 }).map((chars) => chars.join('')),
        fc.array(fc.constantFrom('a', 'b', '-', '*'), { maxLength: 10 }).map((chars) => chars.join('')),
        (pattern, value) => {
          fc.pre(!pattern.includes('**'));
          const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
          const reference = new RegExp(`^${pattern.split('*').map(literal).join('.*')}$`, 's');
          expect(compileWildcard(pattern, 'w')(value)).toBe(reference.test(value));
        },
      ),
      { numRuns: 1000, seed: 33 },
    );
  });
});

describe('wildcard escapes', () => {
  it('reads \\* as a star and \\\\ as a backslash, and never lets the first and last parts overlap', () => {
    expect(compileWildcard('a\\*b', 'w')('a*b')).toBe(true);
    expect(compileWildcard('a\\*b', 'w')('axb')).toBe(false);
    expect(compileWildcard('a\\\\*', 'w')('a\\tail')).toBe(true);
    expect(compileWildcard('ab*ba', 'w')('aba')).toBe(false);
    expect(compileWildcard('ab*ba', 'w')('abba')).toBe(true);
    expect(compileWildcard('*-*-*', 'w')('a-b')).toBe(false);
    expect(compileWildcard('*-*-*', 'w')('a--b')).toBe(true);
  });
});
