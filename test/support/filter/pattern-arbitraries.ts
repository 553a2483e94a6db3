/**
 * fast-check arbitraries of filter patterns and of the records they are matched against, over a small
 * vocabulary of field names and values so that random patterns and records often meet (a random pattern
 * over a large vocabulary would almost never match). Used by the property tests and by the differential
 * test against event-ruler. Records are JSON objects whose `body` (when present) is an object.
 */
import fc from 'fast-check';

/** Top-level field names: two metadata fields and the body. */
export const TOP_KEYS = ['topic', 'tags', 'body'] as const;
/** Field names inside objects (the body and nested values). */
export const INNER_KEYS = ['a', 'b', 'c'] as const;
/** String values: case variants, shared prefixes and suffixes, a star, the empty string. */
export const STRINGS = ['x', 'X', 'xy', 'yx', 'abc', 'ABC', 'aXc', 'a*c', 'paid', 'PAID', ''] as const;
/** Numbers: integers, fractions, negatives, large and small (no -0, no numbers beyond binary64's exact decimals). */
export const NUMBERS = [-100, -1, 0, 0.5, 1, 2.5, 5, 100, 1e6, 123456.789] as const;

export type Leaf = string | number | boolean | null;
export type JsonValue = Leaf | JsonValue[] | { [key: string]: JsonValue };

export const leafArb: fc.Arbitrary<Leaf> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...STRINGS) },
  { weight: 4, arbitrary: fc.constantFrom(...NUMBERS) },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
);

const stringArb = fc.constantFrom(...STRINGS);
const nonEmptyStringArb = fc.constantFrom(...STRINGS.filter((value) => value !== ''));
const numberArb = fc.constantFrom(...NUMBERS);
const wildcardArb = fc.constantFrom('*', 'a*', '*c', 'a*c', 'x*y', '*X*', 'p*d', 'abc', '*b*');

/** One element of a field's rule array: a value or an operator object. */
export const ruleElementArb: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 4, arbitrary: leafArb },
  { weight: 1, arbitrary: stringArb.map((value) => ({ prefix: value })) },
  { weight: 1, arbitrary: stringArb.map((value) => ({ suffix: value })) },
  { weight: 1, arbitrary: stringArb.map((value) => ({ prefix: { 'equals-ignore-case': value } })) },
  { weight: 1, arbitrary: stringArb.map((value) => ({ suffix: { 'equals-ignore-case': value } })) },
  { weight: 1, arbitrary: stringArb.map((value) => ({ 'equals-ignore-case': value })) },
  { weight: 1, arbitrary: wildcardArb.map((value) => ({ wildcard: value })) },
  {
    weight: 3,
    arbitrary: fc.oneof(
      stringArb.map((value) => ({ 'anything-but': value })),
      numberArb.map((value) => ({ 'anything-but': value })),
      fc.uniqueArray(stringArb, { minLength: 1, maxLength: 3 }).map((values) => ({ 'anything-but': values })),
      fc.uniqueArray(numberArb, { minLength: 1, maxLength: 3 }).map((values) => ({ 'anything-but': values })),
      nonEmptyStringArb.map((value) => ({ 'anything-but': { prefix: value } })),
      nonEmptyStringArb.map((value) => ({ 'anything-but': { suffix: value } })),
      fc
        .uniqueArray(stringArb, { minLength: 1, maxLength: 2 })
        .map((values) => ({ 'anything-but': { 'equals-ignore-case': values } })),
      wildcardArb.map((value) => ({ 'anything-but': { wildcard: value } })),
    ),
  },
  { weight: 3, arbitrary: numericArb() },
  { weight: 2, arbitrary: fc.boolean().map((exists) => ({ exists })) },
);

function numericArb(): fc.Arbitrary<JsonValue> {
  const single = fc
    .tuple(fc.constantFrom('<', '<=', '=', '>=', '>'), numberArb)
    .map(([op, n]) => ({ numeric: [op, n] }));
  const range = fc
    .tuple(
      fc.constantFrom('>', '>='),
      fc.constantFrom('<', '<='),
      fc.uniqueArray(numberArb, { minLength: 2, maxLength: 2 }),
    )
    .map(([low, high, [n1 = 0, n2 = 1]]) => ({ numeric: [low, Math.min(n1, n2), high, Math.max(n1, n2)] }));
  return fc.oneof(single, range);
}

/** A field's rule array. */
export const ruleArb: fc.Arbitrary<JsonValue[]> = fc.array(ruleElementArb, { minLength: 1, maxLength: 3 });

/**
 * A pattern object over `keys`, nesting at most `depth` more objects, with `$or` groups now and then.
 * A branch uses only the keys the object itself does not (a field both outside and inside `$or` is
 * refused by our filter: the differential test's one deliberate difference).
 */
export function patternObjectArb(
  keys: readonly string[],
  depth: number,
): fc.Arbitrary<Record<string, JsonValue>> {
  const valueArb: fc.Arbitrary<JsonValue> =
    depth <= 0
      ? ruleArb
      : fc.oneof({ weight: 3, arbitrary: ruleArb }, { weight: 1, arbitrary: innerPatternArb(depth - 1) });
  const fieldsOver = (chosen: readonly string[]) =>
    fc
      .tuple(...chosen.map((key) => valueArb.map((value) => [key, value] as const)))
      .map((entries) => Object.fromEntries(entries) as Record<string, JsonValue>);
  const chosenArb = fc.uniqueArray(fc.constantFrom(...keys), { minLength: 1, maxLength: 2 });
  if (depth <= 0) return chosenArb.chain(fieldsOver);
  return chosenArb.chain((chosen) => {
    const rest = keys.filter((key) => !chosen.includes(key));
    const fields = fieldsOver(chosen);
    if (rest.length === 0) return fields;
    const withOr = fc
      .tuple(fields, fc.array(patternObjectArb(rest, depth - 1), { minLength: 2, maxLength: 3 }))
      .map(([object, branches]) => ({ ...object, $or: branches }));
    return fc.oneof({ weight: 3, arbitrary: fields }, { weight: 1, arbitrary: withOr });
  });
}

function innerPatternArb(depth: number): fc.Arbitrary<JsonValue> {
  return fc.constant(null).chain(() => patternObjectArb(INNER_KEYS, depth));
}

/** A top-level pattern: metadata fields as rule arrays, `body` as an object pattern; often a single field (so that records match often enough). */
export const topPatternArb: fc.Arbitrary<Record<string, JsonValue>> = fc.oneof(
  ruleArb.map((rule) => ({ topic: rule })),
  ruleArb.map((rule) => ({ tags: rule })),
  patternObjectArb(INNER_KEYS, 1).map((body) => ({ body })),
  fc
    .record({ topic: ruleArb, tags: ruleArb, body: patternObjectArb(INNER_KEYS, 1) }, { requiredKeys: [] })
    .filter((pattern) => Object.keys(pattern).length > 0) as fc.Arbitrary<Record<string, JsonValue>>,
);

/** A value in a record: a leaf, an array of leaves, or (while `depth` lasts) an object or an array of objects. */
export function recordValueArb(depth: number): fc.Arbitrary<JsonValue> {
  const leaves = fc.array(leafArb, { minLength: 0, maxLength: 3 });
  if (depth <= 0) return fc.oneof({ weight: 3, arbitrary: leafArb }, { weight: 1, arbitrary: leaves });
  const object = recordObjectArb(INNER_KEYS, depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: leafArb },
    { weight: 1, arbitrary: leaves },
    { weight: 2, arbitrary: object },
    { weight: 1, arbitrary: fc.array(object, { minLength: 1, maxLength: 2 }) },
  );
}

/** An object over `keys` (any subset) with values of {@link recordValueArb}. */
export function recordObjectArb(
  keys: readonly string[],
  depth: number,
): fc.Arbitrary<{ [key: string]: JsonValue }> {
  return fc.dictionary(fc.constantFrom(...keys), recordValueArb(depth), { maxKeys: keys.length });
}

/** A record: metadata (`topic`, `tags`) and a JSON object body. */
export interface RandomRecord {
  metadata: { [key: string]: JsonValue };
  body: { [key: string]: JsonValue };
}

export const recordArb: fc.Arbitrary<RandomRecord> = fc.record({
  metadata: fc.record({ topic: recordValueArb(0), tags: recordValueArb(0) }, { requiredKeys: [] }),
  body: recordObjectArb(INNER_KEYS, 2),
});
