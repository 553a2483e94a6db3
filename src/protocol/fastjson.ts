/**
 * Reading JSON written by Java's fastjson, which is not always standard JSON: a map with non-string
 * keys (`HashMap<Long, String>`) is written with bare keys, `{0:"172.168.0.104:10911"}`.
 */
import { ProtocolError } from './errors.js';

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const OPEN_BRACE = 0x7b;
const COMMA = 0x2c;
const COLON = 0x3a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;

/**
 * Puts quotes around bare integer object keys (`{0:"a",-1:"b"}` becomes `{"0":"a","-1":"b"}`) so that
 * `JSON.parse` accepts fastjson's output. A small tokenizer skips string literals, so `{0:` inside a
 * string value stays as it is. Text that is already standard JSON comes back unchanged (same string).
 */
export function quoteBareIntegerKeys(text: string): string {
  let out: string[] | undefined;
  let copiedUpTo = 0;
  // The last significant character outside strings: a key can only follow `{` or `,`.
  let previous = -1;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = skipString(text, i);
      previous = QUOTE;
      continue;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    if ((previous === OPEN_BRACE || previous === COMMA) && (isDigit(c) || c === MINUS)) {
      let end = i + 1;
      while (end < text.length && isDigit(text.charCodeAt(end))) end++;
      let after = end;
      while (after < text.length && isSpace(text.charCodeAt(after))) after++;
      const hasDigits = end - i > (c === MINUS ? 1 : 0);
      if (hasDigits && text.charCodeAt(after) === COLON) {
        out ??= [];
        out.push(text.slice(copiedUpTo, i), '"', text.slice(i, end), '"');
        copiedUpTo = end;
      }
      previous = -1;
      i = end;
      continue;
    }
    previous = c;
    i++;
  }
  if (out === undefined) return text;
  out.push(text.slice(copiedUpTo));
  return out.join('');
}

/** Returns the index just past the string literal that starts at `start` (or the text's end). */
function skipString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return i + 1;
    else i++;
  }
  return text.length;
}

/**
 * Parses a fastjson body leniently: UTF-8 decode, quote bare integer keys, `JSON.parse`. Throws
 * {@link ProtocolError} (with the parser error as `cause`) when the result is still not JSON.
 * Long values above 2^53 lose precision: read such fields from the text if they matter.
 */
export function parseFastjson(body: Buffer | string, what: string): unknown {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    return JSON.parse(quoteBareIntegerKeys(text));
  } catch (cause) {
    throw new ProtocolError(`${what} is not valid JSON`, { cause });
  }
}
