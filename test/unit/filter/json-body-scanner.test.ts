/**
 * The body scanner (src/filter/json-body-scanner.ts) against JSON.parse of the same bytes as the oracle
 * (src/filter/json-body.ts, the path text bodies take): on random valid bodies, on random mutations of
 * them (mostly invalid), and through whole filters on random patterns and records.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BodyKeyNode, bodyKeyTree } from '../../../src/filter/body-key-tree.js';
import { MAX_BODY_JSON_BYTES, MAX_EVENT_ARRAY_NESTING } from '../../../src/filter/filter-limits.js';
import { NOT_JSON, parseJsonBody } from '../../../src/filter/json-body.js';
import { JsonBodyScanner } from '../../../src/filter/json-body-scanner.js';
import { compileFilter } from '../../../src/filter/message-filter.js';
import { compilePatternNode } from '../../../src/filter/pattern-node.js';
import {
  jsonBodyArb,
  mutatedBodyArb,
  SCANNER_KEYS,
  writtenValueArb,
} from '../../support/filter/json-text-arbitraries.js';
import { recordArb, topPatternArb } from '../../support/filter/pattern-arbitraries.js';

/** Generous: thousands of runs on a machine shared with other work. */
const PROPERTY_TIMEOUT_MS = 120_000;

const RUNS = {
  numRuns: Number(process.env.FILTER_PROPERTY_RUNS ?? 2000),
  seed: Number(process.env.FILTER_PROPERTY_SEED ?? 33),
};

/** `{"body": {"a": {"b": [{"exists": true}]}}}` for the path a.b. */
function pathPattern(path: readonly string[]): Record<string, unknown> {
  let inner: unknown = [{ exists: true }];
  for (const key of [...path].reverse()) inner = { [key]: inner };
  return { body: inner };
}

/** The tree of the keys that patterns reading `paths` inside the body read. */
function treeOf(paths: readonly (readonly string[])[]): BodyKeyNode {
  return bodyKeyTree(
    paths.map((path, index) => compilePatternNode(pathPattern(path), `f[${index}]`, true, 1)),
  );
}

/** Paths into the body over keys that bodies use too. */
const pathsArb = fc.array(fc.array(fc.constantFrom(...SCANNER_KEYS), { minLength: 1, maxLength: 3 }), {
  minLength: 1,
  maxLength: 5,
});

/** `value` (JSON.parse's) with only `node`'s keys, arrays nested past MAX_EVENT_ARRAY_NESTING emptied: what the scanner must give. */
function prune(value: unknown, node: BodyKeyNode, nesting: number): unknown {
  if (Array.isArray(value)) {
    return nesting >= MAX_EVENT_ARRAY_NESTING
      ? []
      : value.map((element) => prune(element, node, nesting + 1));
  }
  if (typeof value !== 'object' || value === null) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, child] of node.byKey) {
    if (Object.hasOwn(value, key)) {
      const inner = prune((value as Record<string, unknown>)[key], child.node, 0);
      Object.defineProperty(kept, key, {
        value: inner,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
  }
  return kept;
}

/** What the scanner must answer for `bytes`: NOT_JSON when JSON.parse refuses them, else the pruned value. */
function expected(bytes: Uint8Array, tree: BodyKeyNode): unknown {
  const parsed = parseJsonBody(bytes);
  return parsed === NOT_JSON ? NOT_JSON : prune(parsed, tree, 0);
}

function scan(bytes: Uint8Array, paths: readonly (readonly string[])[]): { got: unknown; want: unknown } {
  const tree = treeOf(paths);
  return { got: new JsonBodyScanner(tree).scan(bytes), want: expected(bytes, tree) };
}

describe('JsonBodyScanner against JSON.parse', () => {
  it(
    'reads random valid bodies as JSON.parse does, keeping only the keys patterns read',
    () => {
      fc.assert(
        fc.property(jsonBodyArb, pathsArb, (bytes, paths) => {
          const { got, want } = scan(bytes, paths);
          expect(want).not.toBe(NOT_JSON);
          expect(got).toStrictEqual(want);
        }),
        RUNS,
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'finds exactly the mutated bodies JSON.parse refuses invalid, and reads the others as it does',
    () => {
      let invalid = 0;
      fc.assert(
        fc.property(mutatedBodyArb, pathsArb, (bytes, paths) => {
          const { got, want } = scan(bytes, paths);
          if (want === NOT_JSON) invalid++;
          expect(got).toStrictEqual(want);
        }),
        RUNS,
      );
      // The mutations make invalid bodies most of the time (else the test would not test the checks).
      expect(invalid).toBeGreaterThan(RUNS.numRuns / 2);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'a filter answers the same on a body as bytes (the scanner) and as text (JSON.parse)',
    () => {
      const caseArb = fc.tuple(
        fc.array(topPatternArb, { minLength: 1, maxLength: 3 }),
        recordArb.chain((record) => writtenValueArb(record.body).map((text) => ({ record, text }))),
      );
      fc.assert(
        fc.property(caseArb, ([patterns, { record, text }]) => {
          let filter: ReturnType<typeof compileFilter>;
          try {
            filter = compileFilter(patterns);
          } catch {
            return; // a refused pattern (a field both outside and inside $or) has no answer to compare
          }
          const bytes = Buffer.from(text, 'utf8');
          expect(filter.matches(record.metadata, bytes)).toBe(filter.matches(record.metadata, text));
        }),
        RUNS,
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe('JsonBodyScanner cases', () => {
  const a = [['a']];
  const read = (text: string | Uint8Array, paths: readonly (readonly string[])[] = a): unknown => {
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    const { got, want } = scan(bytes, paths);
    expect(got).toStrictEqual(want);
    return got;
  };
  const object = (entries: Record<string, unknown>): Record<string, unknown> => ({ ...entries });

  it('keeps the last of duplicate keys, escaped or not, and reads -0, big and long numbers as JSON.parse', () => {
    expect(
      read('{"a": 1, "a": {"x": 2}, "\\u0061": [3, -0, 9007199254740993, 1e400, 0.1e-5]}'),
    ).toStrictEqual(object({ a: [3, -0, 2 ** 53, Number.POSITIVE_INFINITY, 1e-6] }));
  });

  it('treats a key __proto__ as a plain key', () => {
    const kept = object({});
    Object.defineProperty(kept, '__proto__', {
      value: object({ a: 1 }),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    expect(read('{"__proto__": {"a": 1}}', [['__proto__', 'a']])).toStrictEqual(kept);
  });

  it('matches keys written with escapes and surrogate pairs, and invalid UTF-8 as U+FFFD', () => {
    expect(read('{"\\ud83d\\ude00": "\\u00e9\\/\\n"}', [['😀']])).toStrictEqual(object({ '😀': 'é/\n' }));
    expect(read('{"\\ud800": "lone"}', [['\uD800']])).toStrictEqual(object({ '\uD800': 'lone' }));
    const invalidKey = Buffer.concat([
      Buffer.from('{"'),
      Buffer.from([0xff]),
      Buffer.from('": "\xff"}', 'latin1'),
    ]);
    expect(read(invalidKey, [['\uFFFD']])).toStrictEqual(object({ '\uFFFD': '\uFFFD' }));
  });

  it('refuses a BOM, controls in strings, bad escapes, bad numbers and trailing bytes', () => {
    for (const text of [
      '\uFEFF{"a":1}',
      '{"a":"\t"}',
      '{"b":"\t"}',
      '{"b":"\\x"}',
      '{"b":"\\u12g4"}',
      '{"a":01}',
      '{"b":-}',
      '{"b":1.}',
      '{"b":1e}',
      '{"a":1} x',
      '{"a":1,}',
      '[1,]',
      '{"a" 1}',
      'tru',
      '',
    ]) {
      expect(read(text), text).toBe(NOT_JSON);
    }
    const longString = `{"b":"${'x'.repeat(100)}\u0001${'x'.repeat(100)}"}`;
    expect(read(longString)).toBe(NOT_JSON);
    expect(read(`{"b":"${'x'.repeat(100)}\\q"}`)).toBe(NOT_JSON);
    expect(
      read(`{"b":"${'x'.repeat(100)}\\"${'y'.repeat(50)}","a":"${'z'.repeat(40)}\\u0041"}`),
    ).toStrictEqual(object({ a: `${'z'.repeat(40)}A` }));
  });

  it('reads a Uint8Array that is not a Buffer, at an offset into its memory', () => {
    const memory = new Uint8Array(64);
    const text = Buffer.from('{"a":"v"}');
    memory.set(text, 7);
    expect(read(memory.subarray(7, 7 + text.length))).toStrictEqual(object({ a: 'v' }));
  });

  it('checks nesting far deeper than the stack would allow, kept or stepped over', () => {
    // Within MAX_BODY_JSON_BYTES; JSON.parse (the oracle) has no nesting limit either.
    const deep = 60_000;
    const arrays = `${'['.repeat(deep)}${']'.repeat(deep)}`;
    const got = read(`{"a":${arrays},"b":${arrays}}`) as Record<string, unknown>;
    expect(Array.isArray(got.a)).toBe(true);
    expect(read(`{"a":${'['.repeat(deep)}}`)).toBe(NOT_JSON);
    const objects = `${'{"a":'.repeat(deep * 0.6)}1${'}'.repeat(deep * 0.6)}`;
    expect(read(objects, [['a', 'a', 'a']])).toStrictEqual(
      object({ a: object({ a: object({ a: object({}) }) }) }),
    );
  });

  it('empties arrays nested past MAX_EVENT_ARRAY_NESTING, which the matcher does not look into', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    const got = read(`{"a":${nested(MAX_EVENT_ARRAY_NESTING + 3)}}`) as Record<string, unknown>;
    let value = got.a;
    let depth = 0;
    while (Array.isArray(value) && value.length > 0) {
      value = value[0];
      depth++;
    }
    expect(depth).toBe(MAX_EVENT_ARRAY_NESTING);
  });

  it('reads a body of MAX_BODY_JSON_BYTES and refuses a byte more', () => {
    const frame = '{"a":1,"b":""}';
    const full = frame.replace('""', `"${'x'.repeat(MAX_BODY_JSON_BYTES - frame.length)}"`);
    expect(Buffer.byteLength(full)).toBe(MAX_BODY_JSON_BYTES);
    expect(read(full)).toStrictEqual(object({ a: 1 }));
    expect(read(`${full} `)).toBe(NOT_JSON);
  });
});
