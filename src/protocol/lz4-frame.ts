/**
 * The LZ4 *frame* format of Java's `LZ4FrameOutputStream` (independent 4 MiB blocks, no checksums),
 * written and read here over lz4js's block codec. Frames are parsed here because lz4js's own frame
 * reader trusts the sizes it reads (a 20-byte frame can make it allocate gigabytes) and checks no
 * checksum: every size, offset and checksum is validated before a byte is decoded.
 *
 * Frame grammar (all little-endian):
 * ```
 * frame      = magic:u32=0x184D2204 FLG:u8 BD:u8 [contentSize:u64] [dictId:u32] HC:u8
 *              block* endMark:u32=0 [contentChecksum:u32]
 * block      = size:u32 (bit 31: stored uncompressed) data:bytes[size & 0x7FFFFFFF] [blockChecksum:u32]
 * skippable  = magic:u32=0x184D2A5? size:u32 bytes[size]
 * ```
 */
import lz4js from 'lz4js';
import xxh32 from 'lz4js/xxh32.js';
import { DecompressionLimitError } from './decompression-limit-error.js';
import { ProtocolError } from './errors.js';

const LZ4_MAGIC = 0x184d2204;
const LZ4_SKIPPABLE_MAGIC_MASK = 0xfffffff0;
const LZ4_SKIPPABLE_MAGIC = 0x184d2a50;
const LZ4_FLG_VERSION_MASK = 0xc0;
const LZ4_FLG_VERSION = 0x40;
const LZ4_FLG_BLOCK_INDEPENDENT = 0x20;
const LZ4_FLG_BLOCK_CHECKSUM = 0x10;
const LZ4_FLG_CONTENT_SIZE = 0x08;
const LZ4_FLG_CONTENT_CHECKSUM = 0x04;
const LZ4_FLG_RESERVED = 0x02;
const LZ4_FLG_DICT_ID = 0x01;
const LZ4_BD_RESERVED = 0x8f;
const LZ4_UNCOMPRESSED_BIT = 0x80000000;
const LZ4_MIN_MATCH = 4;
/** Block size ids 4..7 of the BD byte: 64 KiB, 256 KiB, 1 MiB, 4 MiB. */
const LZ4_BLOCK_SIZE_ID_4MB = 7;
const LZ4_MAX_BLOCK_BYTES = 4 * 1024 * 1024;

/**
 * Compresses to an LZ4 frame the way Java's `LZ4FrameOutputStream` does: independent 4 MiB blocks,
 * no checksums, no content size (Java's reader rejects dependent blocks).
 */
export function compressLz4(data: Uint8Array): Buffer {
  const chunks: Buffer[] = [];
  const header = Buffer.alloc(7);
  header.writeUInt32LE(LZ4_MAGIC, 0);
  header[4] = LZ4_FLG_VERSION | LZ4_FLG_BLOCK_INDEPENDENT;
  header[5] = LZ4_BLOCK_SIZE_ID_4MB << 4;
  header[6] = (xxh32.hash(0, header, 4, 2) >>> 8) & 0xff;
  chunks.push(header);
  for (let start = 0; start < data.length; start += LZ4_MAX_BLOCK_BYTES) {
    const block = data.subarray(start, Math.min(data.length, start + LZ4_MAX_BLOCK_BYTES));
    const packed = new Uint8Array(lz4js.compressBound(block.length));
    const packedLength = lz4js.compressBlock(block, packed, 0, block.length, new Uint32Array(1 << 16));
    const size = Buffer.alloc(4);
    if (packedLength === 0 || packedLength >= block.length) {
      size.writeUInt32LE((LZ4_UNCOMPRESSED_BIT | block.length) >>> 0, 0);
      chunks.push(size, Buffer.from(block));
    } else {
      size.writeUInt32LE(packedLength, 0);
      chunks.push(size, Buffer.from(packed.buffer, packed.byteOffset, packedLength));
    }
  }
  chunks.push(Buffer.alloc(4));
  return Buffer.concat(chunks);
}

interface Lz4Block {
  readonly start: number;
  readonly length: number;
  readonly compressed: boolean;
}

interface Lz4Frame {
  readonly blocks: Lz4Block[];
  readonly outputLength: number;
  readonly contentChecksum: number | undefined;
  readonly end: number;
}

/**
 * Decodes one or more concatenated LZ4 frames (skippable frames are skipped) into a fresh Buffer of at
 * most `maxBytes`.
 *
 * @throws ProtocolError for a malformed or truncated frame or a checksum mismatch;
 *   DecompressionLimitError for output above `maxBytes` (found before anything is decoded).
 */
export function decompressLz4Frames(data: Uint8Array, maxBytes: number): Buffer {
  const frames: Lz4Frame[] = [];
  let total = 0;
  let position = 0;
  do {
    if (position + 4 > data.length) throw lz4Error(position, 'truncated frame magic');
    const magic = readU32LE(data, position);
    if ((magic & LZ4_SKIPPABLE_MAGIC_MASK) >>> 0 === LZ4_SKIPPABLE_MAGIC) {
      if (position + 8 > data.length) throw lz4Error(position, 'truncated skippable frame');
      position += 8 + readU32LE(data, position + 4);
      if (position > data.length) throw lz4Error(data.length, 'truncated skippable frame');
      continue;
    }
    if (magic !== LZ4_MAGIC) throw lz4Error(position, `bad magic 0x${magic.toString(16)}`);
    const frame = planLz4Frame(data, position, maxBytes - total, maxBytes);
    frames.push(frame);
    total += frame.outputLength;
    position = frame.end;
  } while (position < data.length);

  const output = Buffer.allocUnsafe(total);
  let written = 0;
  for (const frame of frames) {
    const frameStart = written;
    for (const block of frame.blocks) {
      if (block.compressed) {
        written = lz4js.decompressBlock(data, output, block.start, block.length, written);
      } else {
        output.set(data.subarray(block.start, block.start + block.length), written);
        written += block.length;
      }
    }
    if (frame.contentChecksum !== undefined) {
      const actual = xxh32.hash(0, output, frameStart, written - frameStart);
      if (actual !== frame.contentChecksum) throw lz4Error(frame.end, 'content checksum mismatch');
    }
  }
  if (written !== total) throw lz4Error(data.length, `decoded ${written} bytes, expected ${total}`);
  return output;
}

/** Reads a frame's header and block table, validating every block before anything is decoded. */
function planLz4Frame(data: Uint8Array, frameStart: number, budgetBytes: number, capBytes: number): Lz4Frame {
  let position = frameStart + 4;
  if (position + 3 > data.length) throw lz4Error(position, 'truncated frame descriptor');
  const flg = data[position] ?? 0;
  const bd = data[position + 1] ?? 0;
  if ((flg & LZ4_FLG_VERSION_MASK) !== LZ4_FLG_VERSION) throw lz4Error(position, 'unsupported frame version');
  if ((flg & LZ4_FLG_RESERVED) !== 0 || (bd & LZ4_BD_RESERVED) !== 0) {
    throw lz4Error(position, 'reserved descriptor bits set');
  }
  if ((flg & LZ4_FLG_DICT_ID) !== 0) throw lz4Error(position, 'dictionaries are not supported');
  const blockSizeId = (bd >> 4) & 7;
  if (blockSizeId < 4) throw lz4Error(position + 1, `invalid block size id ${blockSizeId}`);
  const maxBlockBytes = 1 << (8 + 2 * blockSizeId);
  const independent = (flg & LZ4_FLG_BLOCK_INDEPENDENT) !== 0;
  const blockChecksum = (flg & LZ4_FLG_BLOCK_CHECKSUM) !== 0;
  const descriptorLength = (flg & LZ4_FLG_CONTENT_SIZE) !== 0 ? 10 : 2;
  if (position + descriptorLength + 1 > data.length) throw lz4Error(position, 'truncated frame descriptor');
  let declaredBytes: number | undefined;
  if (descriptorLength === 10) {
    declaredBytes = readU32LE(data, position + 2) + readU32LE(data, position + 6) * 2 ** 32;
    if (declaredBytes > budgetBytes)
      throw new DecompressionLimitError(
        `lz4 frame declaring a content size of ${declaredBytes} bytes`,
        capBytes,
      );
  }
  const headerChecksum = (xxh32.hash(0, data, position, descriptorLength) >>> 8) & 0xff;
  if (headerChecksum !== data[position + descriptorLength])
    throw lz4Error(position, 'header checksum mismatch');
  position += descriptorLength + 1;

  const blocks: Lz4Block[] = [];
  let outputLength = 0;
  for (;;) {
    if (position + 4 > data.length) throw lz4Error(position, 'truncated block size (missing end mark)');
    const word = readU32LE(data, position);
    position += 4;
    if (word === 0) break;
    const compressed = (word & LZ4_UNCOMPRESSED_BIT) === 0;
    const length = (word & ~LZ4_UNCOMPRESSED_BIT) >>> 0;
    if (length > maxBlockBytes)
      throw lz4Error(position - 4, `block of ${length} bytes above the frame's maximum`);
    const dataEnd = position + length;
    if (dataEnd + (blockChecksum ? 4 : 0) > data.length) throw lz4Error(position, 'truncated block');
    if (blockChecksum && xxh32.hash(0, data, position, length) !== readU32LE(data, dataEnd)) {
      throw lz4Error(dataEnd, 'block checksum mismatch');
    }
    const produced = compressed
      ? scanLz4Block(data, position, dataEnd, maxBlockBytes, independent ? 0 : outputLength)
      : length;
    outputLength += produced;
    if (outputLength > budgetBytes) throw new DecompressionLimitError('lz4 output', capBytes);
    blocks.push({ start: position, length, compressed });
    position = dataEnd + (blockChecksum ? 4 : 0);
  }
  if (declaredBytes !== undefined && declaredBytes !== outputLength) {
    throw lz4Error(position, `content size ${outputLength} differs from the declared ${declaredBytes}`);
  }
  let contentChecksum: number | undefined;
  if ((flg & LZ4_FLG_CONTENT_CHECKSUM) !== 0) {
    if (position + 4 > data.length) throw lz4Error(position, 'truncated content checksum');
    contentChecksum = readU32LE(data, position);
    position += 4;
  }
  return { blocks, outputLength, contentChecksum, end: position };
}

/**
 * Walks one compressed block's sequences without copying and returns its decoded length, so the
 * unchecked lz4js decoder only ever sees blocks that stay inside their input and output bounds.
 */
function scanLz4Block(
  data: Uint8Array,
  start: number,
  end: number,
  maxBytes: number,
  history: number,
): number {
  let position = start;
  let produced = 0;
  while (position < end) {
    const token = data[position++] ?? 0;
    let literals = token >> 4;
    if (literals === 15) {
      let extra = 255;
      while (extra === 255) {
        if (position >= end) throw lz4Error(position, 'truncated literal length');
        extra = data[position++] ?? 0;
        literals += extra;
      }
    }
    position += literals;
    produced += literals;
    if (position > end) throw lz4Error(end, 'literals run past the block');
    if (position === end) break;
    if (position + 2 > end) throw lz4Error(position, 'truncated match offset');
    const offset = (data[position] ?? 0) | ((data[position + 1] ?? 0) << 8);
    position += 2;
    if (offset === 0 || offset > history + produced)
      throw lz4Error(position - 2, `invalid match offset ${offset}`);
    let matchLength = token & 15;
    if (matchLength === 15) {
      let extra = 255;
      while (extra === 255) {
        if (position >= end) throw lz4Error(position, 'truncated match length');
        extra = data[position++] ?? 0;
        matchLength += extra;
      }
    }
    produced += matchLength + LZ4_MIN_MATCH;
    if (produced > maxBytes) throw lz4Error(position, 'block decodes past the maximum block size');
  }
  if (produced > maxBytes) throw lz4Error(position, 'block decodes past the maximum block size');
  return produced;
}

function readU32LE(data: Uint8Array, position: number): number {
  return (
    ((data[position] ?? 0) |
      ((data[position + 1] ?? 0) << 8) |
      ((data[position + 2] ?? 0) << 16) |
      ((data[position + 3] ?? 0) << 24)) >>>
    0
  );
}

function lz4Error(position: number, reason: string): ProtocolError {
  return new ProtocolError(`lz4 decompression failed at byte ${position}: ${reason}`);
}
