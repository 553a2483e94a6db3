/**
 * How much of a config text is read before it is refused: a document made of syntax errors stops at the
 * first ones, and the size of a document is bounded in tokens (YAML) and in keys and values (JSON), so
 * any text under the byte cap is refused or read in bounded time and memory.
 */
import { describe, expect, it } from 'vitest';
import { MAX_CONFIG_BYTES } from '../../../src/config/config-file-text.js';
import {
  MAX_CONFIG_DEPTH,
  MAX_JSON_ITEMS,
  MAX_SYNTAX_LINES,
  MAX_YAML_TOKENS,
} from '../../../src/config/config-syntax.js';
import { parseConfigText } from '../../../src/config/load-config.js';
import { textProblems } from './config-text-problems.js';

/** `unit` repeated to just under `bytes`. */
const repeatedTo = (unit: string, bytes: number): string => unit.repeat(Math.floor(bytes / unit.length));

/** `count` lines `k<i>: <i>`: five tokens each (key, `:`, space, value, line break). */
const keyLines = (count: number): string => Array.from({ length: count }, (_, i) => `k${i}: ${i}\n`).join('');

describe('a YAML document made of syntax errors', () => {
  it(`is refused at the first ${MAX_SYNTAX_LINES} errors, and reading stops there`, () => {
    // A megabyte of errors: the package built an error object for each (580,000: 6 s, 1 GB). The stray
    // bracket at the very end is refused by name wherever it is read, so it shows whether reading
    // went on past the first errors.
    const text = `${repeatedTo('- a\nb: 1\n', MAX_CONFIG_BYTES - 16)}]\n`;
    const problems = textProblems(text, 'yaml');
    expect(problems).toHaveLength(MAX_SYNTAX_LINES + 1);
    for (const problem of problems.slice(0, MAX_SYNTAX_LINES)) {
      expect(problem).toMatch(/^line [2-5], column \d+: invalid YAML: an unexpected character or token/);
    }
    expect(problems[MAX_SYNTAX_LINES]).toBe(
      `… and more syntax errors from line 6 on (reading stops after ${MAX_SYNTAX_LINES})`,
    );
  });

  it('errors found while composing the document stop at the first ones too', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `k${i}: "\\q"\n`).join('');
    expect(textProblems(text, 'yaml')).toEqual([
      ...Array.from(
        { length: MAX_SYNTAX_LINES },
        (_, i) =>
          `line ${i + 1}, column ${String(i).length + 5}: invalid YAML: a bad escape in a double-quoted string (a backslash is written \\\\)`,
      ),
      `… and more syntax errors from line ${MAX_SYNTAX_LINES + 1} on (reading stops after ${MAX_SYNTAX_LINES})`,
    ]);
  });

  it('a few errors are all listed, without the line about stopping', () => {
    expect(textProblems('- a\nb: 1\n', 'yaml')).toEqual([
      'line 2, column 1: invalid YAML: an unexpected character or token (an unclosed quote, or a stray : - { } [ ] ,?)',
      'line 2, column 2: invalid YAML: an unexpected character or token (an unclosed quote, or a stray : - { } [ ] ,?)',
      'line 2, column 4: invalid YAML: an unexpected character or token (an unclosed quote, or a stray : - { } [ ] ,?)',
    ]);
  });
});

describe('the size of a YAML document in tokens', () => {
  it(`${MAX_YAML_TOKENS} tokens are read, the first one more is refused where it stands`, () => {
    const lines = MAX_YAML_TOKENS / 5;
    const value = parseConfigText(keyLines(lines), 'yaml') as Record<string, number>;
    expect(Object.keys(value)).toHaveLength(lines);
    expect(textProblems(`${keyLines(lines)}last: 1\n`, 'yaml')).toEqual([
      `line ${lines + 1}, column 1: invalid YAML: more than ${MAX_YAML_TOKENS} tokens (keys, values, indicators, spaces): larger than a config needs (is this the right file?)`,
    ]);
  });

  it('a megabyte of valid small tokens is refused at the limit, not read whole', () => {
    const problems = textProblems(repeatedTo('- - - - -\n', MAX_CONFIG_BYTES), 'yaml');
    expect(problems).toEqual([
      `line ${MAX_YAML_TOKENS / 10 + 1}, column 1: invalid YAML: more than ${MAX_YAML_TOKENS} tokens (keys, values, indicators, spaces): larger than a config needs (is this the right file?)`,
    ]);
  });

  it('block nesting thousands of levels deep is refused within the first few hundred characters', () => {
    // The parser and the composer used to take the whole line (and overflow the stack) first.
    const problems = textProblems(`${'- '.repeat(20_000)}x\n`, 'yaml');
    expect(problems).toHaveLength(1);
    const match = /^line 1, column (\d+): invalid YAML: nested too deeply \(at most 64 levels\)$/.exec(
      problems[0] ?? '',
    );
    expect(match).not.toBeNull();
    expect(Number(match?.[1])).toBeLessThanOrEqual(8 * MAX_CONFIG_DEPTH);
  });
});

describe('the size of a JSON document in keys and values', () => {
  // `{"nameServer": [...]}`: the object, the key and the list are three items.
  const list = (elements: number): string => `{"nameServer":[${Array(elements).fill('1').join(',')}]}`;

  it(`${MAX_JSON_ITEMS} keys and values are read, the first one more is refused where it stands`, () => {
    const elements = MAX_JSON_ITEMS - 3;
    expect((parseConfigText(list(elements), 'json') as { nameServer: number[] }).nameServer).toHaveLength(
      elements,
    );
    expect(textProblems(list(elements + 1), 'json')).toEqual([
      `line 1, column ${'{"nameServer":['.length + 2 * elements + 1}: invalid JSON: more than ${MAX_JSON_ITEMS} keys and values: larger than a config needs (is this the right file?)`,
    ]);
  });

  it('keys count as items', () => {
    const keys = (count: number): string =>
      `{${Array.from({ length: count }, (_, i) => `"k${i}":1`).join(',')}}`;
    // The object, then a key and a value each.
    const fits = Math.floor((MAX_JSON_ITEMS - 1) / 2);
    expect(() => parseConfigText(keys(fits), 'json')).not.toThrow();
    expect(textProblems(keys(fits + 1), 'json')[0]).toMatch(
      new RegExp(`^line 1, column \\d+: invalid JSON: more than ${MAX_JSON_ITEMS} keys and values`),
    );
  });
});
