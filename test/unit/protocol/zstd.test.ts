import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { decodeMessages } from '../../../src/protocol/message-decoder.js';
import { decompressZstd, zstdDecoder } from '../../../src/protocol/zstd.js';
import { zstdFrames } from '../../../src/protocol/zstd-frames.js';
import { expectProtocolError } from '../../support/expect-protocol-error.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/messages/${name}`, import.meta.url));
const MAX = 4 << 20;

/** The zstd body inside the stored v1-zstd.bin record (4-byte length before the frame magic). */
function v1ZstdBody(): { record: Buffer; start: number; body: Buffer } {
  const record = fixture('v1-zstd.bin');
  const start = record.indexOf(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
  const body = Buffer.from(record.subarray(start, start + record.readInt32BE(start - 4)));
  return { record, start, body };
}

/**
 * A one-byte corruption of a real frame that sends fzstd 0.1.1 into an endless loop (found by
 * fuzzing after a CI run hung): byte 13 sits in the literals section's Huffman table description.
 */
function loopingFrame(): Buffer {
  const { body } = v1ZstdBody();
  body[13] = 0xf1;
  return body;
}

/** A skippable frame (RFC 8878 3.1.2) with `payload`. */
function skippable(payload: Buffer, magicLowNibble = 0): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32LE(0x184d2a50 + magicLowNibble, 0);
  header.writeUInt32LE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

const paths = [
  { name: 'the fzstd worker', forceWorker: true },
  ...(zstdDecoder === 'native' ? [{ name: 'native libzstd', forceWorker: false }] : []),
];

describe('zstd decoding', () => {
  it(`uses native zstd exactly when this Node has it (${process.version}: ${zstdDecoder})`, () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    const hasNative = major > 23 || (major === 23 && minor >= 8) || (major === 22 && minor >= 15);
    expect(zstdDecoder).toBe(hasNative ? 'native' : 'fzstd-worker');
  });

  describe.each(paths)('through $name', ({ forceWorker }) => {
    const decode = (data: Uint8Array, maxBytes = MAX, deadlineMs?: number) =>
      decompressZstd(
        data,
        maxBytes,
        deadlineMs === undefined ? { forceWorker } : { forceWorker, deadlineMs },
      );
    const expected = {
      java: decode(fixture('java-zstd.bin')),
      cli: decode(fixture('cli-zstd.zst')),
    };

    it('decodes the Java (zstd-jni, no content size) and CLI frames', () => {
      expect(expected.java.toString('utf8')).toContain('RocketMQ compressed body line 299 订单');
      expect(expected.cli).toHaveLength(200_022);
      expect(decode(fixture('cli-zstd-nocheck.zst')).equals(expected.cli)).toBe(true);
    });

    it('a frame that makes fzstd loop ends in a ProtocolError, and the decoder works after it', () => {
      const error = expectProtocolError(() => decode(loopingFrame(), MAX, 300));
      expect(error.message).toMatch(/zstd/);
      if (forceWorker) expect(error.message).toMatch(/did not finish within 300 ms/);
      expect(decode(fixture('java-zstd.bin')).equals(expected.java)).toBe(true);
    });

    it('decodes concatenated frames whole, skipping skippable frames', () => {
      const body = Buffer.concat([
        skippable(Buffer.from('before')),
        fixture('cli-zstd.zst'),
        skippable(Buffer.alloc(0), 15),
        fixture('java-zstd.bin'),
        skippable(Buffer.from('after'), 3),
      ]);
      expect(decode(body).equals(Buffer.concat([expected.cli, expected.java]))).toBe(true);
    });

    it('refuses every truncation of a frame: never a prefix passed off as the body', () => {
      const frame = fixture('java-zstd.bin');
      for (let length = 0; length < frame.length; length++) {
        expectProtocolError(() => decode(frame.subarray(0, length)));
      }
    });

    it('refuses bytes after the last frame that are not a frame', () => {
      const body = Buffer.concat([fixture('java-zstd.bin'), Buffer.from('trailing garbage')]);
      expect(expectProtocolError(() => decode(body)).message).toMatch(/no frame magic at byte/);
    });

    it('caps the output across frames', () => {
      const body = Buffer.concat([fixture('java-zstd.bin'), fixture('java-zstd.bin')]);
      expect(decode(body, expected.java.length * 2)).toHaveLength(expected.java.length * 2);
      expect(expectProtocolError(() => decode(body, expected.java.length * 2 - 1)).message).toMatch(
        /exceeds/,
      );
    });

    it('reports a corrupt block with the decoder error as cause', () => {
      const frame = Buffer.from(fixture('cli-zstd.zst'));
      frame[frame.length - 40] = (frame[frame.length - 40] ?? 0) ^ 0xff;
      const error = expectProtocolError(() => decode(frame));
      expect(error.message).toMatch(/zstd decompression failed/);
      expect(error.cause).toBeInstanceOf(Error);
    });
  });

  it('a stored message with the looping body is reported undecodable, the batch still decodes', () => {
    const { record, start } = v1ZstdBody();
    const bad = Buffer.from(record);
    bad[start + 13] = 0xf1;
    const result = decodeMessages(Buffer.concat([fixture('v1-ipv4.bin'), bad, fixture('v1-zstd.bin')]));
    expect(result.messages).toHaveLength(1);
    expect(result.error?.message).toMatch(/body does not decompress: zstd/);
  }, 20_000);
});

describe('zstdFrames', () => {
  it('outlines real frames exactly', () => {
    const cli = fixture('cli-zstd.zst');
    expect(zstdFrames(cli, MAX)).toEqual([
      { start: 0, end: cli.length, contentBytes: 200_022, windowBytes: 200_022, maxOutputBytes: 200_022 },
    ]);
    const java = fixture('java-zstd.bin');
    const [frame] = zstdFrames(java, MAX);
    // zstd-jni's stream declares no size: one compressed block, so at most 128 KiB.
    expect(frame).toMatchObject({
      start: 0,
      end: java.length,
      contentBytes: undefined,
      maxOutputBytes: 131_072,
    });
  });

  it('names what is wrong', () => {
    const java = fixture('java-zstd.bin');
    expect(() => zstdFrames(Buffer.alloc(0), MAX)).toThrow(/holds no data frame/);
    expect(() => zstdFrames(skippable(Buffer.from('x')), MAX)).toThrow(/holds no data frame/);
    expect(() => zstdFrames(java.subarray(0, 7), MAX)).toThrow(/ends inside a frame header/);
    expect(() => zstdFrames(skippable(Buffer.from('abc')).subarray(0, 10), MAX)).toThrow(
      /skippable frame at byte 0 runs past the end/,
    );
    const reserved = Buffer.from(java);
    reserved[4] = (reserved[4] ?? 0) | 0x08;
    expect(() => zstdFrames(reserved, MAX)).toThrow(/reserved descriptor bit/);
    expect(() => zstdFrames(fixture('cli-zstd.zst'), 100_000)).toThrow(/declares 200022 bytes/);
  });

  it('never throws anything but ProtocolError, and frames always tile the input', () => {
    const samples = [fixture('java-zstd.bin'), fixture('cli-zstd.zst'), v1ZstdBody().body];
    fc.assert(
      fc.property(
        fc.nat(samples.length - 1),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        (which, edits) => {
          const sample = Buffer.from(samples[which] ?? Buffer.alloc(0));
          for (const [position, value] of edits) sample[position % sample.length] = value;
          try {
            const frames = zstdFrames(sample, MAX);
            expect(frames[frames.length - 1]?.end).toBeLessThanOrEqual(sample.length);
            for (let i = 1; i < frames.length; i++) {
              expect(frames[i]?.start).toBeGreaterThanOrEqual(frames[i - 1]?.end ?? 0);
            }
          } catch (err) {
            expect(err).toBeInstanceOf(ProtocolError);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
