/**
 * Syntax errors never show the config's text: every class of JSON and YAML error, with a secret at or
 * around the error, from a string, a file and ROCKETMQ_LAMBDA_CONFIG; then every position of a valid
 * config broken in every way, and random edits (fast-check). Nothing the loaders produce (problem lines,
 * the error's message, its causes) may show four characters of the secret in a row.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { loadConfig, loadConfigFromEnv, parseConfigText } from '../../../src/config/load-config.js';
import { readServerlessYaml } from '../../../src/serverless-service/load-serverless-service.js';
import { describeError } from '../../../src/util/describe-error.js';
import {
  BROKEN_JSON,
  BROKEN_YAML,
  type BrokenDocument,
  SECRETS,
  shownPart,
  validJson,
  validYaml,
} from './broken-configs.js';

/** Everything a refusal can put in front of a person or a log: lines, message, causes. */
function outputOf(error: unknown): string {
  const parts = [describeError(error), String(error)];
  if (error instanceof ConfigError) parts.push(...error.problems, error.message);
  for (let cause = (error as Error).cause; cause !== undefined; cause = (cause as Error).cause) {
    parts.push(String(cause), (cause as Error).stack ?? '');
  }
  return parts.join('\n');
}

/** The ConfigError `run` throws; fails the test when it returns or throws anything else. */
function refusal(run: () => unknown): ConfigError {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  if (!(thrown instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(thrown)}`);
  return thrown;
}

async function asyncRefusal(run: () => Promise<unknown>): Promise<ConfigError> {
  const thrown = await run().then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(thrown instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(thrown)}`);
  return thrown;
}

const cases = (documents: readonly BrokenDocument[]) =>
  documents.flatMap((document) => SECRETS.map((secret) => [document.name, secret, document] as const));

describe('syntax errors never show the text', () => {
  it.each(cases(BROKEN_JSON))('JSON, %s (secret %s)', (_name, secret, document) => {
    const error = refusal(() => parseConfigText(document.text(secret), 'json'));
    expect(error.problems.length).toBe(1);
    expect(error.problems[0]).toMatch(/^line \d+, column \d+: invalid JSON: \w/);
    expect(shownPart(outputOf(error), secret)).toBeUndefined();
  });

  it.each(cases(BROKEN_YAML))('YAML, %s (secret %s)', (_name, secret, document) => {
    const error = refusal(() => parseConfigText(document.text(secret), 'yaml'));
    expect(error.problems.length).toBeGreaterThan(0);
    for (const line of error.problems) {
      expect(line).toMatch(/^(line \d+, column \d+|\(config\)): invalid YAML: \w/);
    }
    expect(shownPart(outputOf(error), secret)).toBeUndefined();
  });

  it('the probe of the issue: an unquoted secretKey gives its place, not its text', () => {
    const error = refusal(() =>
      parseConfigText('{"acl": {"accessKey": "ak",\n "secretKey":JsonSecret}}', 'json'),
    );
    expect(error.problems).toEqual([
      'line 2, column 14: invalid JSON: a letter where a value should be (is a string missing its double quotes? the only bare words are true, false and null)',
    ]);
  });
});

describe('from a file, ROCKETMQ_LAMBDA_CONFIG and serverless.yml', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rl-config-secrets-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a JSON config file, every class', async () => {
    for (const [name, secret, document] of cases(BROKEN_JSON)) {
      const file = path.join(dir, 'poller.json');
      await writeFile(file, document.text(secret));
      const error = await asyncRefusal(() => loadConfig(file, { env: {} }));
      expect(shownPart(outputOf(error), secret), name).toBeUndefined();
      // A sniffed format (no .json) goes the same way.
      const sniffed = path.join(dir, 'poller.conf');
      await writeFile(sniffed, document.text(secret));
      const other = await asyncRefusal(() => loadConfig(sniffed, { env: {} }));
      expect(shownPart(outputOf(other), secret), name).toBeUndefined();
    }
  });

  it('ROCKETMQ_LAMBDA_CONFIG, every JSON class', () => {
    for (const [name, secret, document] of cases(BROKEN_JSON)) {
      const error = refusal(() =>
        loadConfigFromEnv({ env: { ROCKETMQ_LAMBDA_CONFIG: document.text(secret) } }),
      );
      expect(shownPart(outputOf(error), secret), name).toBeUndefined();
    }
  });

  it('a YAML config file, every class', async () => {
    for (const [name, secret, document] of cases(BROKEN_YAML)) {
      const file = path.join(dir, 'poller.yaml');
      await writeFile(file, document.text(secret));
      const error = await asyncRefusal(() => loadConfig(file, { env: {} }));
      expect(shownPart(outputOf(error), secret), name).toBeUndefined();
    }
  });

  it('serverless.yml and serverless.json, every class', async () => {
    for (const [name, secret, document] of cases(BROKEN_YAML)) {
      const file = path.join(dir, 'serverless.yml');
      await writeFile(file, document.text(secret));
      const error = await asyncRefusal(() => readServerlessYaml(file));
      expect(error.problems.every((line) => /^(line \d+, column \d+|\(serverless\.yml\)): /.test(line))).toBe(
        true,
      );
      expect(shownPart(outputOf(error), secret), name).toBeUndefined();
    }
    for (const [name, secret, document] of cases(BROKEN_JSON)) {
      const file = path.join(dir, 'serverless.json');
      await writeFile(file, document.text(secret));
      const error = await asyncRefusal(() => readServerlessYaml(file));
      expect(shownPart(outputOf(error), secret), name).toBeUndefined();
    }
  });
});

/** What is inserted at each position: every character with a meaning in JSON or YAML, and a letter. */
const INSERTIONS = [
  '"',
  "'",
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '\\',
  '\t',
  '\n',
  '#',
  '&',
  '*',
  '!',
  '%',
  '@',
  '`',
  '|',
  '>',
  '-',
  '?',
  'x',
  '0',
  '\u00ab',
];

/** Every document made by deleting one character of `text`, or inserting one of {@link INSERTIONS}. */
function everyBreak(text: string): string[] {
  const broken: string[] = [];
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length) broken.push(text.slice(0, i) + text.slice(i + 1));
    for (const insertion of INSERTIONS) broken.push(text.slice(0, i) + insertion + text.slice(i));
  }
  return broken;
}

describe('a valid config broken at every position', () => {
  it.each(['json', 'yaml'] as const)('%s: each refusal shows no part of the secret', (format) => {
    const [secret] = SECRETS;
    const valid = format === 'json' ? validJson(secret) : validYaml(secret);
    expect(parseConfigText(valid, format)).toMatchObject({ acl: { secretKey: secret } });
    let refused = 0;
    for (const text of everyBreak(valid)) {
      let error: unknown;
      try {
        parseConfigText(text, format);
        continue;
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ConfigError);
      refused++;
      const shown = shownPart(outputOf(error), secret);
      if (shown !== undefined) expect.fail(`${JSON.stringify(text)} showed ${shown}: ${outputOf(error)}`);
    }
    // Most breaks are refused (a YAML plain value takes many characters as they are).
    expect(refused).toBeGreaterThan(format === 'json' ? 2000 : 1000);
  });
});

/**
 * Secrets of characters no refusal uses in its own words (no vowels, digits, spaces, or backslashes),
 * so that any four of them in a row in the output came from the secret.
 */
const randomSecret = fc
  .array(fc.constantFrom(...'BCDFGHKPQRVWXZbcdfghkpqvwxz/+='), { minLength: 12, maxLength: 24 })
  .map((chars) => chars.join(''));

/**
 * One edit: delete the character at a position, or insert a piece of syntax there; half of the
 * positions are within eight characters of where the secret starts, where an error shows most of it.
 */
const edit = fc.tuple(
  fc.oneof(fc.integer({ min: -8, max: 8 }), fc.constant(undefined)),
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.oneof(
    fc.constant(''),
    fc.constantFrom(...INSERTIONS),
    fc.constantFrom('": ', ', "', '\n  ', '- ', '{}', '[]'),
  ),
);

function applyEdits(
  text: string,
  secret: string,
  edits: readonly (readonly [number | undefined, number, string])[],
): string {
  let out = text;
  for (const [near, where, insertion] of edits) {
    const start = Math.max(0, out.indexOf(secret));
    const wanted = near !== undefined ? start + near : Math.floor(where * (out.length + 1));
    const at = Math.min(out.length, Math.max(0, wanted));
    out =
      insertion === '' ? out.slice(0, at) + out.slice(at + 1) : out.slice(0, at) + insertion + out.slice(at);
  }
  return out;
}

describe('random edits of a valid config (fast-check)', () => {
  it.each(['json', 'yaml'] as const)('%s: no refusal shows four characters of the secret', (format) => {
    fc.assert(
      fc.property(randomSecret, fc.array(edit, { minLength: 1, maxLength: 6 }), (secret, edits) => {
        const text = applyEdits(format === 'json' ? validJson(secret) : validYaml(secret), secret, edits);
        try {
          parseConfigText(text, format);
          return true;
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          return shownPart(outputOf(error), secret) === undefined;
        }
      }),
      { numRuns: 400 },
    );
  });
});
