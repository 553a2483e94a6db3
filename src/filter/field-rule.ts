import { isPlainRecord } from '../util/plain-record.js';
import { MAX_VALUES_PER_FIELD } from './filter-limits.js';
import { FilterPatternError } from './filter-pattern-error.js';
import { describeJsonValue as describe } from './json-value-description.js';
import { indexPath, keyPath } from './pattern-path.js';
import { compileWildcard } from './wildcard.js';

/**
 * One field's rule array (`"status": ["paid", {"prefix": "ref"}]`) compiled into tests on the field's
 * leaf values. The values of the array are alternatives (OR). A leaf value is a string, number, boolean
 * or null; an object is not a leaf (no rule of this kind matches it), an array's elements are each a
 * leaf value (the rule matches when any element passes).
 *
 * Types are never mixed: a string test passes only strings and a number test only numbers, except that
 * every `anything-but` passes every value of another type (`{"anything-but": "a"}` passes `5` and `null`),
 * as event-ruler does.
 */

/** A test on one leaf value. */
export type LeafTest = (value: string | number | boolean | null) => boolean;

/** A compiled rule array. */
export interface FieldRule {
  /** Alternatives on the leaf values (exact values and operators other than `exists`). */
  readonly tests: readonly LeafTest[];
  /** `{"exists": true}` is one of the alternatives: any leaf value passes. */
  readonly passesAnyValue: boolean;
  /** `{"exists": false}` is one of the alternatives: the rule passes when the field has no leaf value. */
  readonly passesAbsent: boolean;
}

/**
 * Compiles the rule array `rules` at `path` (`filters[0].status`), or throws a {@link FilterPatternError}.
 */
export function compileFieldRule(rules: unknown[], path: string): FieldRule {
  if (rules.length === 0)
    throw new FilterPatternError(path, 'an empty array matches nothing: give at least one value');
  if (rules.length > MAX_VALUES_PER_FIELD) {
    throw new FilterPatternError(
      path,
      `${rules.length} values, more than ${MAX_VALUES_PER_FIELD} (MAX_VALUES_PER_FIELD)`,
    );
  }
  const tests: LeafTest[] = [];
  let passesAnyValue = false;
  let passesAbsent = false;
  rules.forEach((rule, index) => {
    const at = indexPath(path, index);
    if (rule === null || typeof rule === 'boolean') {
      tests.push((value) => value === rule);
    } else if (typeof rule === 'string') {
      tests.push((value) => value === rule);
    } else if (typeof rule === 'number') {
      tests.push((value) => value === rule);
    } else if (isPlainRecord(rule)) {
      const keys = Object.keys(rule);
      if (keys.length !== 1) {
        throw new FilterPatternError(
          at,
          `an operator object has exactly one key (prefix, suffix, equals-ignore-case, wildcard, anything-but, numeric, exists); got ${keys.length === 0 ? 'none' : keys.map((key) => JSON.stringify(key)).join(', ')}`,
        );
      }
      const operator = keys[0] ?? '';
      const operand = rule[operator];
      const operatorPath = keyPath(at, operator);
      if (operator === 'exists') {
        if (typeof operand !== 'boolean')
          throw new FilterPatternError(operatorPath, 'expected true or false');
        if (operand) passesAnyValue = true;
        else passesAbsent = true;
      } else {
        tests.push(compileOperator(operator, operand, operatorPath));
      }
    } else {
      throw new FilterPatternError(
        at,
        `expected a string, number, true, false, null or an operator object; got ${describe(rule)}`,
      );
    }
  });
  return { tests, passesAnyValue, passesAbsent };
}

function compileOperator(operator: string, operand: unknown, path: string): LeafTest {
  switch (operator) {
    case 'prefix':
    case 'suffix':
      return compileAffix(operator, operand, path);
    case 'equals-ignore-case': {
      const lower = stringOperand(operand, path).toLowerCase();
      return (value) => typeof value === 'string' && value.toLowerCase() === lower;
    }
    case 'wildcard': {
      const test = compileWildcard(stringOperand(operand, path), path);
      return (value) => typeof value === 'string' && test(value);
    }
    case 'numeric':
      return compileNumeric(operand, path);
    case 'anything-but':
      return compileAnythingBut(operand, path);
    default:
      throw new FilterPatternError(
        path,
        `unknown operator ${JSON.stringify(operator)} (known: prefix, suffix, equals-ignore-case, wildcard, anything-but, numeric, exists)`,
      );
  }
}

/** `prefix` / `suffix`, with a string or `{"equals-ignore-case": string}`. */
function compileAffix(operator: 'prefix' | 'suffix', operand: unknown, path: string): LeafTest {
  if (isPlainRecord(operand)) {
    const keys = Object.keys(operand);
    if (keys.length !== 1 || keys[0] !== 'equals-ignore-case') {
      throw new FilterPatternError(
        path,
        `expected a string or {"equals-ignore-case": string}; got an object with ${keys.map((key) => JSON.stringify(key)).join(', ') || 'no keys'}`,
      );
    }
    const lower = stringOperand(
      operand['equals-ignore-case'],
      keyPath(path, 'equals-ignore-case'),
    ).toLowerCase();
    return operator === 'prefix'
      ? (value) => typeof value === 'string' && value.toLowerCase().startsWith(lower)
      : (value) => typeof value === 'string' && value.toLowerCase().endsWith(lower);
  }
  if (typeof operand !== 'string') {
    throw new FilterPatternError(
      path,
      `expected a string or {"equals-ignore-case": string}; got ${describe(operand)}`,
    );
  }
  return operator === 'prefix'
    ? (value) => typeof value === 'string' && value.startsWith(operand)
    : (value) => typeof value === 'string' && value.endsWith(operand);
}

const LOWER_BOUNDS = new Set(['>', '>=']);
const UPPER_BOUNDS = new Set(['<', '<=']);
const NUMERIC_SHAPE = "expected an operator ('<', '<=', '=', '>=', '>') followed by a number";

/** `numeric`: `[op, n]` or `['>' | '>=', low, '<' | '<=', high]`. */
function compileNumeric(operand: unknown, path: string): LeafTest {
  if (!Array.isArray(operand) || (operand.length !== 2 && operand.length !== 4)) {
    throw new FilterPatternError(
      path,
      `${NUMERIC_SHAPE}, or a lower bound ('>', '>=') and an upper bound ('<', '<='): [">", 0, "<=", 5]`,
    );
  }
  const [op, bound] = [operand[0], operand[1]];
  if (typeof op !== 'string' || !['<', '<=', '=', '>=', '>'].includes(op) || !isFiniteNumber(bound)) {
    throw new FilterPatternError(path, NUMERIC_SHAPE);
  }
  if (operand.length === 2) {
    switch (op) {
      case '=':
        return (value) => value === bound;
      case '<':
        return (value) => typeof value === 'number' && value < bound;
      case '<=':
        return (value) => typeof value === 'number' && value <= bound;
      case '>':
        return (value) => typeof value === 'number' && value > bound;
      default:
        return (value) => typeof value === 'number' && value >= bound;
    }
  }
  const [op2, bound2] = [operand[2], operand[3]];
  if (!LOWER_BOUNDS.has(op)) {
    throw new FilterPatternError(
      path,
      `a range starts with a lower bound ('>' or '>='); got ${JSON.stringify(op)}`,
    );
  }
  if (typeof op2 !== 'string' || !UPPER_BOUNDS.has(op2) || !isFiniteNumber(bound2)) {
    throw new FilterPatternError(path, "a range ends with an upper bound ('<' or '<=') followed by a number");
  }
  if (bound2 <= bound) {
    throw new FilterPatternError(path, `the lower bound ${bound} must be below the upper bound ${bound2}`);
  }
  const low = bound;
  const high = bound2;
  if (op === '>') {
    return op2 === '<'
      ? (value) => typeof value === 'number' && value > low && value < high
      : (value) => typeof value === 'number' && value > low && value <= high;
  }
  return op2 === '<'
    ? (value) => typeof value === 'number' && value >= low && value < high
    : (value) => typeof value === 'number' && value >= low && value <= high;
}

/**
 * `anything-but`: a string, a number, a list of strings or of numbers, or an object
 * `{prefix | suffix | equals-ignore-case | wildcard: string | string[]}`. Passes every leaf value that
 * the excluded values do not cover, values of another type included.
 */
function compileAnythingBut(operand: unknown, path: string): LeafTest {
  if (typeof operand === 'string') return (value) => value !== operand;
  if (isFiniteNumber(operand)) return (value) => value !== operand;
  if (Array.isArray(operand)) {
    const values = boundedList(operand, path);
    if (values.every((value) => typeof value === 'string') || values.every(isFiniteNumber)) {
      const excluded = new Set<unknown>(values);
      return (value) => !excluded.has(value);
    }
    throw new FilterPatternError(path, 'expected a list of only strings or only numbers');
  }
  if (isPlainRecord(operand)) {
    const keys = Object.keys(operand);
    const inner = keys[0] ?? '';
    if (keys.length !== 1 || !['prefix', 'suffix', 'equals-ignore-case', 'wildcard'].includes(inner)) {
      throw new FilterPatternError(
        path,
        `expected one of prefix, suffix, equals-ignore-case, wildcard inside anything-but; got ${keys.map((key) => JSON.stringify(key)).join(', ') || 'no keys'}`,
      );
    }
    const innerPath = keyPath(path, inner);
    const raw = operand[inner];
    const list = Array.isArray(raw) ? boundedList(raw, innerPath) : [raw];
    const strings = list.map((value, index) =>
      stringOperand(value, Array.isArray(raw) ? indexPath(innerPath, index) : innerPath),
    );
    if ((inner === 'prefix' || inner === 'suffix') && strings.includes('')) {
      throw new FilterPatternError(innerPath, `an empty ${inner} would exclude every string`);
    }
    const excluded = stringExclusion(inner, strings, innerPath);
    return (value) => typeof value !== 'string' || !excluded(value);
  }
  throw new FilterPatternError(
    path,
    `expected a string, a number, a list of strings or numbers, or {prefix|suffix|equals-ignore-case|wildcard: ...}; got ${describe(operand)}`,
  );
}

/** The test of `anything-but`'s inner operator: true for the strings it excludes. */
function stringExclusion(inner: string, values: string[], path: string): (value: string) => boolean {
  switch (inner) {
    case 'prefix':
      return (value) => values.some((prefix) => value.startsWith(prefix));
    case 'suffix':
      return (value) => values.some((suffix) => value.endsWith(suffix));
    case 'equals-ignore-case': {
      const lower = new Set(values.map((value) => value.toLowerCase()));
      return (value) => lower.has(value.toLowerCase());
    }
    default: {
      const tests = values.map((value) => compileWildcard(value, path));
      return (value) => tests.some((test) => test(value));
    }
  }
}

function boundedList(values: unknown[], path: string): unknown[] {
  if (values.length === 0) throw new FilterPatternError(path, 'an empty list: give at least one value');
  if (values.length > MAX_VALUES_PER_FIELD) {
    throw new FilterPatternError(
      path,
      `${values.length} values, more than ${MAX_VALUES_PER_FIELD} (MAX_VALUES_PER_FIELD)`,
    );
  }
  return values;
}

function stringOperand(operand: unknown, path: string): string {
  if (typeof operand !== 'string')
    throw new FilterPatternError(path, `expected a string; got ${describe(operand)}`);
  return operand;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
