import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompressionType,
  compressionTypeOf,
  compressZlib,
  decompress,
} from '../../../src/protocol/compression.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { compressLz4 } from '../../../src/protocol/lz4-frame.js';
import { expectProtocolError } from '../../support/expect-protocol-error.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/messages/${name}`, import.meta.url));

/** The payload FixtureGen.java compressed. */
function javaPayload(): Buffer {
  let text = '';
  for (let i = 0; i < 300; i++) text += `RocketMQ compressed body line ${i} 订单\n`;
  return Buffer.from(text, 'utf8');
}

/** The input of the lz4/zstd CLI fixtures. */
function multiBlockInput(): Buffer {
  let text = '';
  for (let i = 0; text.length < 200_000; i++) text += `record ${i} of the multi-block frame\n`;
  return Buffer.from(text, 'utf8');
}

/** Byte equality without vitest's slow element-wise diff on large buffers. */
function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length);
  expect(Buffer.from(actual.buffer, actual.byteOffset, actual.length).equals(expected)).toBe(true);
}

describe('decompress: bytes written by Java (RocketMQ 5.3.3 compressors)', () => {
  it('inflates the zlib stream of java.util.zip.Deflater (type 3 and legacy type 0)', () => {
    expectBytes(decompress(CompressionType.ZLIB, fixture('java-zlib.bin')), javaPayload());
    expectBytes(decompress(0, fixture('java-zlib.bin')), javaPayload());
  });

  it('decodes the LZ4 frame of lz4-java LZ4FrameOutputStream (FLG 0x60: independent blocks, no checksums)', () => {
    const frame = fixture('java-lz4.bin');
    expect(frame.readUInt32LE(0)).toBe(0x184d2204);
    expect(frame[4]).toBe(0x60);
    expect(frame[5]).toBe(0x70);
    expectBytes(decompress(CompressionType.LZ4, frame), javaPayload());
  });

  it('decodes the empty LZ4 frame Java writes for an empty body', () => {
    expectBytes(decompress(CompressionType.LZ4, fixture('java-lz4-empty.bin')), Buffer.alloc(0));
  });

  it('decodes the zstd frame of zstd-jni ZstdOutputStream', () => {
    expectBytes(decompress(CompressionType.ZSTD, fixture('java-zstd.bin')), javaPayload());
  });
});

describe('decompress: frames written by the reference CLIs', () => {
  it('lz4 CLI default: several independent 64 KiB blocks with a content checksum', () => {
    const frame = fixture('cli-lz4-default.lz4');
    expect(frame[4]).toBe(0x64);
    expectBytes(decompress(CompressionType.LZ4, frame), multiBlockInput());
  });

  it('lz4 CLI: linked blocks, block checksums, content size and content checksum', () => {
    const frame = fixture('cli-lz4-multiblock.lz4');
    expect(frame[4]).toBe(0x5c);
    expectBytes(decompress(CompressionType.LZ4, frame), multiBlockInput());
  });

  it('zstd CLI with and without a content checksum', () => {
    expectBytes(decompress(CompressionType.ZSTD, fixture('cli-zstd.zst')), multiBlockInput());
    expectBytes(decompress(CompressionType.ZSTD, fixture('cli-zstd-nocheck.zst')), multiBlockInput());
  });

  it('two concatenated LZ4 frames and a skippable frame decode as one stream', () => {
    const skippable = Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9]);
    const both = Buffer.concat([fixture('java-lz4.bin'), skippable, compressLz4(Buffer.from('tail'))]);
    expectBytes(decompress(CompressionType.LZ4, both), Buffer.concat([javaPayload(), Buffer.from('tail')]));
  });
});

describe('detects corruption', () => {
  it('rejects a flipped byte inside a checksummed LZ4 block', () => {
    const frame = Buffer.from(fixture('cli-lz4-multiblock.lz4'));
    frame[40] = (frame[40] ?? 0) ^ 0xff;
    expect(expectProtocolError(() => decompress(CompressionType.LZ4, frame)).message).toMatch(/checksum/);
  });

  it('rejects a wrong LZ4 content checksum', () => {
    const frame = Buffer.from(fixture('cli-lz4-default.lz4'));
    const last = frame.length - 1;
    frame[last] = (frame[last] ?? 0) ^ 1;
    expect(expectProtocolError(() => decompress(CompressionType.LZ4, frame)).message).toMatch(
      /content checksum/,
    );
  });

  it('rejects a wrong LZ4 header checksum', () => {
    const frame = Buffer.from(fixture('java-lz4.bin'));
    frame[6] = (frame[6] ?? 0) ^ 1;
    expect(expectProtocolError(() => decompress(CompressionType.LZ4, frame)).message).toMatch(
      /header checksum/,
    );
  });

  it('wraps zlib and zstd library errors with their cause', () => {
    const zlibError = expectProtocolError(() => decompress(CompressionType.ZLIB, Buffer.from('not zlib')));
    expect(zlibError.cause).toBeInstanceOf(Error);
    const corrupt = Buffer.from(fixture('cli-zstd.zst'));
    corrupt[corrupt.length - 40] = (corrupt[corrupt.length - 40] ?? 0) ^ 0xff;
    const zstdError = expectProtocolError(() => decompress(CompressionType.ZSTD, corrupt));
    expect(zstdError.cause).toBeInstanceOf(Error);
    // A cut frame is refused from its block headers, before any decoder runs.
    expect(
      expectProtocolError(() => decompress(CompressionType.ZSTD, fixture('java-zstd.bin').subarray(0, 50)))
        .message,
    ).toMatch(/runs past the end/);
  });

  it('rejects compression types 4..7', () => {
    for (const type of [4, 5, 6, 7]) {
      expect(() => compressionTypeOf(type)).toThrow(ProtocolError);
      expectProtocolError(() => decompress(type, fixture('java-zlib.bin')));
    }
  });
});

describe('caps the output size (decompression bombs)', () => {
  const zeros = Buffer.alloc(4 * 1024 * 1024);

  it('zlib', () => {
    const bomb = deflateSync(zeros, { level: 9 });
    expect(bomb.length).toBeLessThan(10_000);
    expect(
      expectProtocolError(() => decompress(CompressionType.ZLIB, bomb, 1024 * 1024)).cause,
    ).toBeDefined();
    expect(decompress(CompressionType.ZLIB, bomb, zeros.length)).toHaveLength(zeros.length);
  });

  it('lz4', () => {
    const bomb = compressLz4(zeros);
    expect(bomb.length).toBeLessThan(20_000);
    expectProtocolError(() => decompress(CompressionType.LZ4, bomb, 1024 * 1024));
    expect(decompress(CompressionType.LZ4, bomb, zeros.length)).toHaveLength(zeros.length);
  });

  it('lz4 frame that declares a huge content size is refused before allocating', () => {
    const header = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x68, 0x70, 0, 0, 0, 0, 0, 1, 0, 0, 0]);
    // FLG 0x68: independent blocks + content size 2^40; header checksum deliberately irrelevant.
    expect(expectProtocolError(() => decompress(CompressionType.LZ4, header)).message).toMatch(
      /content size/,
    );
  });

  it('zstd (the CLI fixture declares 200,022 bytes)', () => {
    expect(
      expectProtocolError(() => decompress(CompressionType.ZSTD, fixture('cli-zstd.zst'), 100_000)).message,
    ).toMatch(/zstd/);
    // The Java frame has no content size: the streaming cap stops it.
    expectProtocolError(() => decompress(CompressionType.ZSTD, fixture('java-zstd.bin'), 1000));
  });
});

describe('compressors', () => {
  it('compressLz4 writes Java-compatible frames (independent blocks, 4 MiB block size)', () => {
    const frame = compressLz4(javaPayload());
    expect(frame.subarray(0, 6)).toEqual(Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x70]));
    expect(frame.length).toBeLessThan(javaPayload().length);
    expectBytes(decompress(CompressionType.LZ4, frame), javaPayload());
  });

  it('compressZlib output starts with a zlib header and inflates back', () => {
    const packed = compressZlib(javaPayload());
    expect(packed[0]).toBe(0x78);
    expectBytes(decompress(CompressionType.ZLIB, packed), javaPayload());
  });

  it('round-trips arbitrary data through zlib and lz4', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.constantFrom(1, 3), (data, type) => {
        const packed = type === CompressionType.LZ4 ? compressLz4(data) : compressZlib(data);
        expectBytes(decompress(type, packed), Buffer.from(data));
      }),
    );
  });

  it('round-trips repetitive data through lz4 (exercises matches and block bounds)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 400 }),
        fc.nat(300),
        (words, repeat) => {
          const data = Buffer.from(words.join(' ').repeat(1 + (repeat % 7)), 'utf8');
          expectBytes(decompress(CompressionType.LZ4, compressLz4(data)), data);
        },
      ),
    );
  });
});

describe('never throws anything but ProtocolError', () => {
  const samples = [
    fixture('java-lz4.bin'),
    fixture('java-zstd.bin'),
    fixture('java-zlib.bin'),
    fixture('cli-lz4-multiblock.lz4'),
  ];

  it('on random bytes of every type', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 7 }), fc.uint8Array({ maxLength: 300 }), (type, data) => {
        try {
          decompress(type, data, 1 << 20);
        } catch (err) {
          expect(err).toBeInstanceOf(ProtocolError);
        }
      }),
      { numRuns: 2000 },
    );
  }, 30_000);

  it('on every truncation of real frames', () => {
    const types = [CompressionType.LZ4, CompressionType.ZSTD, CompressionType.ZLIB, CompressionType.LZ4];
    samples.forEach((sample, index) => {
      const type = types[index] ?? CompressionType.LZ4;
      const step = sample.length > 4000 ? 97 : 1;
      for (let length = 0; length < sample.length; length += step) {
        try {
          decompress(type, sample.subarray(0, length), 1 << 20);
        } catch (err) {
          expect(err).toBeInstanceOf(ProtocolError);
        }
      }
    });
  }, 30_000);

  it('on real frames with random bytes overwritten', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        (which, edits) => {
          const sample = Buffer.from(samples[which] ?? Buffer.alloc(0));
          for (const [position, value] of edits) sample[position % sample.length] = value;
          const type =
            [CompressionType.LZ4, CompressionType.ZSTD, CompressionType.ZLIB, CompressionType.LZ4][which] ??
            1;
          try {
            decompress(type, sample, 1 << 20);
          } catch (err) {
            expect(err).toBeInstanceOf(ProtocolError);
          }
        },
      ),
      { numRuns: 1000 },
    );
  }, 30_000);
});
