/**
 * Every value a config problem quotes back is cut to MAX_ECHOED_CHARS with its full length noted (a 50 MB
 * `nameServer` was once echoed whole to stderr), a value under `acl` is never shown, and a config with
 * thousands of problems lists the first MAX_LISTED_PROBLEMS and counts the rest.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, MAX_LISTED_PROBLEMS, MAX_PROBLEM_CHARS } from '../../../src/config/config-error.js';
import { formatKeyPath } from '../../../src/config/config-problem.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { resolutionProblems } from '../../../src/serverless-service/serverless-variables.js';
import { echoedText, echoedValue, MAX_ECHOED_CHARS } from '../../../src/util/echoed-value.js';
import { problemsThrownBy } from '../../support/problems-thrown-by.js';

const LONG = 200_000;

const problemsOf = (raw: unknown, env: Record<string, string> = {}): readonly string[] =>
  problemsThrownBy(() => parseConfig(raw, { env }));

const config = (mapping: Record<string, unknown>, top: Record<string, unknown> = {}) => ({
  nameServer: '127.0.0.1:9876',
  offsets: { store: 'memory' },
  mappings: [{ topic: 'T', consumerGroup: 'G', function: 'orders', ...mapping }],
  ...top,
});

/** The one problem line about `key`, which must quote at most MAX_ECHOED_CHARS of the value. */
function lineAbout(problems: readonly string[], key: string): string {
  const line = problems.find((problem) => problem.startsWith(`${key}: `));
  if (line === undefined) throw new Error(`no problem about ${key}: ${problems.join('\n')}`);
  expect(line.length).toBeLessThan(MAX_ECHOED_CHARS + 300);
  return line;
}

describe('echoedValue and echoedText', () => {
  it('keep short values whole and cut long ones, noting the length', () => {
    expect(echoedValue('ns:9876')).toBe('"ns:9876"');
    expect(echoedValue('x'.repeat(MAX_ECHOED_CHARS))).toBe(`"${'x'.repeat(MAX_ECHOED_CHARS)}"`);
    expect(echoedValue('x'.repeat(MAX_ECHOED_CHARS + 1))).toBe(
      `"${'x'.repeat(MAX_ECHOED_CHARS)}…" (${MAX_ECHOED_CHARS + 1} characters)`,
    );
    expect(echoedText('y'.repeat(500), 10)).toBe('yyyyyyyyyy… (500 characters)');
  });

  it('never split a surrogate pair', () => {
    const text = `${'a'.repeat(MAX_ECHOED_CHARS - 1)}😀😀`;
    expect(echoedValue(text)).toBe(`"${'a'.repeat(MAX_ECHOED_CHARS - 1)}…" (${text.length} characters)`);
  });
});

describe('config problems cut what they echo', () => {
  it('nameServer, from the config and from NAMESRV_ADDR', () => {
    const line = lineAbout(problemsOf(config({}, { nameServer: 'x'.repeat(LONG) })), 'nameServer');
    expect(line).toBe(`nameServer: "${'x'.repeat(MAX_ECHOED_CHARS)}…" (${LONG} characters) is not host:port`);
    const { nameServer: _, ...withoutNameServer } = config({});
    lineAbout(problemsOf(withoutNameServer, { NAMESRV_ADDR: 'y'.repeat(LONG) }), 'nameServer');
    lineAbout(problemsOf(config({}, { nameServer: ['z'.repeat(LONG)] })), 'nameServer[0]');
  });

  it.each([
    [
      'startingPositionTimestamp',
      { startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: 'z'.repeat(LONG) },
    ],
    ['onFailure', { onFailure: 'q'.repeat(LONG) }],
    ['filter', { filter: ' || '.repeat(LONG / 4) }],
    ['filter.sql', { filter: { sql: `a = ${'b'.repeat(LONG)} AND` } }],
    ['startingPosition', { startingPosition: 'P'.repeat(LONG) }],
    ['batchSize', { batchSize: 'n'.repeat(LONG) }],
    ['function', { function: `local:./a.mjs#1${'w'.repeat(LONG)}` }],
  ])('mappings[0].%s', (key, mapping) => {
    lineAbout(problemsOf(config(mapping)), `mappings[0].${key}`);
  });

  it('duplicate names and consumer groups', () => {
    const group = 'g'.repeat(LONG);
    const problems = problemsOf({
      nameServer: '127.0.0.1:9876',
      offsets: { store: 'memory' },
      mappings: [
        { topic: 'T', consumerGroup: 'G', name: group, function: 'f' },
        { topic: 'T', consumerGroup: 'G', name: group, function: 'f' },
      ],
    });
    lineAbout(problems, 'mappings[1].name');
    lineAbout(problems, 'mappings[1].consumerGroup');
  });

  it('an unknown key of any length, with no "did you mean" for a long one', () => {
    const key = 'k'.repeat(LONG);
    const problems = problemsOf(config({ [key]: 1 }));
    expect(problems).toEqual([
      `mappings[0]["${'k'.repeat(MAX_ECHOED_CHARS)}…" (${LONG} characters)]: unknown key`,
    ]);
    expect(formatKeyPath(['a'.repeat(MAX_ECHOED_CHARS)])).toBe('a'.repeat(MAX_ECHOED_CHARS));
  });

  it('a value under acl is never shown, whatever its shape', () => {
    expect(problemsOf(config({}, { acl: 'Zq7xKp9wVt3mRb8y' }))).toEqual([
      'acl: must be a mapping of keys to values, got a string (value not shown)',
    ]);
    const problems = problemsOf(config({}, { acl: { accessKey: 'ak', secretKey: ['Zq7xKp9wVt3mRb8y'] } }));
    expect(problems.join('\n')).not.toContain('Zq7x');
    // `acl: { secretKey:Zq7x... }` (no space after the colon) is one key: not shown either.
    expect(
      problemsOf(
        config({}, { acl: { accessKey: 'ak', secretKey: 'sk', 'secretKey:Zq7xKp9wVt3mRb8y': null } }),
      ),
    ).toEqual(['acl: unknown key (the key is not shown: here it may be a secret)']);
    expect(problemsOf(config({}, { acl: { accessKey: 'ak', secretkey: 'Zq7xKp9wVt3mRb8y' } }))).toEqual([
      'acl.secretKey: required',
      'acl.secretkey: unknown key (did you mean secretKey?)',
    ]);
    expect(
      problemsOf(config({}, { acl: { accessKey: 'ak', secretKey: 'sk', Zq7xKp9wVt3mRb8y: 1 } })),
    ).toEqual(['acl: unknown key (the key is not shown: here it may be a secret)']);
  });

  it('thousands of problems: the first ones, then a count', () => {
    const raw = config({}, Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 1])));
    const problems = problemsOf(raw);
    expect(problems).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(problems[0]).toBe('k0: unknown key');
    expect(problems[MAX_LISTED_PROBLEMS]).toBe(`… and ${5000 - MAX_LISTED_PROBLEMS} more problems`);
  });

  it('any problem line is bounded, whatever made it', () => {
    const error = new ConfigError(['p'.repeat(LONG)]);
    expect(error.problems[0]).toBe(`${'p'.repeat(MAX_PROBLEM_CHARS)}… (${LONG} characters)`);
    expect(error.message.length).toBeLessThan(MAX_PROBLEM_CHARS + 100);
  });
});

describe('serverless.yml variables in problems', () => {
  it('cut the key, the variable and the reason', () => {
    const variable = `\${self:custom.${'v'.repeat(LONG)}}`;
    const [line] = resolutionProblems(
      `Cannot resolve serverless.yml: Variables resolution errored with:\n  - Cannot resolve variable at "custom.ns": ${'r'.repeat(LONG)}`,
      { custom: { ns: variable } },
    );
    expect(line?.startsWith('custom.ns: ${self:custom.vvv')).toBe(true);
    expect(line?.length).toBeLessThan(1000);
    expect(line).toContain(`(${variable.length} characters)`);
  });
});
