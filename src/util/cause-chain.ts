/**
 * Walks an error and its causes (`error.cause`, and the members of an AggregateError), for the checks
 * that must look through wrappers: "is this, or what it wraps, a throttle / a refusal / a socket error?".
 */

/** How deep a chain is followed (wrappers rarely nest more than three deep; cycles stop here too). */
export const MAX_CAUSE_DEPTH = 6;

/**
 * True when `predicate` holds for `error` or for an error it wraps (its `cause` chain, and each member
 * of an AggregateError on the way).
 */
export function anyInCauseChain(error: unknown, predicate: (candidate: object) => boolean): boolean {
  return search(error, predicate, 0);
}

function search(error: unknown, predicate: (candidate: object) => boolean, depth: number): boolean {
  for (let current = error, level = depth; level < MAX_CAUSE_DEPTH; level++) {
    if (typeof current !== 'object' || current === null) return false;
    if (predicate(current)) return true;
    if (
      current instanceof AggregateError &&
      current.errors.some((member) => search(member, predicate, level + 1))
    )
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
