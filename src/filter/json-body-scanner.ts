import type { BodyKeyChild, BodyKeyNode } from './body-key-tree.js';
import { MAX_BODY_JSON_BYTES, MAX_EVENT_ARRAY_NESTING } from './filter-limits.js';
import { NOT_JSON } from './json-body.js';

/**
 * A JSON body read from its bytes for the filter: the whole body is checked as JSON (RFC 8259, as
 * `JSON.parse` of its UTF-8 decoding accepts it), but only the keys of a {@link BodyKeyNode} tree are
 * turned into values; every other value is stepped over, checked but never built, and no byte outside
 * the kept keys' strings is decoded. The result is what `JSON.parse` would give with every other key
 * left out (json-body.ts is that reference), so the matcher (message-filter.ts), which reads only those
 * keys, answers the same; test/unit/filter/json-body-scanner.test.ts checks it on random bodies.
 *
 * How it agrees with `JSON.parse(bytes.toString('utf8'))`:
 * - UTF-8: Node decodes an invalid sequence to U+FFFD and never swallows an ASCII byte, so invalid UTF-8
 *   inside a string is still a valid string, and outside one (a BOM too) is a syntax error; key bytes
 *   are compared with the pattern's key bytes only when those round-trip (body-key-tree.ts), else the
 *   key is decoded.
 * - Duplicate keys: the last one wins, as with `JSON.parse`.
 * - Numbers: the same grammar, the same doubles (`Number` of the text, or the integer when it has at
 *   most 15 digits); `-0` stays `-0`.
 * - A key `__proto__` is an own property, as `JSON.parse` makes it (defined, not assigned).
 * - Arrays nested more than MAX_EVENT_ARRAY_NESTING deep are checked but come out empty: the matcher
 *   does not look into them.
 * - Nesting is unbounded as with `JSON.parse` (stepping over is a loop with its own stack, not
 *   recursion); the body is at most MAX_BODY_JSON_BYTES, like the reference's.
 */

/** Thrown inside the scanner at the first byte that makes the body not JSON; never leaves it. */
const INVALID = new Error('not JSON');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Bytes that end a run of plain string bytes: controls (invalid), `"` and `\`. */
const STRING_STOP = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STRING_STOP[c] = 1;
STRING_STOP[QUOTE] = 1;
STRING_STOP[BACKSLASH] = 1;

/** Hex digit values, -1 for other bytes. */
const HEX = new Int8Array(256).fill(-1);
for (let c = 0; c < 10; c++) HEX[ZERO + c] = c;
for (let c = 0; c < 6; c++) {
  HEX[0x41 + c] = 10 + c;
  HEX[0x61 + c] = 10 + c;
}

/** The character of each one-letter escape (`\n`), by the letter's byte; undefined: not one. */
const SIMPLE_ESCAPES: Readonly<Record<number, string>> = {
  [QUOTE]: '"',
  [BACKSLASH]: '\\',
  47: '/',
  98: '\b',
  102: '\f',
  110: '\n',
  114: '\r',
  116: '\t',
};

const IN_OBJECT = 1;
const IN_ARRAY = 2;
/** Containers open while stepping over a value (grows as needed; the scan is synchronous, so one is shared). */
let openContainers = new Uint8Array(64);

/** Whether the last string {@link stringEnd} stepped over had an escape. */
let lastStringEscaped = false;
/** Whether the last number {@link numberEnd} stepped over is an integer of at most 15 digits. */
let lastNumberSmallInteger = false;

const EMPTY = Buffer.alloc(0);

/** Reads JSON bodies for one filter's {@link BodyKeyNode} tree; one scan at a time. */
export class JsonBodyScanner {
  readonly #root: BodyKeyNode;
  #bytes: Buffer = EMPTY;
  #at = 0;

  constructor(root: BodyKeyNode) {
    this.#root = root;
  }

  /** The body with only the tree's keys, or {@link NOT_JSON} (not JSON, empty, or over MAX_BODY_JSON_BYTES). */
  scan(body: Uint8Array): unknown {
    if (body.length === 0 || body.length > MAX_BODY_JSON_BYTES) return NOT_JSON;
    const bytes = load(body);
    this.#bytes = bytes;
    try {
      this.#at = skipSpace(bytes, 0);
      const value = this.#value(this.#root, 0);
      return skipSpace(bytes, this.#at) === body.length ? value : NOT_JSON;
    } catch (error) {
      if (error === INVALID) return NOT_JSON;
      throw error;
    } finally {
      this.#bytes = EMPTY;
    }
  }

  /** The value at the current position (after whitespace), kept at `node`; `nesting` arrays enclose it since the last object. */
  #value(node: BodyKeyNode, nesting: number): unknown {
    const bytes = this.#bytes;
    const at = this.#at;
    const c = bytes[at] as number;
    if (c === OPEN_OBJECT) return this.#object(node);
    if (c === OPEN_ARRAY) return this.#array(node, nesting);
    if (c === QUOTE) {
      const close = stringEnd(bytes, at + 1);
      this.#at = close + 1;
      return lastStringEscaped ? decodeString(bytes, at + 1, close) : bytes.toString('utf8', at + 1, close);
    }
    if (c === MINUS || (c >= ZERO && c <= NINE)) {
      const end = numberEnd(bytes, at);
      this.#at = end;
      return lastNumberSmallInteger
        ? smallInteger(bytes, at, end)
        : Number(bytes.toString('latin1', at, end));
    }
    const end = literalEnd(bytes, at);
    this.#at = end;
    return c === 0x74 ? true : c === 0x66 ? false : null;
  }

  #object(node: BodyKeyNode): Record<string, unknown> {
    const bytes = this.#bytes;
    const object: Record<string, unknown> = {};
    let at = skipSpace(bytes, this.#at + 1);
    if (bytes[at] === CLOSE_OBJECT) {
      this.#at = at + 1;
      return object;
    }
    for (;;) {
      if (bytes[at] !== QUOTE) throw INVALID;
      const close = stringEnd(bytes, at + 1);
      const child = lastStringEscaped
        ? node.byKey.get(decodeString(bytes, at + 1, close))
        : findKey(node, bytes, at + 1, close);
      at = skipSpace(bytes, close + 1);
      if (bytes[at] !== COLON) throw INVALID;
      at = skipSpace(bytes, at + 1);
      if (child === undefined) {
        at = skipValue(bytes, at);
      } else {
        this.#at = at;
        const value = this.#value(child.node, 0);
        // A plain object is much faster to build and read than one without a prototype; `__proto__` is
        // then the one key to define rather than assign (assigning would set the prototype).
        if (child.key === '__proto__') Object.defineProperty(object, '__proto__', ownValue(value));
        else object[child.key] = value;
        at = this.#at;
      }
      at = skipSpace(bytes, at);
      const c = bytes[at] as number;
      if (c === COMMA) {
        at = skipSpace(bytes, at + 1);
      } else if (c === CLOSE_OBJECT) {
        this.#at = at + 1;
        return object;
      } else {
        throw INVALID;
      }
    }
  }

  #array(node: BodyKeyNode, nesting: number): unknown[] {
    const bytes = this.#bytes;
    const array: unknown[] = [];
    if (nesting >= MAX_EVENT_ARRAY_NESTING) {
      this.#at = skipValue(bytes, this.#at);
      return array;
    }
    let at = skipSpace(bytes, this.#at + 1);
    if (bytes[at] === CLOSE_ARRAY) {
      this.#at = at + 1;
      return array;
    }
    for (;;) {
      this.#at = at;
      array.push(this.#value(node, nesting + 1));
      at = skipSpace(bytes, this.#at);
      const c = bytes[at] as number;
      if (c === COMMA) {
        at = skipSpace(bytes, at + 1);
      } else if (c === CLOSE_ARRAY) {
        this.#at = at + 1;
        return array;
      } else {
        throw INVALID;
      }
    }
  }
}

/** A property descriptor like the one an assignment makes. */
function ownValue(value: unknown): PropertyDescriptor {
  return { value, writable: true, enumerable: true, configurable: true };
}

/** The child of `node` whose key is the bytes `start`..`end` (a key without escapes), if any. */
function findKey(node: BodyKeyNode, bytes: Buffer, start: number, end: number): BodyKeyChild | undefined {
  if (!node.bytesComparable) return node.byKey.get(bytes.toString('utf8', start, end));
  const length = end - start;
  const children = node.children;
  for (let index = 0; index < children.length; index++) {
    const child = children[index] as BodyKeyChild;
    const key = child.bytes;
    if (key.length !== length) continue;
    let i = 0;
    while (i < length && key[i] === bytes[start + i]) i++;
    if (i === length) return child;
  }
  return undefined;
}

/** The position of the first byte at or after `at` that is not JSON whitespace. */
function skipSpace(bytes: Buffer, at: number): number {
  let c = bytes[at] as number;
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = bytes[++at] as number;
  return at;
}

/**
 * Zero bytes written after a body in {@link scratch}: a zero byte is invalid wherever it is met (a control
 * inside a string, an unexpected byte outside), so every loop stops at the body's end without testing
 * for it, and no read goes past the memory (at most 6 bytes past the end; 8 keeps the last word whole).
 */
const SENTINEL_BYTES = 8;

/**
 * The body being scanned, copied (one memcpy) into memory of our own: word-aligned for the 4-byte string
 * search, followed by {@link SENTINEL_BYTES} zeros. Grows to the largest body seen (at most
 * MAX_BODY_JSON_BYTES); one for the process, as a scan is synchronous.
 */
let scratch = Buffer.allocUnsafeSlow(4096 + SENTINEL_BYTES);
/** The length of the body in {@link scratch}. */
let bodyLength = 0;
/** {@link scratch} as 4-byte words. */
let scratchWords = new Int32Array(scratch.buffer, scratch.byteOffset, scratch.length >>> 2);

/** Copies `body` into {@link scratch}, followed by zeros. */
function load(body: Uint8Array): Buffer {
  const length = body.length;
  if (length + SENTINEL_BYTES > scratch.length) {
    let size = scratch.length;
    while (size < length + SENTINEL_BYTES) size *= 2;
    scratch = Buffer.allocUnsafeSlow(Math.min(size, MAX_BODY_JSON_BYTES + SENTINEL_BYTES));
    scratchWords = new Int32Array(scratch.buffer, scratch.byteOffset, scratch.length >>> 2);
  }
  scratch.set(body);
  for (let i = length; i < length + SENTINEL_BYTES; i++) scratch[i] = 0;
  bodyLength = length;
  nextBackslash = -1;
  return scratch;
}

/**
 * The position of the `"` closing the string whose text starts at `at`; sets {@link lastStringEscaped}.
 * Throws {@link INVALID} for a control character, a bad escape or a missing `"`.
 *
 * Plain bytes are passed 4 at a time: for a word `x`, `(x - 0x20202020) & ~x` has a byte's top bit set
 * exactly when some byte is below 0x20 (a borrow), and the same test on `x ^ 0x22222222` and
 * `x ^ 0x5c5c5c5c` (`x - 0x01010101`) finds a `"` or a `\`; a word with any of them is read byte by byte.
 */
function stringEnd(bytes: Buffer, at: number): number {
  const words = scratchWords;
  let escaped = false;
  for (;;) {
    if ((at & 3) === 0) {
      // The zeros after the body end this loop at the latest.
      let word = at >> 2;
      for (const native = word + NATIVE_AFTER_WORDS; ; ) {
        if (word === native) {
          const close = longStringEnd(bytes, word << 2);
          if (close >= 0) {
            lastStringEscaped = escaped;
            return close;
          }
        }
        // Literals, not named constants: module bindings would be loaded on every word.
        const x = words[word] as number;
        const quote = x ^ 0x22222222;
        const backslash = x ^ 0x5c5c5c5c;
        const stops =
          (((x - 0x20202020) | 0) & ~x) |
          (((quote - 0x01010101) | 0) & ~quote) |
          (((backslash - 0x01010101) | 0) & ~backslash);
        if ((stops & -0x7f7f7f80) !== 0) break; // -0x7f7f7f80 is 0x80808080 as an int32
        word++;
      }
      at = word << 2;
    }
    const c = bytes[at] as number;
    if (STRING_STOP[c] === 0) {
      at++;
    } else if (c === QUOTE) {
      lastStringEscaped = escaped;
      return at;
    } else if (c === BACKSLASH) {
      escaped = true;
      const letter = bytes[at + 1] as number;
      if (letter === 0x75) {
        if (
          HEX[bytes[at + 2] as number] === -1 ||
          HEX[bytes[at + 3] as number] === -1 ||
          HEX[bytes[at + 4] as number] === -1 ||
          HEX[bytes[at + 5] as number] === -1
        ) {
          throw INVALID;
        }
        at += 6;
      } else if (SIMPLE_ESCAPES[letter] !== undefined) {
        at += 2;
      } else {
        throw INVALID;
      }
    } else {
      throw INVALID; // a control byte, or the zeros after the body
    }
  }
}

/** Words of a string searched in JS before the rest is searched natively ({@link longStringEnd}). */
const NATIVE_AFTER_WORDS = 8;

/** Where the next `\\` of the body is at or after the last search (the body's end when none); -1: not searched yet. */
let nextBackslash = -1;

/**
 * The `"` closing a long string whose plain bytes run from `at`, found by memchr, when no `\\` and no
 * control byte come before it; -1 otherwise (the caller goes on byte by byte).
 */
function longStringEnd(bytes: Buffer, at: number): number {
  const end = bodyLength;
  const close = bytes.indexOf(QUOTE, at);
  if (close < 0 || close >= end) return -1;
  if (nextBackslash < at) {
    nextBackslash = bytes.indexOf(BACKSLASH, at);
    if (nextBackslash < 0 || nextBackslash > end) nextBackslash = end;
  }
  if (nextBackslash < close) return -1;
  // Controls: 4 bytes at a time, `(x - 0x20202020) & ~x & 0x80808080` (see stringEnd).
  const words = scratchWords;
  let word = at >> 2;
  const last = close >> 2;
  for (; word + 1 < last; word += 2) {
    const x = words[word] as number;
    const y = words[word + 1] as number;
    if (((((x - 0x20202020) | 0) & ~x) | (((y - 0x20202020) | 0) & ~y & -0x7f7f7f80)) !== 0) return -1;
  }
  if (word < last) {
    const x = words[word] as number;
    if ((((x - 0x20202020) | 0) & ~x & -0x7f7f7f80) !== 0) return -1;
    word++;
  }
  for (let i = word << 2; i < close; i++) if ((bytes[i] as number) < 0x20) return -1;
  return close;
}

/** The text of the (already checked) string `start`..`end` with its escapes replaced. */
function decodeString(bytes: Buffer, start: number, end: number): string {
  let text = '';
  let run = start;
  let at = start;
  while (at < end) {
    if (bytes[at] !== BACKSLASH) {
      at++;
      continue;
    }
    if (at > run) text += bytes.toString('utf8', run, at);
    const letter = bytes[at + 1] as number;
    if (letter === 0x75) {
      text += String.fromCharCode(
        ((HEX[bytes[at + 2] as number] as number) << 12) |
          ((HEX[bytes[at + 3] as number] as number) << 8) |
          ((HEX[bytes[at + 4] as number] as number) << 4) |
          (HEX[bytes[at + 5] as number] as number),
      );
      at += 6;
    } else {
      text += SIMPLE_ESCAPES[letter] as string;
      at += 2;
    }
    run = at;
  }
  if (end > run) text += bytes.toString('utf8', run, end);
  return text;
}

/** The end of the number starting at `at`; sets {@link lastNumberSmallInteger}. Throws {@link INVALID} if it is not one. */
function numberEnd(bytes: Buffer, at: number): number {
  const start = at;
  if (bytes[at] === MINUS) at++;
  let c = bytes[at] as number;
  if (c === ZERO) {
    c = bytes[++at] as number;
  } else if (c > ZERO && c <= NINE) {
    do c = bytes[++at] as number;
    while (c >= ZERO && c <= NINE);
  } else {
    throw INVALID;
  }
  const integerEnd = at;
  if (c === DOT) {
    c = bytes[++at] as number;
    if (c < ZERO || c > NINE) throw INVALID;
    do c = bytes[++at] as number;
    while (c >= ZERO && c <= NINE);
  }
  if (c === 0x65 || c === 0x45) {
    c = bytes[++at] as number;
    if (c === PLUS || c === MINUS) c = bytes[++at] as number;
    if (c < ZERO || c > NINE) throw INVALID;
    do c = bytes[++at] as number;
    while (c >= ZERO && c <= NINE);
  }
  lastNumberSmallInteger = at === integerEnd && integerEnd - start <= 15;
  return at;
}

/** The integer `start`..`end` (at most 15 digits, so exact), `-0` for `-0`. */
function smallInteger(bytes: Buffer, start: number, end: number): number {
  const negative = bytes[start] === MINUS;
  let value = 0;
  for (let at = negative ? start + 1 : start; at < end; at++)
    value = value * 10 + ((bytes[at] as number) - ZERO);
  return negative ? -value : value;
}

/** The end of `true`, `false` or `null` at `at`; throws {@link INVALID} for anything else. */
function literalEnd(bytes: Buffer, at: number): number {
  const c = bytes[at] as number;
  if (c === 0x74) {
    if (bytes[at + 1] === 0x72 && bytes[at + 2] === 0x75 && bytes[at + 3] === 0x65) return at + 4;
  } else if (c === 0x66) {
    if (bytes[at + 1] === 0x61 && bytes[at + 2] === 0x6c && bytes[at + 3] === 0x73 && bytes[at + 4] === 0x65)
      return at + 5;
  } else if (c === 0x6e) {
    if (bytes[at + 1] === 0x75 && bytes[at + 2] === 0x6c && bytes[at + 3] === 0x6c) return at + 4;
  }
  throw INVALID;
}

/** The position after the key and `:` of an object member whose key's `"` is at `at`, whitespace skipped. */
function skipKey(bytes: Buffer, at: number): number {
  if (bytes[at] !== QUOTE) throw INVALID;
  at = skipSpace(bytes, stringEnd(bytes, at + 1) + 1);
  if (bytes[at] !== COLON) throw INVALID;
  return skipSpace(bytes, at + 1);
}

/**
 * The end of the value starting at `at` (whitespace already skipped), checked but not built. A loop with
 * a stack of the open containers, so any nesting the body size allows costs no recursion.
 */
function skipValue(bytes: Buffer, at: number): number {
  let depth = 0;
  for (;;) {
    const c = bytes[at] as number;
    if (c === QUOTE) {
      at = stringEnd(bytes, at + 1) + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      at = skipSpace(bytes, at + 1);
      const close = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
      if (bytes[at] === close) {
        at++;
      } else {
        if (depth === openContainers.length) {
          const grown = new Uint8Array(depth * 2);
          grown.set(openContainers);
          openContainers = grown;
        }
        openContainers[depth++] = c === OPEN_OBJECT ? IN_OBJECT : IN_ARRAY;
        if (c === OPEN_OBJECT) at = skipKey(bytes, at);
        continue;
      }
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      at = numberEnd(bytes, at);
    } else {
      at = literalEnd(bytes, at);
    }
    // After a value: close containers until one continues with `,`.
    for (;;) {
      if (depth === 0) return at;
      at = skipSpace(bytes, at);
      const next = bytes[at] as number;
      const inObject = openContainers[depth - 1] === IN_OBJECT;
      if (next === COMMA) {
        at = skipSpace(bytes, at + 1);
        if (inObject) at = skipKey(bytes, at);
        break;
      }
      if (next !== (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) throw INVALID;
      depth--;
      at++;
    }
  }
}
