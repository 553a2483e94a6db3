/**
 * The bounds of filter criteria: every pattern comes from a user's configuration and every message from
 * the broker, so each dimension that costs memory or time is capped here, with the reason. A pattern
 * over a cap is refused when it is compiled, with an error naming the cap.
 */

/** Patterns per mapping when the caller sets no `maxPatterns`: Lambda's default quota (5 per event source mapping). */
export const DEFAULT_MAX_FILTER_PATTERNS = 5;

/** The highest `maxPatterns` a caller may set: Lambda's quota can be raised to 10 filters per mapping, not beyond. */
export const MAX_FILTER_PATTERNS_LIMIT = 10;

/** Characters of one pattern's JSON text (as given, or as `JSON.stringify` writes an object): Lambda's `Filter.Pattern` maximum, 4096. */
export const MAX_PATTERN_CHARS = 4096;

/**
 * Nesting of objects in a pattern (a field's object and each `$or` branch count one level). Evaluation
 * recurses once per level, so this caps the stack a pattern can take; 16 is far beyond any record shape.
 */
export const MAX_PATTERN_DEPTH = 16;

/** Values in one field's rule array, and in one `anything-but` list (each value is one test per event value). */
export const MAX_VALUES_PER_FIELD = 100;

/**
 * `*` in one `wildcard` value. Our wildcard test is a left-to-right search of the literal parts (linear in
 * the value per part, never backtracking), so this caps its cost at 9 searches per event value.
 */
export const MAX_WILDCARDS_PER_VALUE = 8;

/**
 * Bytes of a message body that is parsed as JSON for patterns that look inside `body`. A larger body is
 * treated as not JSON (patterns that look inside `body` do not match it, the others are evaluated), so no
 * message makes the filter parse more than this. RocketMQ's default maximum message size is 4 MiB.
 */
export const MAX_BODY_JSON_BYTES = 256 * 1024;

/**
 * Arrays nested in arrays of an event value that the matcher descends into (`[[["a"]]]` is 3). Deeper
 * elements are not looked at (they match nothing), so a hostile body cannot exhaust the stack.
 */
export const MAX_EVENT_ARRAY_NESTING = 32;
