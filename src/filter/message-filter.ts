import { bodyKeyTree } from './body-key-tree.js';
import type { FieldRule, LeafTest } from './field-rule.js';
import {
  DEFAULT_MAX_FILTER_PATTERNS,
  MAX_EVENT_ARRAY_NESTING,
  MAX_FILTER_PATTERNS_LIMIT,
  MAX_PATTERN_CHARS,
} from './filter-limits.js';
import { FilterPatternError } from './filter-pattern-error.js';
import { NOT_JSON, parseJsonBody } from './json-body.js';
import { JsonBodyScanner } from './json-body-scanner.js';
import { describeJsonValue } from './json-value-description.js';
import { compilePatternNode, type PatternNode } from './pattern-node.js';
import { indexPath } from './pattern-path.js';

/**
 * Filter criteria in the EventBridge pattern language that Lambda's event filtering uses, compiled once
 * into a matcher of messages. A message is its metadata (a plain JSON object the caller builds: topic,
 * tags, keys, properties, ...) plus its body, seen as the field `body` when it is JSON. A message
 * matches when any pattern matches; a pattern matches when all its fields match. The body is read
 * only when some pattern looks inside it, once per message, and only up to MAX_BODY_JSON_BYTES; a body
 * that is not JSON matches only the patterns (and `$or` branches) that do not look inside it. A byte
 * body is read by json-body-scanner.ts, which checks all of it but builds only the keys the patterns
 * read (body-key-tree.ts); a text body is parsed whole (json-body.ts).
 * docs/filtering.md describes the language, the bounds and the differences from Lambda.
 */

/** Options of {@link compileFilter}. */
export interface FilterOptions {
  /**
   * Patterns allowed, 1 to {@link MAX_FILTER_PATTERNS_LIMIT} (Lambda's raised quota).
   * @default DEFAULT_MAX_FILTER_PATTERNS (5, Lambda's default quota)
   */
  maxPatterns?: number;
  /** Where the patterns are, for error messages. @default 'filters' */
  path?: string;
}

/** A compiled filter. */
export interface MessageFilter {
  /** How many patterns it has (a message matching any one passes). */
  readonly patternCount: number;
  /** Some pattern looks inside `body`: {@link MessageFilter.matches} may parse the body. */
  readonly readsBody: boolean;
  /**
   * Whether the message passes: `metadata` is the record's fields (its own `body` key, if any, is not
   * read), `body` the message body as bytes or text.
   */
  matches(metadata: Readonly<Record<string, unknown>>, body?: Uint8Array | string): boolean;
}

/**
 * Compiles `patterns` (each a JSON string or an object, as Lambda's `FilterCriteria.Filters[].Pattern`),
 * or throws a {@link FilterPatternError} naming the bad part (`filters[1].body.status[0].numeric: ...`).
 */
export function compileFilter(patterns: unknown, options: FilterOptions = {}): MessageFilter {
  const path = options.path ?? 'filters';
  const maxPatterns = options.maxPatterns ?? DEFAULT_MAX_FILTER_PATTERNS;
  if (!Number.isInteger(maxPatterns) || maxPatterns < 1 || maxPatterns > MAX_FILTER_PATTERNS_LIMIT) {
    throw new FilterPatternError(
      `${path} (maxPatterns)`,
      `expected an integer from 1 to ${MAX_FILTER_PATTERNS_LIMIT} (MAX_FILTER_PATTERNS_LIMIT); got ${String(maxPatterns)}`,
    );
  }
  if (!Array.isArray(patterns)) {
    throw new FilterPatternError(path, `expected an array of patterns; got ${describeJsonValue(patterns)}`);
  }
  if (patterns.length === 0) {
    throw new FilterPatternError(
      path,
      'no patterns: give at least one (leave the filter out to pass every message)',
    );
  }
  if (patterns.length > maxPatterns) {
    throw new FilterPatternError(
      path,
      `${patterns.length} patterns, more than the ${maxPatterns} allowed (maxPatterns; Lambda's default quota is ${DEFAULT_MAX_FILTER_PATTERNS}, at most ${MAX_FILTER_PATTERNS_LIMIT})`,
    );
  }
  const nodes = patterns.map((pattern, index) => {
    const at = indexPath(path, index);
    return compilePatternNode(patternObject(pattern, at), at, true, 1);
  });
  return new CompiledFilter(nodes);
}

/** A pattern as an object: a JSON string parsed, an object checked for size. */
function patternObject(pattern: unknown, path: string): unknown {
  const text = typeof pattern === 'string' ? pattern : JSON.stringify(pattern);
  if (text === undefined)
    throw new FilterPatternError(path, `expected a JSON string or an object; got ${typeof pattern}`);
  if (text.length > MAX_PATTERN_CHARS) {
    throw new FilterPatternError(
      path,
      `${text.length} characters of JSON, more than ${MAX_PATTERN_CHARS} (MAX_PATTERN_CHARS, Lambda's limit per pattern)`,
    );
  }
  if (typeof pattern !== 'string') return pattern;
  try {
    return JSON.parse(pattern) as unknown;
  } catch (error) {
    throw new FilterPatternError(
      path,
      `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

/** Leaf-search results: no leaf value at all, leaves but none passed, one passed. */
const NO_LEAF = 0;
const NO_PASS = 1;
const PASSED = 2;

class CompiledFilter implements MessageFilter {
  readonly patternCount: number;
  readonly readsBody: boolean;
  readonly #nodes: readonly PatternNode[];
  readonly #scanner: JsonBodyScanner | undefined;
  // The message being matched (matches() is synchronous, so one slot per filter is enough).
  #metadata: Readonly<Record<string, unknown>> = {};
  #body: Uint8Array | string | undefined;
  #parsed: unknown;
  #parsedDone = false;

  constructor(nodes: readonly PatternNode[]) {
    this.#nodes = nodes;
    this.patternCount = nodes.length;
    this.readsBody = nodes.some((node) => node.readsBody);
    this.#scanner = this.readsBody ? new JsonBodyScanner(bodyKeyTree(nodes)) : undefined;
  }

  matches(metadata: Readonly<Record<string, unknown>>, body?: Uint8Array | string): boolean {
    this.#metadata = metadata;
    this.#body = body;
    this.#parsedDone = false;
    try {
      for (const node of this.#nodes) if (this.#node(node, metadata)) return true;
      return false;
    } finally {
      this.#metadata = {};
      this.#body = undefined;
      this.#parsed = undefined;
    }
  }

  #bodyValue(): unknown {
    if (!this.#parsedDone) {
      const body = this.#body;
      this.#parsed =
        typeof body === 'object' && this.#scanner !== undefined
          ? this.#scanner.scan(body)
          : parseJsonBody(body);
      this.#parsedDone = true;
    }
    return this.#parsed;
  }

  /** The record's top-level field `key`: the parsed body for `body` (undefined when not JSON), else metadata's. */
  #topValue(key: string): unknown {
    if (key === 'body') {
      const body = this.#bodyValue();
      return body === NOT_JSON ? undefined : body;
    }
    return Object.hasOwn(this.#metadata, key) ? this.#metadata[key] : undefined;
  }

  /** `node` against the object `object` (undefined: no object there, every field absent). */
  #node(node: PatternNode, object: Readonly<Record<string, unknown>> | undefined): boolean {
    for (const field of node.fields) {
      let value: unknown;
      if (field.isBody) {
        value = this.#bodyValue();
        if (value === NOT_JSON) return false;
      } else {
        value = object !== undefined && Object.hasOwn(object, field.key) ? object[field.key] : undefined;
      }
      if (field.kind === 'rule') {
        const found = ruleLeaves(field.rule, value);
        if (found === PASSED) continue;
        if (found === NO_PASS || !field.rule.passesAbsent) return false;
        // Absent here: absent in the whole record too? (event-ruler's `exists: false`)
        const [first, ...rest] = field.absolutePath;
        const root = first === undefined ? undefined : this.#topValue(first);
        if (root !== undefined && hasLeafAt(root, rest, 0)) return false;
      } else if (!this.#objectField(field.node, value, 0)) {
        return false;
      }
    }
    for (const branches of node.orGroups) {
      let any = false;
      for (const branch of branches) {
        if (this.#node(branch, object)) {
          any = true;
          break;
        }
      }
      if (!any) return false;
    }
    return true;
  }

  /** A nested pattern against a field's value: an object, an array (any object element), or nothing. */
  #objectField(node: PatternNode, value: unknown, nesting: number): boolean {
    if (Array.isArray(value)) {
      if (nesting >= MAX_EVENT_ARRAY_NESTING) return false;
      let sawObject = false;
      for (const element of value) {
        if (isObject(element) || Array.isArray(element)) {
          sawObject = true;
          if (this.#objectField(node, element, nesting + 1)) return true;
        }
      }
      return sawObject ? false : this.#node(node, undefined);
    }
    return this.#node(node, isObject(value) ? value : undefined);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field's rule against its value: absent or an object (no leaf), a leaf, or an array of them. */
function ruleLeaves(rule: FieldRule, value: unknown): number {
  if (value === undefined || isObject(value)) return NO_LEAF;
  if (Array.isArray(value)) return leavesOf(rule, value, 0);
  return rule.passesAnyValue || anyTest(rule.tests, value as string | number | boolean | null)
    ? PASSED
    : NO_PASS;
}

/** Whether `value` has a leaf value at `keys` below it, through any array on the way. */
function hasLeafAt(value: unknown, keys: readonly string[], nesting: number): boolean {
  if (Array.isArray(value)) {
    if (nesting >= MAX_EVENT_ARRAY_NESTING) return false;
    for (const element of value) if (hasLeafAt(element, keys, nesting + 1)) return true;
    return false;
  }
  if (keys.length === 0) return !isObject(value) && value !== undefined;
  if (!isObject(value)) return false;
  const [key, ...rest] = keys;
  return key !== undefined && Object.hasOwn(value, key) && hasLeafAt(value[key], rest, 0);
}

function leavesOf(rule: FieldRule, values: readonly unknown[], nesting: number): number {
  if (nesting >= MAX_EVENT_ARRAY_NESTING) return NO_LEAF;
  let found = NO_LEAF;
  for (const value of values) {
    if (Array.isArray(value)) {
      const inner = leavesOf(rule, value, nesting + 1);
      if (inner === PASSED) return PASSED;
      if (inner === NO_PASS) found = NO_PASS;
    } else if (typeof value !== 'object' || value === null) {
      if (rule.passesAnyValue || anyTest(rule.tests, value as string | number | boolean | null))
        return PASSED;
      found = NO_PASS;
    }
  }
  return found;
}

function anyTest(tests: readonly LeafTest[], value: string | number | boolean | null): boolean {
  for (const test of tests) if (test(value)) return true;
  return false;
}
