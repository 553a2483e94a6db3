/**
 * The outline of a zstd body (RFC 8878): where each frame starts and ends, what its header declares,
 * read from the frame and block headers alone, without decoding a block. Skippable frames are listed
 * and skipped. A body that ends inside a frame, or has bytes after the last frame that are not a frame,
 * is refused here: a decoder given one frame at a time could otherwise stop early and return a prefix
 * of the message as if it were all of it.
 */
import { DecompressionLimitError } from './decompression-limit-error.js';
import { ProtocolError } from './errors.js';

/** Magic number of a zstd frame (little-endian on the wire). */
export const ZSTD_FRAME_MAGIC = 0xfd2fb528;

/** Block content is at most 128 KiB (RFC 8878 3.1.1.2.4). */
const MAX_BLOCK_BYTES = 128 * 1024;

/** Windows up to 8 MiB (what `zstd -19` uses) pass whatever the output cap; bigger ones need a bigger cap. */
const MAX_WINDOW_BYTES = 8 * 1024 * 1024;

/**
 * One zstd frame of a body.
 */
export interface ZstdFrame {
  /** Offset of the frame's magic number. */
  readonly start: number;
  /** Offset just past the frame (past its checksum when it has one). */
  readonly end: number;
  /** Decompressed size the header declares, or undefined when it does not. */
  readonly contentBytes: number | undefined;
  /** Window the decoder needs, in bytes (the content size for single-segment frames). */
  readonly windowBytes: number;
  /**
   * Most bytes the frame can yield: the declared size, else what its blocks can hold (a raw or RLE
   * block its stated size, a compressed block at most 128 KiB).
   */
  readonly maxOutputBytes: number;
}

/**
 * Lists the data frames of a zstd body and checks that they cover it exactly, and that no frame
 * declares a content size or window above `maxBytes` (so nothing is allocated for a bomb).
 *
 * @throws ProtocolError naming the offset for a bad magic number, a reserved bit or block type, a
 *   block above 128 KiB, a body that ends inside a frame, a declared size above the cap, no data frame.
 */
export function zstdFrames(data: Uint8Array, maxBytes: number): ZstdFrame[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const frames: ZstdFrame[] = [];
  let position = 0;
  let declaredTotal = 0;
  while (position < data.length) {
    if (data.length - position < 8) {
      throw new ProtocolError(`zstd data ends inside a frame header at byte ${position} of ${data.length}`);
    }
    const magic = view.getUint32(position, true);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      const skip = view.getUint32(position + 4, true);
      position = frameEnd(position + 8 + skip, data.length, position, 'skippable frame');
      continue;
    }
    if (magic !== ZSTD_FRAME_MAGIC) {
      throw new ProtocolError(
        `zstd data has no frame magic at byte ${position} (0x${magic.toString(16).padStart(8, '0')})`,
      );
    }
    const frame = readFrame(view, position, maxBytes);
    if (frame.contentBytes !== undefined) {
      declaredTotal += frame.contentBytes;
      if (declaredTotal > maxBytes) {
        throw new DecompressionLimitError(`zstd frames declaring ${declaredTotal} bytes`, maxBytes);
      }
    }
    frames.push(frame);
    position = frame.end;
  }
  if (frames.length === 0) {
    throw new ProtocolError(`zstd data of ${data.length} bytes holds no data frame`);
  }
  return frames;
}

function readFrame(view: DataView, start: number, maxBytes: number): ZstdFrame {
  const length = view.byteLength; // the caller checked that 8 bytes from `start` are there
  const descriptor = view.getUint8(start + 4);
  if ((descriptor & 0x08) !== 0) {
    throw new ProtocolError(`zstd frame at byte ${start} sets the reserved descriptor bit`);
  }
  const singleSegment = (descriptor & 0x20) !== 0;
  const hasChecksum = (descriptor & 0x04) !== 0;
  const dictBytes = [0, 1, 2, 4][descriptor & 3] ?? 0;
  const sizeFlag = descriptor >> 6;
  const sizeBytes = sizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << sizeFlag;
  let position = start + 5;
  let windowBytes = 0;
  if (!singleSegment) {
    const windowDescriptor = view.getUint8(position);
    const base = 2 ** (10 + (windowDescriptor >> 3));
    windowBytes = base + (base / 8) * (windowDescriptor & 7);
    position += 1;
  }
  position += dictBytes;
  if (position + sizeBytes > length) {
    throw new ProtocolError(`zstd data ends inside the frame header at byte ${start}`);
  }
  let contentBytes: number | undefined;
  if (sizeBytes > 0) {
    contentBytes = 0;
    for (let i = sizeBytes - 1; i >= 0; i--) contentBytes = contentBytes * 256 + view.getUint8(position + i);
    if (sizeBytes === 2) contentBytes += 256;
    if (contentBytes > maxBytes) {
      throw new DecompressionLimitError(
        `zstd frame at byte ${start} declares ${contentBytes} bytes, which`,
        maxBytes,
      );
    }
    if (singleSegment) windowBytes = contentBytes;
    position += sizeBytes;
  }
  if (windowBytes > Math.max(maxBytes, MAX_WINDOW_BYTES)) {
    throw new DecompressionLimitError(
      `zstd frame at byte ${start} needs a ${windowBytes}-byte window, which`,
      maxBytes,
    );
  }
  let blockOutputBytes = 0;
  for (;;) {
    if (position + 3 > length) {
      throw new ProtocolError(`zstd frame at byte ${start} ends before its last block (${length} bytes)`);
    }
    const header =
      view.getUint8(position) | (view.getUint8(position + 1) << 8) | (view.getUint8(position + 2) << 16);
    const last = (header & 1) === 1;
    const type = (header >> 1) & 3;
    const size = header >>> 3;
    if (type === 3) throw new ProtocolError(`zstd block at byte ${position} has the reserved type 3`);
    if (size > MAX_BLOCK_BYTES) {
      throw new ProtocolError(`zstd block at byte ${position} is ${size} bytes, above 128 KiB`);
    }
    blockOutputBytes += type === 2 ? MAX_BLOCK_BYTES : size;
    position = frameEnd(position + 3 + (type === 1 ? 1 : size), length, start, 'frame');
    if (last) break;
  }
  if (hasChecksum) position = frameEnd(position + 4, length, start, 'frame');
  const maxOutputBytes = contentBytes ?? blockOutputBytes;
  return { start, end: position, contentBytes, windowBytes, maxOutputBytes };
}

function frameEnd(end: number, length: number, start: number, what: string): number {
  if (end > length) {
    throw new ProtocolError(
      `zstd ${what} at byte ${start} runs past the end of the data (${end} > ${length})`,
    );
  }
  return end;
}
