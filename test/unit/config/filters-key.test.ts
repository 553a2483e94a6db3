/**
 * `filters` of a mapping (filter criteria, docs/filtering.md): accepted as JSON strings and objects, kept
 * as written for the poller to compile, and refused at validation with the key path of the bad part, on the
 * run config; beside the broker's `filter`, which it does not replace.
 */
import { describe, expect, it } from 'vitest';
import { patternKeyPath } from '../../../src/config/filter-criteria-problems.js';
import { parse, problems, raw } from './one-mapping-config.js';

describe('mappings[].filters', () => {
  it('is kept as written, beside the broker-side filter', () => {
    const filters = ['{"tags": ["paid"]}', { body: { status: ['paid'] } }];
    const [mapping] = parse(raw({ filter: 'TagA || TagB', filters })).mappings;
    expect(mapping?.filters).toEqual(filters);
    expect(mapping?.filter).toEqual({ type: 'TAG', expression: 'TagA || TagB' });
  });

  it('is absent when not set', () => {
    expect(parse(raw()).mappings[0]?.filters).toBeUndefined();
  });

  it.each([
    [
      [{ tags: ['x'] }, { body: { status: [{ numeric: ['>>', 1] }] } }],
      "mappings[0].filters[1].body.status[0].numeric: expected an operator ('<', '<=', '=', '>=', '>') followed by a number",
    ],
    [['{"tags": ['], /^mappings\[0\]\.filters\[0\]: not valid JSON \(/],
    [
      [{ 'detail-type': [{ wildcard: 'a**b' }] }],
      /^mappings\[0\]\.filters\[0\]\["detail-type"\]\[0\]\.wildcard: /,
    ],
    [[{ $or: [{ tags: ['a'] }] }], /^mappings\[0\]\.filters\[0\]\.\$or: /],
    [[], /^mappings\[0\]\.filters: no patterns: give at least one/],
    [
      [{ a: ['1'] }, { a: ['2'] }, { a: ['3'] }, { a: ['4'] }, { a: ['5'] }, { a: ['6'] }],
      /^mappings\[0\]\.filters: 6 patterns, more than the 5 allowed/,
    ],
  ])('refuses %j with the path of the bad part', (filters, line) => {
    expect(problems(raw({ filters }))).toEqual([
      typeof line === 'string' ? line : expect.stringMatching(line),
    ]);
  });

  it('leaves values of the wrong type to the schema, one line each', () => {
    expect(problems(raw({ filters: '{"tags": ["a"]}' }))).toEqual([
      'mappings[0].filters: must be a list, got "{\\"tags\\": [\\"a\\"]}"',
    ]);
    expect(problems(raw({ filters: [5] }))).toEqual([
      'mappings[0].filters[0]: must be a filter pattern: a JSON string or an object, got 5',
    ]);
  });

  it('reports a bad broker filter and a bad pattern together', () => {
    expect(problems(raw({ filter: { sql: 'a >' }, filters: [{ tags: 'x' }] }))).toEqual([
      expect.stringMatching(/^mappings\[0\]\.filter\.sql: invalid SQL92 filter/),
      expect.stringMatching(/^mappings\[0\]\.filters\[0\]\.tags: /),
    ]);
  });
});

describe('patternKeyPath', () => {
  it('reads the steps of a filter path back', () => {
    expect(patternKeyPath('filters[1].body.status[0].numeric')).toEqual([1, 'body', 'status', 0, 'numeric']);
    expect(patternKeyPath('filters[0]["detail-type"].$or[2]')).toEqual([0, 'detail-type', '$or', 2]);
    expect(patternKeyPath('filters[0]["a\\"b"]')).toEqual([0, 'a"b']);
    expect(patternKeyPath('filters')).toEqual([]);
  });
});
