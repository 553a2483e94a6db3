/**
 * The argument parser of repeatable options (`--param a=1 --param b=2`): each value joins the list.
 */

/**
 * Adds `value` to the values given so far (commander's custom option processing).
 */
export function collect(value: string, previous: readonly string[]): string[] {
  return [...previous, value];
}
