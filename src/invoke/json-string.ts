/**
 * JSON strings written byte-exactly and fast, for the event serializer: short ASCII strings are their own
 * JSON, and a UTF-8 body is measured and escaped straight from its bytes (exactly as `JSON.stringify`
 * escapes its text, non-ASCII characters raw), so an event's size is known before it is written.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Strings made only of these characters are their own JSON (between quotes), byte for byte. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * For each byte of a UTF-8 body, how many bytes its JSON escape adds: `"` and `\` and the short escapes
 * (`\b \t \n \f \r`) one, other control characters five (`\u00XX`). Bytes ≥ 0x80 (the parts of non-ASCII
 * characters) are written raw, as `JSON.stringify` leaves those characters.
 */
const ESCAPE_EXTRA_BYTES = new Uint8Array(256);
/** The character after the backslash of a two-character escape, by byte (0: none). */
const SHORT_ESCAPES = new Uint8Array(256);
for (const [byte, letter] of [
  [0x08, 'b'],
  [0x09, 't'],
  [0x0a, 'n'],
  [0x0c, 'f'],
  [0x0d, 'r'],
  [QUOTE, '"'],
  [BACKSLASH, '\\'],
] as const) {
  SHORT_ESCAPES[byte] = letter.charCodeAt(0);
}
for (let b = 0; b < 0x20; b++) ESCAPE_EXTRA_BYTES[b] = SHORT_ESCAPES[b] === 0 ? 5 : 1;
ESCAPE_EXTRA_BYTES[QUOTE] = 1;
ESCAPE_EXTRA_BYTES[BACKSLASH] = 1;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
/** Runs of plain bytes shorter than this are copied byte by byte (cheaper than a Buffer#copy call). */
const MIN_COPY_CALL_BYTES = 32;

/**
 * `JSON.stringify(value)`, without its work for the common plain-ASCII string.
 */
export function jsonString(value: string): string {
  return PLAIN_JSON_STRING.test(value) ? `"${value}"` : JSON.stringify(value);
}

/**
 * The UTF-8 length of `jsonString(value)`, without making it for the common plain-ASCII string.
 */
export function jsonStringBytes(value: string): number {
  return PLAIN_JSON_STRING.test(value) ? value.length + 2 : Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * `JSON.stringify(values)` for an array of strings.
 */
export function jsonStringArray(values: readonly string[]): string {
  let json = '[';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) json += ',';
    json += jsonString(values[i] as string);
  }
  return `${json}]`;
}

/**
 * The length of the JSON string (quotes excluded) of a valid UTF-8 body, in UTF-8.
 */
export function escapedUtf8Length(body: Uint8Array): number {
  let length = body.length;
  for (let i = 0; i < body.length; i++) length += ESCAPE_EXTRA_BYTES[body[i] as number] as number;
  return length;
}

/**
 * Writes the JSON string (quotes excluded) of a valid UTF-8 body into `out` at `pos`, which must have
 * {@link escapedUtf8Length} bytes free; returns the position after it.
 */
export function writeEscapedUtf8(body: Buffer, out: Buffer, pos: number): number {
  let runStart = 0;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i] as number;
    if (ESCAPE_EXTRA_BYTES[byte] === 0) continue;
    if (i - runStart >= MIN_COPY_CALL_BYTES) pos += body.copy(out, pos, runStart, i);
    else for (let j = runStart; j < i; j++) out[pos++] = body[j] as number;
    runStart = i + 1;
    out[pos++] = BACKSLASH;
    const short = SHORT_ESCAPES[byte] as number;
    if (short !== 0) {
      out[pos++] = short;
    } else {
      out[pos++] = 0x75; // u
      out[pos++] = 0x30;
      out[pos++] = 0x30;
      out[pos++] = HEX_DIGITS[byte >> 4] as number;
      out[pos++] = HEX_DIGITS[byte & 0x0f] as number;
    }
  }
  if (runStart < body.length) pos += body.copy(out, pos, runStart);
  return pos;
}
