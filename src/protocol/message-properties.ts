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
 * @example
 * ```ts
 * encodeProperties({ TAGS: 'TagA', KEYS: 'k1 k2' }); // 'TAGS\u0001TagA\u0002KEYS\u0001k1 k2\u0002'
 * ```
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

/**
 * Decodes a properties string with Java's rules (see the file header), except for duplicate keys: the
 * first occurrence wins. The broker appends a batch's own properties (its `UNIQ_KEY`, `WAIT`) to every
 * message stored from a SEND_BATCH_MESSAGE, so each such message carries `UNIQ_KEY` twice; Java lets the
 * batch's value win and every message of the batch then shares one msgId. Keeping the message's own value
 * gives each record its own id, which `batchItemFailures` needs. Never throws; the result has no
 * prototype, so keys such as `__proto__` are plain entries.
 *
 * @example
 * ```ts
 * decodeProperties('TAGS\u0001TagA\u0002\u0001orphan\u0002'); // { TAGS: 'TagA' }
 * ```
 */
export function decodeProperties(text: string): Record<string, string> {
  // A null prototype set on a literal keeps the object in V8's fast mode, unlike Object.create(null).
  const properties: Record<string, string> = Object.setPrototypeOf({}, null);
  const length = text.length;
  let index = 0;
  while (index < length) {
    let end = text.indexOf(PROPERTY_SEPARATOR, index);
    if (end < 0) end = length;
    if (end - index >= 3) {
      // Java searches for U+0001 from the piece start without bounding it by the piece end.
      const separator = text.indexOf(NAME_VALUE_SEPARATOR, index);
      if (separator > index && separator < end - 1) {
        const key = intern(text.slice(index, separator));
        // No prototype and only string values: `undefined` means "not seen yet", cheaper than `in`.
        if (properties[key] === undefined) properties[key] = text.slice(separator + 1, end);
      }
    }
    index = end + 1;
  }
  return properties;
}

function hasSeparator(text: string): boolean {
  return text.includes(NAME_VALUE_SEPARATOR) || text.includes(PROPERTY_SEPARATOR);
}
