/**
 * Plain objects in data that came from outside (parsed JSON or YAML, a Framework's service): an object
 * that is neither null nor an array, read key by key.
 */

/** Whether `value` is an object with string keys (not null, not an array). */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` as an object with string keys, or undefined when it is anything else. */
export function asPlainRecord(value: unknown): Record<string, unknown> | undefined {
  return isPlainRecord(value) ? value : undefined;
}
