/**
 * How an error message quotes a value it was given: whole when short, else its start, an ellipsis and
 * its full length. A value from outside can be megabytes long (a 50 MB `nameServer` was once echoed
 * whole to stderr); a problem line must stay a line.
 */

/**
 * How many characters of a value a message quotes: enough to recognise a host list, an ARN or an
 * expression, short enough that a line of problems stays readable in a terminal and a log.
 */
export const MAX_ECHOED_CHARS = 100;

/**
 * `value` as a JSON string, cut to `max` characters with `…` and its full length when longer.
 */
export function echoedValue(value: string, max: number = MAX_ECHOED_CHARS): string {
  if (value.length <= max) return JSON.stringify(value);
  const quoted = JSON.stringify(head(value, max));
  return `${quoted.slice(0, -1)}…" (${value.length} characters)`;
}

/**
 * `text` as it is when at most `max` characters long, else its start, `…` and its full length: for text
 * that is already a sentence (a message from a subprocess, a parser's own words) rather than a value.
 */
export function echoedText(text: string, max: number = MAX_ECHOED_CHARS): string {
  return text.length <= max ? text : `${head(text, max)}… (${text.length} characters)`;
}

/** The first `max` UTF-16 units of `text`, one less when the cut would split a surrogate pair. */
function head(text: string, max: number): string {
  const code = text.charCodeAt(max - 1);
  const cut = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return text.slice(0, cut);
}
