/**
 * Bounds on the header of an incoming remoting frame, checked before the header is parsed. The 16 MiB
 * frame cap alone let a peer send a 9.7 MB JSON header of 700,000 fields, which blocked the event loop
 * for 0.9-1.1 s per frame (the binary codec 1.1-4.4 s): the cost of a header is its number of fields
 * far more than its bytes (a field costs about a microsecond, a MiB of one string value about one
 * millisecond).
 *
 * What legitimate headers carry: a few to about 30 fields (a POP response's 7, a PULL response's 8, a
 * request's header class plus its RPC and ACL fields), and a few hundred bytes. Routes, consumer lists
 * and offsets travel in bodies. The largest real header is a batch send's response, whose `msgId` lists
 * the offset message id of every message of the batch, 33 bytes each (32 hex digits and a comma, IPv4
 * brokers): a 4 MiB batch (the broker's default `maxMessageSize`) of the smallest messages our producer
 * encodes (about 44 bytes) gives about 3.1 MB, under {@link MAX_HEADER_BYTES}.
 */
import { ProtocolError } from './errors.js';

/**
 * Largest header an incoming frame may have, in bytes (the length in the frame's header word). Above
 * it the frame is refused unparsed and the connection closed, as for any malformed frame.
 */
export const MAX_HEADER_BYTES = 4 * 1024 * 1024;

/**
 * Most fields an incoming header may have: extFields entries of a binary header; every member of a
 * JSON header, its own (`code`, `opaque`, ...) included. Thirty times what any RocketMQ header holds,
 * and parsed in well under a millisecond.
 */
export const MAX_HEADER_FIELDS = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
/** The header object and its `extFields` object: nothing in a remoting header nests deeper. */
const MAX_JSON_DEPTH = 2;

/**
 * Refuses a JSON header whose parse could cost more than its fields are worth, without parsing it: more
 * than {@link MAX_HEADER_FIELDS} members (a `:` outside strings each), an array, or an object nested
 * deeper than `extFields`. No remoting header holds an array or a deeper object, and without them the
 * members counted are every value `JSON.parse` would build besides the two objects. One pass over the
 * bytes (UTF-8 multi-byte sequences never contain these ASCII bytes), stopping at the first refusal;
 * string contents are skipped with `indexOf`, so a long field value costs little.
 */
export function checkJsonHeaderShape(header: Buffer, maxFields: number = MAX_HEADER_FIELDS): void {
  let fields = 0;
  let depth = 0;
  const length = header.length;
  let i = 0;
  while (i < length) {
    const c = header[i];
    if (c === QUOTE) {
      i = stringEnd(header, i + 1);
      continue;
    }
    if (c === COLON) {
      fields++;
      if (fields > maxFields) {
        throw new ProtocolError(`JSON header of ${length} bytes has more than ${maxFields} fields (the cap)`);
      }
    } else if (c === OPEN_BRACE) {
      depth++;
      if (depth > MAX_JSON_DEPTH) {
        throw new ProtocolError(
          `JSON header of ${length} bytes nests an object inside extFields at byte ${i}; a remoting header holds none`,
        );
      }
    } else if (c === CLOSE_BRACE) {
      depth--;
    } else if (c === OPEN_BRACKET) {
      throw new ProtocolError(
        `JSON header of ${length} bytes holds an array at byte ${i}; a remoting header holds none`,
      );
    }
    i++;
  }
}

/**
 * The index just past the quote closing the string whose contents start at `from` (the header's length
 * when it never closes: JSON.parse then says what is wrong). `indexOf` finds the next quote; only when
 * that one is escaped (preceded by an odd run of backslashes) does the rest of the string go byte by
 * byte, so neither a long value nor one full of escaped quotes costs more than a pass over its bytes.
 */
function stringEnd(header: Buffer, from: number): number {
  const quote = header.indexOf(QUOTE, from);
  if (quote < 0) return header.length;
  let backslashes = 0;
  for (let j = quote - 1; j >= from && header[j] === BACKSLASH; j--) backslashes++;
  if (backslashes % 2 === 0) return quote + 1;
  const length = header.length;
  let i = quote + 1;
  while (i < length) {
    const c = header[i];
    if (c === QUOTE) return i + 1;
    i += c === BACKSLASH ? 2 : 1;
  }
  return length;
}
