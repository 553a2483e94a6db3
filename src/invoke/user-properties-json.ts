/**
 * The `properties` field of an event record (its user properties as a JSON object) written straight from
 * a stored message's properties text (`name U+0001 value U+0002 ...`, see
 * src/protocol/message-properties.ts), without building the properties object first: the function path
 * reads every message's properties only to write them as JSON, and a decoded message that never built
 * its object (src/protocol/decoded-message.ts) hands over its text.
 */

import { isSystemProperty } from '../protocol/message.js';
import { NAME_VALUE_SEPARATOR, PROPERTY_SEPARATOR } from '../protocol/message-properties.js';
import { jsonString } from './json-string.js';

/** Layouts of more pieces than this are not remembered (no message of a real producer comes close). */
const MAX_REMEMBERED_PIECES = 64;
/** How many layouts are remembered: producers that interleave in one queue each keep theirs. */
const MAX_REMEMBERED_LAYOUTS = 8;
/** What a regular expression treats as syntax outside a character class. */
const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|]/g;

/**
 * A layout of properties texts seen before: the keys of its pieces in order, all well formed, and which
 * of them go into the JSON (a user property seen for the first time). Messages of one producer repeat
 * their keys in one order, so a text is matched against the layout as a whole by one regular expression
 * (V8 compiles it to machine code) instead of being walked piece by piece in JavaScript (measured: ~75
 * against ~350 ns for a text of six pieces). Holds key strings only, never a value.
 */
interface TextLayout {
  /**
   * Matches exactly the texts whose pieces have these keys in this order, each with a non-empty value,
   * the last piece with or without its U+0002; a group captures each value that goes into the JSON.
   */
  readonly pattern: RegExp;
  /** The keys whose values the groups capture, in order. */
  readonly writtenKeys: readonly string[];
}

/** The remembered layouts, the last matched first. */
const layouts: TextLayout[] = [];
/**
 * The keys (and which are written) of the last text walked in full, not compiled yet: a layout is
 * compiled when the next walk finds it again. Compiling costs microseconds, so a stream whose layouts
 * rarely repeat back to back (say, more than eight interleaved) keeps walking (measured, 9 layouts round
 * robin: 3.6 µs per text when every walk compiled, 1.1 µs this way, 0.7 µs before patterns existed).
 */
let pendingKeys: readonly string[] = [];
let pendingWrites: readonly boolean[] = [];
let pendingValid = false;

/**
 * `jsonUserProperties(decodeProperties(text))` in meaning: a JSON object of the user properties
 * (`isSystemProperty` rejects the rest) that the properties text `text` holds, by decodeProperties'
 * rules: pieces end at U+0002; in a piece, the first U+0001 separates key from value; pieces with an
 * empty key, an empty value or no U+0001 are dropped; the first occurrence of a key wins. Keys are
 * written in the order they are stored, where the object would list integer-like keys first: the JSON
 * parses to an equal object either way. `__proto__` is an ordinary key (JSON.parse makes it an own
 * property).
 *
 * @example
 * ```ts
 * userPropertiesJsonOfText('TAGS\u0001a\u0002color\u0001red\u0002color\u0001blue\u0002'); // => '{"color":"red"}'
 * ```
 */
export function userPropertiesJsonOfText(text: string): string {
  return jsonOfKnownLayout(text) ?? jsonAndRemember(text);
}

/**
 * The JSON of `text` when its pieces have the keys of a remembered layout in its order (values may
 * differ), else undefined. Gives what {@link jsonAndRemember} gives: a remembered key holds no U+0001
 * (it ended at the first one of its piece) nor U+0002, so a piece that starts with it followed by U+0001
 * splits there under the general rules too, its value runs to the next U+0002 as the pattern's
 * `[^\u0002]+` does, and the same keys in the same order make the same first occurrences.
 */
function jsonOfKnownLayout(text: string): string | undefined {
  for (let i = 0; i < layouts.length; i++) {
    const layout = layouts[i] as TextLayout;
    const json = jsonOfLayout(layout, text);
    if (json === undefined) continue;
    if (i > 0) {
      layouts.splice(i, 1);
      layouts.unshift(layout);
    }
    return json;
  }
  return undefined;
}

function jsonOfLayout({ pattern, writtenKeys }: TextLayout, text: string): string | undefined {
  if (writtenKeys.length === 0) return pattern.test(text) ? '{}' : undefined;
  const match = pattern.exec(text);
  if (match === null) return undefined;
  let json = '{';
  for (let i = 0; i < writtenKeys.length; i++) {
    if (i > 0) json += ',';
    json += `${jsonString(writtenKeys[i] as string)}:${jsonString(match[i + 1] as string)}`;
  }
  return `${json}}`;
}

/**
 * Remembers the layout of a text whose pieces, of `keys`, were all well formed: compiled when it is
 * the layout of the previous walk too (see {@link pendingKeys}), else kept as the pending one.
 */
function remember(keys: readonly string[], written: readonly boolean[]): void {
  if (pendingValid && sameLayout(keys, written)) {
    pendingValid = false;
    compile(keys, written);
  } else {
    pendingKeys = keys;
    pendingWrites = written;
    pendingValid = true;
  }
}

function sameLayout(keys: readonly string[], written: readonly boolean[]): boolean {
  if (keys.length !== pendingKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== pendingKeys[i] || written[i] !== pendingWrites[i]) return false;
  }
  return true;
}

/** Adds the pattern of a layout to the remembered ones, first. */
function compile(keys: readonly string[], written: readonly boolean[]): void {
  const pieces: string[] = [];
  const writtenKeys: string[] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    // In the pattern's own escapes: the separators stay out of its source text.
    const value = written[i] === true ? '([^\\u0002]+)' : '[^\\u0002]+';
    pieces.push(`${key.replace(REGEX_SYNTAX, '\\$&')}\\u0001${value}`);
    if (written[i] === true) writtenKeys.push(key);
  }
  layouts.unshift({ pattern: new RegExp(`^${pieces.join('\\u0002')}\\u0002?$`), writtenKeys });
  if (layouts.length > MAX_REMEMBERED_LAYOUTS) layouts.pop();
}

/** The general rules (see {@link userPropertiesJsonOfText}); remembers the layout of `text`. */
function jsonAndRemember(text: string): string {
  const length = text.length;
  let json = '{';
  /** User keys written so far; made for the second one (most messages have none or one). */
  let written: Set<string> | undefined;
  let firstWritten: string | undefined;
  const keys: string[] = [];
  const writes: boolean[] = [];
  let rememberable = true;
  let index = 0;
  while (index < length) {
    let end = text.indexOf(PROPERTY_SEPARATOR, index);
    if (end < 0) end = length;
    const separator = text.indexOf(NAME_VALUE_SEPARATOR, index);
    if (separator > index && separator < end - 1) {
      const key = text.slice(index, separator);
      let write = false;
      if (!isSystemProperty(key)) {
        if (firstWritten === undefined) {
          firstWritten = key;
          write = true;
        } else if (key !== firstWritten && written?.has(key) !== true) {
          written ??= new Set([firstWritten]);
          written.add(key);
          write = true;
        }
      }
      if (write) {
        if (json.length > 1) json += ',';
        json += `${jsonString(key)}:${jsonString(text.slice(separator + 1, end))}`;
      }
      if (keys.length < MAX_REMEMBERED_PIECES) {
        keys.push(key);
        writes.push(write);
      } else {
        rememberable = false;
      }
    } else {
      rememberable = false;
    }
    index = end + 1;
  }
  if (rememberable) remember(keys, writes);
  else pendingValid = false;
  return closeObject(json);
}

/** `json` (an object's JSON without its closing brace) closed; the constant `{}` when it is empty. */
function closeObject(json: string): string {
  return json.length === 1 ? '{}' : `${json}}`;
}
