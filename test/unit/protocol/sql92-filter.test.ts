import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSql92Filter, MAX_SQL92_NESTING } from '../../../src/protocol/sql92-filter.js';
import { tokenize, where } from '../../../src/protocol/sql92-lexer.js';

/** The verdict's message, or 'ok'. */
function verdict(expression: string): string {
  const check = checkSql92Filter(expression);
  return check.ok ? 'ok' : check.message;
}

describe('checkSql92Filter accepts what the broker compiles', () => {
  it.each([
    'a > 1',
    "region IN ('eu', 'us') AND amount >= 100",
    "a not in ('it''s', '中文 😀')",
    'a Between 1 And 2 and b is not null',
    'a NOT BETWEEN 2 AND 1',
    'a BETWEEN -1 AND -5',
    "a CONTAINS '' OR a NOT STARTSWITH 'x' OR 1 ENDSWITH 'y'",
    'TRUE',
    'NOT NULL',
    'a',
    '1 = TRUE',
    'NOT a = 1',
    'a = b = c',
    '5 IS NULL IS NULL',
    "a > -'x'",
    '+ + a',
    '$x_1 > 1e3 OR _ < .5 OR like = 5.E-3',
    'a = 9223372036854775807L',
    'a > 4.9e-324',
    'a > --1',
    'a > -- comment\r\n 1 /* trailing comment */',
    '\t\r\n\f a > 1 \n',
  ])('%s', (expression) => {
    expect(verdict(expression)).toBe('ok');
  });
});

describe('checkSql92Filter names what is wrong and where', () => {
  it.each([
    ['a > ', 3, 'unexpected end of expression after "a >" (column 4): expected a value'],
    ['', 0, 'the SQL92 filter is empty'],
    ['  /* only a comment */ ', 0, 'the SQL92 filter is empty'],
    ['(a > 1', 6, 'unexpected end of expression after "(a > 1" (column 7): expected ")"'],
    ['a IS', 4, 'unexpected end of expression after "a IS" (column 5): expected NULL or NOT NULL'],
    ["a IN ('x',)", 10, 'unexpected ")" at column 11: expected a string in single quotes in the IN list'],
    [
      'a NOT = 1',
      6,
      'unexpected "=" at column 7: expected CONTAINS, STARTSWITH, ENDSWITH, BETWEEN or IN after NOT',
    ],
    ["a = 'open", 4, 'unterminated string at column 5'],
    ['a > 1 /* open', 6, 'unterminated comment at column 7'],
    ['a != 1', 2, 'unexpected character "!" at column 3 (write <> for "not equal")'],
    ['a\u00a0> 1', 1, 'unexpected character U+00A0 at column 2'],
    ['é > 1', 0, 'unexpected character "é" (U+00E9) at column 1'],
    ['a > 0.0', 4, 'number 0.0 at column 5 is a floating-point zero, which the broker refuses: write 0'],
    ['a > 1e400', 4, 'number 1e400 at column 5 is too large'],
    [
      'a = 9223372036854775808',
      4,
      'integer 9223372036854775808 at column 5 is out of range: at most 9223372036854775807',
    ],
    ['1', 0, '"1" at column 1 is not a condition: a filter needs a comparison, a property, TRUE or FALSE'],
    ['a AND -b', 6, '"-b" at column 7 is not a condition: AND needs a comparison, a property, TRUE or FALSE'],
    ["a > 'x'", 4, `"'x'" at column 5 cannot be compared with >: it needs numbers or properties`],
    [
      'NOT a > 1',
      0,
      '"NOT a" at column 1 cannot be compared with >: it needs numbers or properties ' +
        '(NOT binds tighter than comparisons: put the comparison in parentheses after NOT)',
    ],
    ['a = NULL', 4, '"NULL" at column 5 cannot be compared with =: write IS NULL or IS NOT NULL'],
    ['TRUE = 1', 0, '"TRUE" at column 1 cannot be compared with "1" at column 8'],
    [
      'a BETWEEN 5 AND 1',
      10,
      'BETWEEN bound "5" at column 11 is greater than the upper bound "1" at column 17',
    ],
    ['a BETWEEN NULL AND 1', 10, 'BETWEEN bound "NULL" at column 11 must not be NULL'],
    ["-a IN ('x')", 0, '"-a" at column 1 cannot take IN: it needs a property on its left'],
    [
      "a LIKE 'x%'",
      2,
      'unexpected "LIKE" at column 3: expected AND, OR, a comparison or the end of the expression ' +
        '(LIKE is not supported: use CONTAINS, STARTSWITH or ENDSWITH)',
    ],
    [
      'a > 1 -- comment without a line break',
      6,
      'unexpected "-" at column 7: expected AND, OR, a comparison or the end of the expression ' +
        '(a -- comment must end with a line break)',
    ],
    [
      'a > 1\nAND b >',
      13,
      'unexpected end of expression after "a > 1\nAND b >" (line 2, column 8): expected a value',
    ],
  ])('%j', (expression, index, message) => {
    expect(checkSql92Filter(expression)).toEqual({ ok: false, index, message });
  });
});

describe('checkSql92Filter is stricter than the broker only about input after a complete filter', () => {
  // The broker compiles the first complete expression and ignores the rest (its grammar has no <EOF>):
  // these all compile there, to something other than what was written.
  it.each(["a LIKE 'x%'", 'a > 1 b < 2', 'a + 1 > 2', 'a > 1)', 'a = 0L', 'a = 007', 'a > 0x1F', 'a ISNULL'])(
    '%s',
    (expression) => {
      expect(verdict(expression)).toMatch(/expected AND, OR, a comparison or the end of the expression/);
    },
  );
});

describe('nesting', () => {
  const parenthesized = (depth: number) => `${'('.repeat(depth)}a > 1${')'.repeat(depth)}`;

  it(`accepts ${MAX_SQL92_NESTING} levels and refuses one more, with no stack overflow far beyond`, () => {
    expect(verdict(parenthesized(MAX_SQL92_NESTING))).toBe('ok');
    expect(verdict(`${'NOT '.repeat(MAX_SQL92_NESTING)}a`)).toBe('ok');
    expect(checkSql92Filter(parenthesized(MAX_SQL92_NESTING + 1))).toEqual({
      ok: false,
      index: MAX_SQL92_NESTING,
      message: `the filter nests deeper than ${MAX_SQL92_NESTING} levels at column ${MAX_SQL92_NESTING + 1}`,
    });
    expect(checkSql92Filter(parenthesized(100_000)).ok).toBe(false);
    expect(checkSql92Filter(`a > ${'-'.repeat(100_000)}1`).ok).toBe(false);
  });
});

describe('sql92-lexer', () => {
  it('lexes longest matches the way the broker does', () => {
    const lex = (source: string) => tokenize(source).map((token) => `${token.type}:${token.text}`);
    expect(lex("x>=5.e3 AND y<>'a''b' OR $z=.5")).toEqual([
      'identifier:x',
      'symbol:>=',
      'float:5.e3',
      'keyword:AND',
      'identifier:y',
      'symbol:<>',
      "string:'a''b'",
      'keyword:OR',
      'identifier:$z',
      'symbol:=',
      'float:.5',
      'end:',
    ]);
    expect(lex('007 0L 5L 5e notx')).toEqual([
      'integer:0',
      'integer:0',
      'integer:7',
      'integer:0',
      'identifier:L',
      'integer:5L',
      'integer:5',
      'identifier:e',
      'identifier:notx',
      'end:',
    ]);
    // `--` is a comment only when a line break ends it.
    expect(lex('- -- x\n--')).toEqual(['symbol:-', 'symbol:-', 'symbol:-', 'end:']);
  });

  it('counts columns in characters and lines from 1', () => {
    expect(where('a > 1', 4)).toBe('column 5');
    expect(where('😀 x', 3)).toBe('column 3');
    expect(where('a > 1\r\nOR b', 10)).toBe('line 2, column 4');
  });
});

// Generated filters: a filter is built from parts; CUT marks the end of a comparison operator, where
// a truncated filter ends mid-comparison.
const CUT = Object.freeze({ cut: true as const });
type Part = string | typeof CUT;

const keyword = (word: string) =>
  fc.constantFrom(word, word.toLowerCase(), `${word.charAt(0)}${word.slice(1).toLowerCase()}`);
const KEYWORDS = new Set('NOT AND OR BETWEEN IN TRUE FALSE NULL IS CONTAINS STARTSWITH ENDSWITH'.split(' '));
const identifier = fc
  .stringMatching(/^[A-Za-z_$][A-Za-z0-9_$]{0,6}$/)
  .filter((name) => !KEYWORDS.has(name.toUpperCase()));
const string = fc.string({ unit: 'binary', maxLength: 6 }).map((text) => `'${text.replaceAll("'", "''")}'`);
const integer = fc.bigInt({ min: 0n, max: 2n ** 63n - 1n });
const number = fc.oneof(
  integer.map(String),
  // The grammar has no `0L`: the suffix belongs to the non-zero form only.
  integer.filter((value) => value > 0n).map((value) => `${value}L`),
  // String(1e20) has neither '.' nor 'e': it would lex as an integer, out of the broker's range.
  fc
    .double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true })
    .map((value) => (/[.e]/.test(String(value)) ? String(value) : `${value}.0`)),
);
/** What `>`, `<` and BETWEEN accept: properties, numbers and negations. */
const ordered: fc.Arbitrary<Part[]> = fc.letrec<{ ordered: Part[] }>((tie) => ({
  ordered: fc.oneof(
    { maxDepth: 3 },
    identifier.map((name) => [name]),
    number.map((text) => [text]),
    tie('ordered').map((inner) => ['-', ...inner]),
    tie('ordered').map((inner) => ['(', ...inner, ')']),
  ),
})).ordered;
const value = fc.oneof(
  ordered,
  string.map((text): Part[] => [text]),
);

const comparison: fc.Arbitrary<Part[]> = fc.oneof(
  fc
    .tuple(ordered, fc.constantFrom('>', '>=', '<', '<='), ordered)
    .map(([left, op, right]) => [...left, op, CUT, ...right]),
  fc
    .tuple(
      value,
      fc.constantFrom('=', '<>'),
      fc.oneof(
        value,
        keyword('TRUE').map((t): Part[] => [t]),
      ),
    )
    .map(([left, op, right]) => [...left, op, CUT, ...right]),
  fc
    .tuple(value, keyword('IS'), fc.option(keyword('NOT'), { nil: undefined }), keyword('NULL'))
    .map(([left, is, not, nil]) => [...left, is, CUT, ...(not === undefined ? [] : [not, CUT]), nil]),
  fc
    .tuple(
      ordered,
      fc.option(keyword('NOT'), { nil: undefined }),
      keyword('BETWEEN'),
      integer,
      integer,
      keyword('AND'),
    )
    .map(([left, not, between, a, b, and]) => {
      const [low, high] = a <= b ? [a, b] : [b, a];
      return [
        ...left,
        ...(not === undefined ? [] : [not]),
        between,
        CUT,
        String(low),
        and,
        CUT,
        String(high),
      ];
    }),
  fc
    .tuple(
      identifier,
      fc.option(keyword('NOT'), { nil: undefined }),
      keyword('IN'),
      fc.array(string, { minLength: 1, maxLength: 4 }),
    )
    .map(([name, not, inKeyword, items]) => [
      name,
      ...(not === undefined ? [] : [not]),
      inKeyword,
      CUT,
      '(',
      CUT,
      ...items.flatMap((item, i): Part[] => (i === 0 ? [item] : [',', CUT, item])),
      ')',
    ]),
  fc
    .tuple(
      value,
      fc.option(keyword('NOT'), { nil: undefined }),
      fc.oneof(keyword('CONTAINS'), keyword('STARTSWITH'), keyword('ENDSWITH')),
      string,
    )
    .map(([left, not, op, text]) => [...left, ...(not === undefined ? [] : [not]), op, CUT, text]),
);
const filter: fc.Arbitrary<Part[]> = fc.letrec<{ filter: Part[] }>((tie) => ({
  filter: fc.oneof(
    { maxDepth: 4 },
    comparison,
    fc.oneof(identifier, keyword('TRUE'), keyword('FALSE'), keyword('NULL')).map((atom) => [atom]),
    fc.tuple(keyword('NOT'), tie('filter')).map(([not, inner]) => [not, '(', ...inner, ')']),
    fc
      .tuple(tie('filter'), fc.oneof(keyword('AND'), keyword('OR')), tie('filter'), fc.boolean())
      .map(([left, op, right, parenthesize]) => {
        const joined = [...left, op, ...right];
        return parenthesize ? ['(', ...joined, ')'] : joined;
      }),
  ),
})).filter;
// Every separator starts with whitespace, so no two tokens merge (e.g. `-` and a `--` comment).
const separators = fc.array(fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', '\f', ' /* c */ ', ' -- c\n'), {
  minLength: 1,
  maxLength: 5,
});

function render(parts: readonly Part[], between: readonly string[]): { text: string; cuts: number[] } {
  let text = '';
  const cuts: number[] = [];
  parts.forEach((part, i) => {
    if (part === CUT) {
      cuts.push(text.length);
      return;
    }
    if (text.length > 0) text += between[i % between.length];
    text += part;
  });
  return { text, cuts };
}

describe('generated filters', () => {
  it('accepts every filter built from the grammar', () => {
    fc.assert(
      fc.property(filter, separators, (parts, between) => {
        const { text } = render(parts, between);
        expect(verdict(text)).toBe('ok');
      }),
      { numRuns: 500 },
    );
  });

  it('rejects a filter truncated right after a comparison operator, at its end', () => {
    fc.assert(
      fc.property(filter, separators, (parts, between) => {
        const { text, cuts } = render(parts, between);
        for (const cut of cuts) {
          const check = checkSql92Filter(text.slice(0, cut));
          expect(check).toMatchObject({ ok: false, index: cut });
          expect(check.ok ? '' : check.message).toMatch(/^unexpected end of expression after /);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never throws, and points inside the input', () => {
    const alphabet = fc.constantFrom(..."ab1.e'()=<>-+,/*\n NOT AND IN IS NULL".split(''));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: alphabet })), (expression) => {
        const check = checkSql92Filter(expression);
        if (!check.ok) {
          expect(check.index).toBeGreaterThanOrEqual(0);
          expect(check.index).toBeLessThanOrEqual(expression.length);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
