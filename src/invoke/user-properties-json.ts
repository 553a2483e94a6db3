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

const NAME_VALUE_CODE = NAME_VALUE_SEPARATOR.charCodeAt(0);
/** Layouts of more pieces than this are not remembered (no message of a real producer comes close). */
const MAX_REMEMBERED_PIECES = 64;

/**
 * The keys of the last text {@link userPropertiesJsonOfText} walked in full when all its pieces were well
 * formed: the key of each piece and whether its value goes into the JSON (a user property seen for the
 * first time). Messages of one producer repeat their keys in one order, so the next text is checked
 * against these keys (`startsWith` at each piece, no key string made and no set lookup) instead of walked
 * again. Holds key strings only, never a value.
 */
const lastKeys: string[] = [];
const lastWritten: boolean[] = [];
/** Pieces of the remembered layout; -1 when the last text walked in full could not be remembered. */
let lastCount = -1;

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
  return jsonLikeLast(text) ?? jsonAndRemember(text);
}

/**
 * The JSON of `text` when its pieces have the remembered keys in the remembered order (values may
 * differ), else undefined. Gives what {@link jsonAndRemember} gives: a remembered key holds no U+0001
 * (it ended at the first one of its piece) nor U+0002, so a piece that starts with it followed by U+0001
 * splits there under the general rules too, and the same keys in the same order make the same first
 * occurrences.
 */
function jsonLikeLast(text: string): string | undefined {
  const count = lastCount;
  if (count < 0) return undefined;
  const length = text.length;
  let json = '{';
  let index = 0;
  for (let i = 0; i < count; i++) {
    const key = lastKeys[i] as string;
    const separator = index + key.length;
    if (text.charCodeAt(separator) !== NAME_VALUE_CODE || !text.startsWith(key, index)) return undefined;
    let end = text.indexOf(PROPERTY_SEPARATOR, separator);
    if (end < 0) end = length;
    if (end === separator + 1) return undefined;
    if (lastWritten[i] === true) {
      if (json.length > 1) json += ',';
      json += `${jsonString(key)}:${jsonString(text.slice(separator + 1, end))}`;
    }
    index = end + 1;
  }
  if (index < length) return undefined;
  return closeObject(json);
}

/** The general rules (see {@link userPropertiesJsonOfText}); remembers the layout of `text`. */
function jsonAndRemember(text: string): string {
  const length = text.length;
  let json = '{';
  /** User keys written so far; made for the second one (most messages have none or one). */
  let written: Set<string> | undefined;
  let firstWritten: string | undefined;
  let count = 0;
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
      if (count < MAX_REMEMBERED_PIECES) {
        lastKeys[count] = key;
        lastWritten[count] = write;
        count++;
      } else {
        rememberable = false;
      }
    } else {
      rememberable = false;
    }
    index = end + 1;
  }
  lastCount = rememberable ? count : -1;
  return closeObject(json);
}

/** `json` (an object's JSON without its closing brace) closed; the constant `{}` when it is empty. */
function closeObject(json: string): string {
  return json.length === 1 ? '{}' : `${json}}`;
}
