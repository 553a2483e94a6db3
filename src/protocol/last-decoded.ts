/**
 * The last string decoded from one kind of record field: the records of a PULL body repeat their topic
 * and hosts, and comparing a few bytes is cheaper than building the string again.
 */
import { formatHostPort, formatIpAddress } from './message-id.js';

/**
 * Remembers the last string decoded from one kind of field, with a copy of its bytes. Never holds the
 * caller's buffer.
 */
export class LastDecoded {
  private readonly bytes: Buffer;
  private length = -1;
  private text = '';

  constructor(maxBytes: number) {
    this.bytes = Buffer.alloc(maxBytes);
  }

  /** `decode(buffer, start, end)`, or the remembered string when the bytes are the same as last time. */
  get(
    buffer: Buffer,
    start: number,
    end: number,
    decode: (buffer: Buffer, start: number, end: number) => string,
  ): string {
    const length = end - start;
    const bytes = this.bytes;
    if (length === this.length) {
      let i = 0;
      while (i < length && bytes[i] === buffer[start + i]) i++;
      if (i === length) return this.text;
    }
    const text = decode(buffer, start, end);
    if (length <= bytes.length) {
      buffer.copy(bytes, 0, start, end);
      this.length = length;
      this.text = text;
    }
    return text;
  }
}

/**
 * `buffer[start, end)` as UTF-8.
 */
export function decodeUtf8(buffer: Buffer, start: number, end: number): string {
  return buffer.toString('utf8', start, end);
}

/**
 * `ip:port` of a record's host field `buffer[position, end)` (a 4- or 16-byte address, then an int32
 * port); IPv6 as `[ip]:port`.
 */
export function formatHostField(buffer: Buffer, position: number, end: number): string {
  const ipLength = end - position - 4;
  const port = buffer.readInt32BE(position + ipLength);
  if (ipLength === 4) {
    return `${buffer[position]}.${buffer[position + 1]}.${buffer[position + 2]}.${buffer[position + 3]}:${port}`;
  }
  return formatHostPort(formatIpAddress(buffer.subarray(position, position + ipLength)), port);
}
