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
  /** The keys from the record's top of every rule in this node, nested nodes and branches included, joined by NUL. */
  readonly leafPaths: ReadonlySet<string>;
}

/** One field of a {@link PatternNode}: a rule array on leaf values, or a nested pattern object. */
export type PatternField =
  | {
      readonly key: string;
      readonly kind: 'rule';
      readonly rule: FieldRule;
      readonly isBody: boolean;
      /**
       * The field's keys from the record's top (`['body', 'order', 'status']`): `{"exists": false}` holds
       * only when no leaf value is there anywhere in the record, in any element of any array on the
       * way (event-ruler's absence), not only in the array element being matched.
       */
      readonly absolutePath: readonly string[];
    }
  | { readonly key: string; readonly kind: 'object'; readonly node: PatternNode; readonly isBody: boolean };

/** The key whose value is the message body parsed as JSON, at the record's top level. */
export const BODY_KEY = 'body';

/**
 * Compiles the pattern object `pattern` at `path` (`filters[0]`); `atTop` when it is matched against
 * the record itself (its `body` field, and that of its top-level `$or` branches, reads the body).
 *
 * `keys` are the keys from the record's top to `pattern` (empty at the top).
 */
export function compilePatternNode(
  pattern: unknown,
  path: string,
  atTop: boolean,
  depth: number,
  keys: readonly string[] = [],
): PatternNode {
  if (!isPlainRecord(pattern)) {
    throw new FilterPatternError(path, `expected a pattern object; got ${describeJsonValue(pattern)}`);
  }
  if (depth > MAX_PATTERN_DEPTH) {
    throw new FilterPatternError(path, `nested deeper than ${MAX_PATTERN_DEPTH} objects (MAX_PATTERN_DEPTH)`);
  }
  const names = Object.keys(pattern);
  if (names.length === 0)
    throw new FilterPatternError(path, 'an empty pattern object: give at least one field');
  const fields: PatternField[] = [];
  const orGroups: PatternNode[][] = [];
  let readsBody = false;
  const ownLeafPaths = new Set<string>();
  const branchGroups: { path: string; branches: PatternNode[] }[] = [];
  for (const key of names) {
    const value = pattern[key];
    const at = keyPath(path, key);
    if (key === '$or') {
      const branches = compileOr(value, at, atTop, depth, keys);
      if (branches.some((branch) => branch.readsBody)) readsBody = true;
      orGroups.push(branches);
      branchGroups.push({ path: at, branches });
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
      fields.push({
        key,
        kind: 'rule',
        rule: compileFieldRule(value, at),
        isBody,
        absolutePath: [...keys, key],
      });
      ownLeafPaths.add([...keys, key].join('\u0000'));
    } else if (isPlainRecord(value)) {
      const node = compilePatternNode(value, at, false, depth + 1, [...keys, key]);
      if (isBody) readsBody = true;
      fields.push({ key, kind: 'object', node, isBody });
      for (const leaf of node.leafPaths) ownLeafPaths.add(leaf);
    } else {
      throw new FilterPatternError(
        at,
        `expected an array of values (["paid"]) or a nested pattern object; got ${describeJsonValue(value)}`,
      );
    }
  }
  const leafPaths = new Set(ownLeafPaths);
  for (const { path: orPath, branches } of branchGroups) {
    branches.forEach((branch, index) => {
      for (const leaf of branch.leafPaths) {
        if (ownLeafPaths.has(leaf)) {
          // event-ruler would keep only one of the two rules for that branch (the later in the JSON
          // text) and Lambda with it: refused rather than matched differently.
          throw new FilterPatternError(
            indexPath(orPath, index),
            `the field ${leaf.split('\u0000').slice(keys.length).join('.')} is also matched outside this $or; a field may be in the object or in its $or branches, not both (merge the rules into each branch)`,
          );
        }
        leafPaths.add(leaf);
      }
    });
  }
  return { fields, orGroups, readsBody, leafPaths };
}

function compileOr(
  value: unknown,
  path: string,
  atTop: boolean,
  depth: number,
  keys: readonly string[],
): PatternNode[] {
  if (!Array.isArray(value) || value.length < 2) {
    throw new FilterPatternError(path, 'expected an array of at least 2 pattern objects');
  }
  return value.map((branch, index) =>
    compilePatternNode(branch, indexPath(path, index), atTop, depth + 1, keys),
  );
}
