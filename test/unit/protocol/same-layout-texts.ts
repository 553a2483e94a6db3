import fc from 'fast-check';

/**
 * Properties texts of one layout (the same keys, drawn from `key`, in the same order) with different
 * values drawn from `value`: what one producer sends, for the layouts remembered by
 * src/protocol/properties-head.ts.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(sameLayoutTexts(fc.constant('a'), fc.constant('v'), 3), (texts) => texts.length >= 2));
 * ```
 */
export function sameLayoutTexts(
  key: fc.Arbitrary<string>,
  value: fc.Arbitrary<string>,
  maxKeys: number,
): fc.Arbitrary<string[]> {
  return fc.array(key, { minLength: 1, maxLength: maxKeys }).chain((keys) =>
    fc.array(
      fc
        .array(value, { minLength: keys.length, maxLength: keys.length })
        .map((values) => keys.map((k, i) => `${k}\u0001${values[i] ?? ''}\u0002`).join('')),
      { minLength: 2, maxLength: 4 },
    ),
  );
}

/**
 * Calls `check` on the texts of `groups` round robin (the first of each group, then the second, ...):
 * each text follows one of another layout, and with more than eight groups some layouts are pushed out
 * of the remembered ones before their turn comes again.
 *
 * @example
 * ```ts
 * roundRobin([['a1', 'a2'], ['b1']], (text) => seen.push(text)); // a1, b1, a2
 * ```
 */
export function roundRobin(groups: readonly (readonly string[])[], check: (text: string) => void): void {
  const longest = Math.max(0, ...groups.map((texts) => texts.length));
  for (let i = 0; i < longest; i++) {
    for (const texts of groups) {
      const text = texts[i];
      if (text !== undefined) check(text);
    }
  }
}
