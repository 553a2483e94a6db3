/**
 * Message body compression (Java `common/.../compression/`): ZLIB is a `java.util.zip.Deflater`
 * stream (zlib header), LZ4 the LZ4 *frame* format (see lz4-frame.ts), ZSTD standard zstd frames (see
 * zstd.ts: native libzstd where Node has it, else fzstd in a worker under a deadline).
 * Every decompression is capped in output size: past the cap it stops and throws
 * DecompressionLimitError (decompression-limit-error.ts); other failures are ProtocolError with the
 * library error as `cause`.
 */
import { constants as bufferConstants } from 'node:buffer';
import { deflateSync, inflateSync } from 'node:zlib';
import { errorMessage } from '../util/error-message.js';
import { DecompressionLimitError } from './decompression-limit-error.js';
import { ProtocolError } from './errors.js';
import { decompressLz4Frames } from './lz4-frame.js';
import { decompressZstd } from './zstd.js';

/**
 * Compression types of SYSFLAG bits 8-10 (Java `CompressionType`); type bits 0 also mean ZLIB.
 */
export const CompressionType = { LZ4: 1, ZSTD: 2, ZLIB: 3 } as const;
export type CompressionType = (typeof CompressionType)[keyof typeof CompressionType];

/**
 * Default cap on the decompressed size of one body when the caller names none: 6 MiB, above the 4 MiB a
 * Java producer lets a body have before it compresses it (`maxMessageSize`), and as much as one Lambda
 * invoke can carry (a larger body could never be delivered whole anyway). Consumers set their own
 * (`maxDecompressedBodyBytes`).
 */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 6 * 1024 * 1024;

/** zlib level Java producers use (`compressLevel`, default 5). */
const DEFAULT_ZLIB_LEVEL = 5;

/**
 * Maps SYSFLAG compression type bits (0..7) to a {@link CompressionType}; 0 is ZLIB as in Java.
 *
 * @throws ProtocolError for 4..7 (unknown to Java as well).
 */
export function compressionTypeOf(typeBits: number): CompressionType {
  switch (typeBits) {
    case 0:
    case CompressionType.ZLIB:
      return CompressionType.ZLIB;
    case CompressionType.LZ4:
      return CompressionType.LZ4;
    case CompressionType.ZSTD:
      return CompressionType.ZSTD;
    default:
      throw new ProtocolError(`Unknown compression type ${typeBits} in message sysFlag`);
  }
}

/**
 * Decompresses a message body. `type` is a {@link CompressionType} or the raw sysFlag type number
 * (0 = ZLIB). The result is a fresh Buffer of at most `maxBytes`.
 *
 * @throws DecompressionLimitError for output above `maxBytes` (nothing above it is allocated);
 *   ProtocolError for an unknown type or corrupt data, the library's error as the `cause`.
 */
export function decompress(
  type: number,
  data: Uint8Array,
  maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES,
): Buffer {
  const kind = compressionTypeOf(type);
  switch (kind) {
    case CompressionType.ZLIB:
      return inflateZlib(data, maxBytes);
    case CompressionType.LZ4:
      return decompressLz4Frames(data, maxBytes);
    case CompressionType.ZSTD:
      return decompressZstd(data, maxBytes);
  }
}

/**
 * Compresses with zlib (header and Adler-32, as `java.util.zip.Deflater` writes).
 */
export function compressZlib(data: Uint8Array, level = DEFAULT_ZLIB_LEVEL): Buffer {
  return deflateSync(data, { level });
}

function inflateZlib(data: Uint8Array, maxBytes: number): Buffer {
  try {
    const limit = Math.max(1, Math.min(Math.floor(maxBytes), bufferConstants.MAX_LENGTH));
    return inflateSync(data, { maxOutputLength: limit });
  } catch (err) {
    // inflateSync stops once its output passes maxOutputLength: no more than that is ever held.
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new DecompressionLimitError('zlib output', maxBytes, { cause: err });
    }
    throw new ProtocolError(`zlib decompression failed: ${errorMessage(err)}`, { cause: err });
  }
}
