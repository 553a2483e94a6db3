/**
 * A compressed body that would inflate past the cap it was given. Not a corrupt body: the bytes may be a
 * perfectly good message, only too large to hold. The decoder tells the two apart so that such a message
 * goes the way of an oversize message (the DLQ, named in the log) instead of being retried as undecodable.
 */
import { ProtocolError } from './errors.js';

/**
 * Thrown by every decompressor (zlib, LZ4, zstd) when the output would pass `limitBytes`, or when a frame
 * declares a size or window above it; nothing above the limit is ever allocated.
 */
export class DecompressionLimitError extends ProtocolError {
  readonly limitBytes: number;

  /** `what` names what went past the limit: `zlib output`, `zstd frame at byte 0 declaring 9000000 bytes`. */
  constructor(what: string, limitBytes: number, options: { cause?: unknown } = {}) {
    super(`${what} exceeds the ${limitBytes}-byte decompression limit`, options);
    this.limitBytes = limitBytes;
  }
}
