/**
 * The bounds of reading config text: an alias bomb, nesting, documents, duplicate keys, each one line
 * of ConfigError (never a ReferenceError or RangeError from the parser), and what stays accepted.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { MAX_CONFIG_DEPTH, MAX_YAML_ALIAS_COUNT } from '../../../src/config/config-syntax.js';
import { parseConfigText } from '../../../src/config/load-config.js';
import { readServerlessYaml } from '../../../src/serverless-service/load-serverless-service.js';
import { BROKEN_YAML } from './broken-configs.js';
import { textProblems } from './config-text-problems.js';

/** `levels` lists nested in one another around `inner`, as flow text. */
const nestedLists = (levels: number, inner: string): string =>
  `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

/** `levels` mappings nested in one another, as block YAML. */
const nestedBlocks = (levels: number): string =>
  `${Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}k:`).join('\n')} x\n`;

describe('a YAML alias bomb', () => {
  it('is one line, not a ReferenceError', () => {
    const bomb = BROKEN_YAML.find((document) => document.name === 'alias bomb');
    expect(bomb).toBeDefined();
    expect(textProblems(bomb?.text('lol') ?? '', 'yaml')).toEqual([
      `(config): invalid YAML: aliases expand more than ${MAX_YAML_ALIAS_COUNT} times (an alias bomb?)`,
    ]);
  });

  it('anchors that share settings between mappings are read', () => {
    const text = `defaults: &defaults { batchSize: 10, maxConcurrency: 2 }\nmappings:\n${Array.from(
      { length: 20 },
      (_, i) => `  - { topic: T${i}, settings: *defaults }`,
    ).join('\n')}\n`;
    const value = parseConfigText(text, 'yaml') as { mappings: { settings: unknown }[] };
    expect(value.mappings).toHaveLength(20);
    expect(value.mappings[19]?.settings).toEqual({ batchSize: 10, maxConcurrency: 2 });
  });

  it('an alias used before its anchor, and an anchor that contains itself', () => {
    expect(textProblems('a: *x\nb: &x 1\n', 'yaml')).toEqual([
      '(config): invalid YAML: an alias (*name) used before its anchor (&name)',
    ]);
    expect(textProblems('a: &a [*a]\n', 'yaml')).toEqual([
      `(config): invalid YAML: nested more than ${MAX_CONFIG_DEPTH} levels deep`,
    ]);
  });

  it('in serverless.yml too', async () => {
    const bomb = BROKEN_YAML.find((document) => document.name === 'alias bomb');
    const dir = await mkdtemp(path.join(tmpdir(), 'rl-bomb-'));
    try {
      const file = path.join(dir, 'serverless.yml');
      await writeFile(file, bomb?.text('lol') ?? '');
      const error = await readServerlessYaml(file).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        `(serverless.yml): invalid YAML: aliases expand more than ${MAX_YAML_ALIAS_COUNT} times (an alias bomb?)`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('nesting', () => {
  it(`${MAX_CONFIG_DEPTH} levels are read, one more is refused (JSON)`, () => {
    expect(() => parseConfigText(nestedLists(MAX_CONFIG_DEPTH, '1'), 'json')).not.toThrow();
    expect(textProblems(nestedLists(MAX_CONFIG_DEPTH + 1, '1'), 'json')).toEqual([
      `line 1, column ${MAX_CONFIG_DEPTH + 1}: invalid JSON: nested more than ${MAX_CONFIG_DEPTH} levels deep`,
    ]);
  });

  it(`${MAX_CONFIG_DEPTH} levels are read, one more is refused (YAML flow and block)`, () => {
    expect(() => parseConfigText(nestedLists(MAX_CONFIG_DEPTH, '1'), 'yaml')).not.toThrow();
    expect(textProblems(nestedLists(MAX_CONFIG_DEPTH + 1, '1'), 'yaml')).toEqual([
      `line 1, column ${MAX_CONFIG_DEPTH + 1}: invalid YAML: nested more than ${MAX_CONFIG_DEPTH} levels deep`,
    ]);
    expect(() => parseConfigText(nestedBlocks(MAX_CONFIG_DEPTH), 'yaml')).not.toThrow();
    expect(textProblems(nestedBlocks(MAX_CONFIG_DEPTH + 1), 'yaml')).toEqual([
      `(config): invalid YAML: nested more than ${MAX_CONFIG_DEPTH} levels deep`,
    ]);
  });

  it('brackets in quotes and comments do not count', () => {
    const text = `a: "${'['.repeat(200)}"\n# ${'{'.repeat(200)}\nb: '${'['.repeat(200)}'\n`;
    expect(parseConfigText(text, 'yaml')).toEqual({ a: '['.repeat(200), b: '['.repeat(200) });
  });

  it('a megabyte of brackets is refused at the first level too many, JSON and YAML', () => {
    const text = '['.repeat(1024 * 1024 - 8);
    expect(textProblems(text, 'json')).toEqual([
      `line 1, column ${MAX_CONFIG_DEPTH + 1}: invalid JSON: nested more than ${MAX_CONFIG_DEPTH} levels deep`,
    ]);
    expect(textProblems(`a: ${text}`, 'yaml')).toEqual([
      `line 1, column ${MAX_CONFIG_DEPTH + 4}: invalid YAML: nested more than ${MAX_CONFIG_DEPTH} levels deep`,
    ]);
  });

  it('block nesting past the parser stack is one line, not a RangeError', () => {
    const problems = textProblems(nestedBlocks(1400), 'yaml');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^line \d+, column \d+: invalid YAML: nested too deeply/);
  });
});

describe('documents and keys', () => {
  it('one YAML document only', () => {
    expect(textProblems('a: 1\n---\nb: 2\n---\nc: 3\n', 'yaml')).toEqual([
      'line 2, column 1: invalid YAML: more than one document (a config is one document: remove the ---)',
    ]);
    expect(parseConfigText('---\na: 1\n', 'yaml')).toEqual({ a: 1 });
  });

  it('a key given twice is refused in YAML (also 1 and "1") and in JSON (also "a" and "\\u0061")', () => {
    expect(textProblems('a: 1\nb: { x: 1, x: 2 }\na: 2\n', 'yaml')).toEqual([
      'line 2, column 12: invalid YAML: a duplicate key (each key may appear once)',
      'line 3, column 1: invalid YAML: a duplicate key (each key may appear once)',
    ]);
    expect(textProblems('1: a\n"1": b\n', 'yaml')).toEqual([
      'line 2, column 1: invalid YAML: a duplicate key (each key may appear once)',
    ]);
    expect(textProblems('{"a": 1, "\\u0061": 2}', 'json')).toEqual([
      'line 1, column 10: invalid JSON: a duplicate key (each key may appear once)',
    ]);
    // The same key in two mappings is two keys.
    expect(parseConfigText('{"m": [{"a": 1}, {"a": 2}]}', 'json')).toEqual({ m: [{ a: 1 }, { a: 2 }] });
  });

  it('many keys are checked in one pass', () => {
    const yaml = `${Array.from({ length: 9_000 }, (_, i) => `k${i}: ${i}`).join('\n')}\nk7: again\n`;
    expect(textProblems(yaml, 'yaml')).toEqual([
      'line 9001, column 1: invalid YAML: a duplicate key (each key may appear once)',
    ]);
  });

  it('CloudFormation tags of serverless.yml read as their value', () => {
    expect(parseConfigText('a: !Ref Orders\nb: !GetAtt Q.Arn\n', 'yaml')).toEqual({
      a: 'Orders',
      b: 'Q.Arn',
    });
  });
});
