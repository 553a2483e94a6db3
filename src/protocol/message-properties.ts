/**
 * The properties string of a RocketMQ message (Java `MessageDecoder.messageProperties2String` and
 * `string2messageProperties`).
 *
 * ```
 * properties = (key U+0001 value U+0002)*          Java always writes the trailing U+0002
 * ```
 * Parsing splits on U+0002; inside a piece the first U+0001 separates key from value; pieces shorter
 * than 3 chars, with an empty key or an empty value are skipped; a later duplicate key wins. Lengths
 * are UTF-16 code units, as in Java.
 */
import { ProtocolError } from './errors.js';

/** Separates a key from its value. */
export const NAME_VALUE_SEPARATOR = '\u0001';
/** Ends each key/value pair. */
export const PROPERTY_SEPARATOR = '\u0002';

/**
 * Encodes properties as `key\u0001value\u0002...`, in the object's key order.
 *
 * @throws ProtocolError when a key is empty, a value is empty (no decoder would see it) or a key or
 *   value contains U+0001 or U+0002 (it would corrupt the string); the message names the key.
 */
export function encodeProperties(properties: Readonly<Record<string, string>>): string {
  let text = '';
  for (const key of Object.keys(properties)) {
    const value = properties[key];
    if (typeof value !== 'string') {
      throw new ProtocolError(`Property ${JSON.stringify(key)} has a non-string value`);
    }
    if (key.length === 0) throw new ProtocolError('Property key must not be empty');
    if (value.length === 0) {
      throw new ProtocolError(`Property ${JSON.stringify(key)} has an empty value, which decoders drop`);
    }
    if (hasSeparator(key)) {
      throw new ProtocolError(`Property key ${JSON.stringify(key)} contains a U+0001 or U+0002 separator`);
    }
    if (hasSeparator(value)) {
      throw new ProtocolError(
        `Value of property ${JSON.stringify(key)} contains a U+0001 or U+0002 separator`,
      );
    }
    text += key + NAME_VALUE_SEPARATOR + value + PROPERTY_SEPARATOR;
  }
  return text;
}

/** At most this many distinct keys are interned; later new keys are used as decoded. */
const MAX_INTERNED_KEYS = 4096;
/**
 * One shared string per key seen: a property store with a string that is already a property name
 * skips V8's string-table lookup, and every message's keys share that one string.
 */
const internedKeys = new Map<string, string>();

function intern(key: string): string {
  const known = internedKeys.get(key);
  if (known !== undefined) return known;
  if (internedKeys.size < MAX_INTERNED_KEYS) internedKeys.set(key, key);
  return key;
}

/** Layouts of more pieces than this are not remembered (no message of a real producer comes close). */
const MAX_REMEMBERED_PIECES = 256;
/**
 * The pieces of the last properties string {@link decodeProperties} read in full, when every piece was
 * well formed and none was `__proto__`: its key (interned) and whether it was stored (false for a
 * later duplicate, such as a batch's second UNIQ_KEY). Messages of one producer repeat their keys in
 * one order: comparing the next string's keys with these costs less than interning each key again and
 * checking it for a duplicate. Holds key strings only, never a buffer or a value.
 */
const lastKeys: string[] = [];
const lastStored: boolean[] = [];
/** Pieces in the remembered layout; 0 when the last string read in full could not be remembered. */
let lastCount = 0;

/**
 * Decodes a properties string with Java's rules (see the file header), except for duplicate keys: the
 * first occurrence wins. The broker appends a batch's own properties (its `UNIQ_KEY`, `WAIT`) to every
 * message stored from a SEND_BATCH_MESSAGE, so each such message carries `UNIQ_KEY` twice; Java lets the
 * batch's value win and every message of the batch then shares one msgId. Keeping the message's own value
 * gives each record its own id, which `batchItemFailures` needs. Never throws; the result has no
 * prototype, so keys such as `__proto__` are plain entries.
 */
export function decodeProperties(text: string): Record<string, string> {
  return decodeLikeLast(text) ?? decodeAndRemember(text);
}

/**
 * The properties of `text` when its pieces have the remembered keys in the remembered order (values
 * may differ), else undefined. Gives what {@link decodeAndRemember} gives: a remembered key holds no
 * U+0001 or U+0002, so a piece that starts with it followed by U+0001 splits there under the general
 * rules too, and the same keys in the same order make the same duplicates.
 */
function decodeLikeLast(text: string): Record<string, string> | undefined {
  const count = lastCount;
  if (count === 0) return undefined;
  const length = text.length;
  // An ordinary object while the keys go in, a null prototype set once at the end: V8 keeps it in fast
  // mode with many keys, where stores into an object that starts without prototype turn it into a
  // dictionary past ~16 keys. No key is __proto__ here, so no store reaches Object.prototype's setter.
  const properties: Record<string, string> = {};
  let index = 0;
  for (let i = 0; i < count; i++) {
    const key = lastKeys[i] as string;
    const separator = index + key.length;
    if (text.charCodeAt(separator) !== 1 || text.slice(index, separator) !== key) return undefined;
    let end = text.indexOf(PROPERTY_SEPARATOR, separator);
    if (end < 0) end = length;
    if (end === separator + 1) return undefined;
    if (lastStored[i] === true) properties[key] = text.slice(separator + 1, end);
    index = end + 1;
  }
  if (index < length) return undefined;
  return Object.setPrototypeOf(properties, null);
}

/** The general rules (see {@link decodeProperties}); remembers the layout of `text` for the next call. */
function decodeAndRemember(text: string): Record<string, string> {
  // A null prototype set on a literal keeps the object in V8's fast mode, unlike Object.create(null).
  const properties: Record<string, string> = Object.setPrototypeOf({}, null);
  const length = text.length;
  let count = 0;
  let rememberable = true;
  let index = 0;
  while (index < length) {
    let end = text.indexOf(PROPERTY_SEPARATOR, index);
    if (end < 0) end = length;
    // Java searches for U+0001 from the piece start without bounding it by the piece end.
    const separator = end - index >= 3 ? text.indexOf(NAME_VALUE_SEPARATOR, index) : -1;
    if (separator > index && separator < end - 1) {
      const key = intern(text.slice(index, separator));
      const value = text.slice(separator + 1, end);
      // No prototype and only string values: `undefined` means "not seen yet", cheaper than `in`.
      const stored = properties[key] === undefined;
      if (stored) properties[key] = value;
      if (count < MAX_REMEMBERED_PIECES && key !== '__proto__') {
        lastKeys[count] = key;
        lastStored[count] = stored;
        count++;
      } else {
        rememberable = false;
      }
    } else {
      rememberable = false;
    }
    index = end + 1;
  }
  lastCount = rememberable ? count : 0;
  return properties;
}

function hasSeparator(text: string): boolean {
  return text.includes(NAME_VALUE_SEPARATOR) || text.includes(PROPERTY_SEPARATOR);
}
