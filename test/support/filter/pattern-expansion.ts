/**
 * Filter patterns rewritten into equivalent sets of simpler patterns, for the differential test:
 * a field's rule array of n alternatives is n patterns (the OR moves from the array to the list of
 * patterns, as the language defines it), `$or` branches are flattened into one `$or`. Only objects
 * built by the arbitraries are handled (JSON values).
 */
import type { JsonValue } from './pattern-arbitraries.js';

type JsonObject = { [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The patterns, each with one value per rule array, whose union matches what `pattern` matches; undefined
 * when there would be more than `limit`.
 *
 * @example
 * ```ts
 * expandAlternatives({ a: ['x', 'y'], b: [1] }, 10); // [{ a: ['x'], b: [1] }, { a: ['y'], b: [1] }]
 * ```
 */
export function expandAlternatives(pattern: JsonObject, limit: number): JsonObject[] | undefined {
  let results: JsonObject[] = [{}];
  for (const [key, value] of Object.entries(pattern)) {
    if (key === '$or' && Array.isArray(value)) {
      const branches: JsonObject[] = [];
      for (const branch of value) {
        if (!isObject(branch)) return undefined;
        const expanded = expandAlternatives(branch, limit);
        if (expanded === undefined) return undefined;
        branches.push(...expanded);
      }
      // A single branch left is no $or: its fields join the object (no field is in both, by construction).
      results = results.map((result) =>
        branches.length === 1 ? { ...result, ...branches[0] } : { ...result, $or: branches },
      );
      continue;
    }
    const options: JsonValue[] = Array.isArray(value)
      ? value.map((element) => [element])
      : isObject(value)
        ? (expandAlternatives(value, limit) ?? [])
        : [];
    if (options.length === 0) return undefined;
    const next: JsonObject[] = [];
    for (const result of results) for (const option of options) next.push({ ...result, [key]: option });
    if (next.length > limit) return undefined;
    results = next;
  }
  return results;
}

/**
 * Every field path of `patterns` (across patterns and `$or` branches, `.`-joined from the top) with the
 * operator of each of its rule values (`exact` for plain values, `anything-but/wildcard` for nested ones).
 */
export function operatorsByField(patterns: readonly JsonObject[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const visit = (object: JsonObject, prefix: string): void => {
    for (const [key, value] of Object.entries(object)) {
      if (key === '$or' && Array.isArray(value)) {
        for (const branch of value) if (isObject(branch)) visit(branch, prefix);
      } else if (isObject(value)) {
        visit(value, `${prefix}${key}.`);
      } else if (Array.isArray(value)) {
        const set = out.get(`${prefix}${key}`) ?? new Set<string>();
        for (const element of value) set.add(operatorOf(element));
        out.set(`${prefix}${key}`, set);
      }
    }
  };
  for (const pattern of patterns) visit(pattern, '');
  return out;
}

function operatorOf(element: JsonValue): string {
  if (!isObject(element)) return 'exact';
  const [operator = ''] = Object.keys(element);
  const operand = element[operator];
  return isObject(operand) ? `${operator}/${Object.keys(operand)[0] ?? ''}` : operator;
}
