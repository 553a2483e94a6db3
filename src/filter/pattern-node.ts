import { isPlainRecord } from '../util/plain-record.js';
import { compileFieldRule, type FieldRule } from './field-rule.js';
import { MAX_PATTERN_DEPTH } from './filter-limits.js';
import { FilterPatternError } from './filter-pattern-error.js';
import { describeJsonValue } from './json-value-description.js';
import { indexPath, keyPath } from './pattern-path.js';

/**
 * A pattern object compiled into a tree: its fields (all must match) and its `$or` groups (one branch
 * of each must match; a branch is a pattern object matched against the same event object).
 */
export interface PatternNode {
  readonly fields: readonly PatternField[];
  readonly orGroups: readonly (readonly PatternNode[])[];
  /** Some field of this node, of a nested node or of a branch is `body` at the record's top level. */
  readonly readsBody: boolean;
}

/** One field of a {@link PatternNode}: a rule array on leaf values, or a nested pattern object. */
export type PatternField =
  | { readonly key: string; readonly kind: 'rule'; readonly rule: FieldRule; readonly isBody: boolean }
  | { readonly key: string; readonly kind: 'object'; readonly node: PatternNode; readonly isBody: boolean };

/** The key whose value is the message body parsed as JSON, at the record's top level. */
export const BODY_KEY = 'body';

/**
 * Compiles the pattern object `pattern` at `path` (`filters[0]`); `atTop` when it is matched against
 * the record itself (its `body` field, and that of its top-level `$or` branches, reads the body).
 *
 * @example
 * ```ts
 * const node = compilePatternNode({ tags: ['paid'], body: { amount: [{ numeric: ['>', 0] }] } }, 'filters[0]', true, 1);
 * node.readsBody; // true
 * ```
 */
export function compilePatternNode(
  pattern: unknown,
  path: string,
  atTop: boolean,
  depth: number,
): PatternNode {
  if (!isPlainRecord(pattern)) {
    throw new FilterPatternError(path, `expected a pattern object; got ${describeJsonValue(pattern)}`);
  }
  if (depth > MAX_PATTERN_DEPTH) {
    throw new FilterPatternError(path, `nested deeper than ${MAX_PATTERN_DEPTH} objects (MAX_PATTERN_DEPTH)`);
  }
  const keys = Object.keys(pattern);
  if (keys.length === 0)
    throw new FilterPatternError(path, 'an empty pattern object: give at least one field');
  const fields: PatternField[] = [];
  const orGroups: PatternNode[][] = [];
  let readsBody = false;
  for (const key of keys) {
    const value = pattern[key];
    const at = keyPath(path, key);
    if (key === '$or') {
      const branches = compileOr(value, at, atTop, depth);
      if (branches.some((branch) => branch.readsBody)) readsBody = true;
      orGroups.push(branches);
      continue;
    }
    const isBody = atTop && key === BODY_KEY;
    if (Array.isArray(value)) {
      if (isBody) {
        throw new FilterPatternError(
          at,
          'a rule on the body as a whole is not supported: match fields inside a JSON body with an object ({"body": {"status": ["paid"]}})',
        );
      }
      fields.push({ key, kind: 'rule', rule: compileFieldRule(value, at), isBody });
    } else if (isPlainRecord(value)) {
      const node = compilePatternNode(value, at, false, depth + 1);
      if (isBody) readsBody = true;
      fields.push({ key, kind: 'object', node, isBody });
    } else {
      throw new FilterPatternError(
        at,
        `expected an array of values (["paid"]) or a nested pattern object; got ${describeJsonValue(value)}`,
      );
    }
  }
  return { fields, orGroups, readsBody };
}

function compileOr(value: unknown, path: string, atTop: boolean, depth: number): PatternNode[] {
  if (!Array.isArray(value) || value.length < 2) {
    throw new FilterPatternError(path, 'expected an array of at least 2 pattern objects');
  }
  return value.map((branch, index) => compilePatternNode(branch, indexPath(path, index), atTop, depth + 1));
}
