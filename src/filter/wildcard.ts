import { MAX_WILDCARDS_PER_VALUE } from './filter-limits.js';
import { FilterPatternError } from './filter-pattern-error.js';

/**
 * The `wildcard` operator: `*` matches any run of characters (also none), `\*` is a literal star and
 * `\\` a literal backslash; two `*` in a row and any other backslash escape are refused (event-ruler's
 * rules). Compiled into its literal parts, and matched by searching them left to right: the first part
 * must start the value, the last must end it, the middle ones are found in order, leftmost first. With
 * `*` as the only wildcard that greedy search is exact, and it never backtracks: no regular expression
 * is built, per pattern or per message.
 */

/** A compiled wildcard: true when `value` matches. */
export type WildcardTest = (value: string) => boolean;

/**
 * Compiles `pattern`, or throws a {@link FilterPatternError} at `path`.
 */
export function compileWildcard(pattern: string, path: string): WildcardTest {
  const parts = splitWildcard(pattern, path);
  if (parts.length === 1) {
    const only = parts[0] ?? '';
    return (value) => value === only;
  }
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  const middle = parts.slice(1, -1);
  const fixed = first.length + last.length;
  return (value) => {
    if (value.length < fixed || !value.startsWith(first) || !value.endsWith(last)) return false;
    let from = first.length;
    const end = value.length - last.length;
    for (const part of middle) {
      const at = value.indexOf(part, from);
      if (at < 0 || at + part.length > end) return false;
      from = at + part.length;
    }
    return true;
  };
}

/** The literal parts between the `*` of `pattern`, escapes resolved. */
function splitWildcard(pattern: string, path: string): string[] {
  const parts: string[] = [];
  let current = '';
  let stars = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      const next = pattern[i + 1];
      if (next !== '*' && next !== '\\') {
        throw new FilterPatternError(
          path,
          `a backslash may only escape '*' or '\\' (at character ${i} of ${JSON.stringify(pattern)})`,
        );
      }
      current += next;
      i++;
    } else if (char === '*') {
      if (pattern[i + 1] === '*') {
        throw new FilterPatternError(
          path,
          `consecutive '*' are not allowed (at character ${i} of ${JSON.stringify(pattern)})`,
        );
      }
      stars++;
      if (stars > MAX_WILDCARDS_PER_VALUE) {
        throw new FilterPatternError(
          path,
          `more than ${MAX_WILDCARDS_PER_VALUE} '*' in one wildcard (MAX_WILDCARDS_PER_VALUE)`,
        );
      }
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}
