/**
 * The decoder's inflation limits (issue 29, the decompression bomb): a body that would inflate past
 * `maxBodyBytes` is reported apart and never held; the bodies of one call share `maxInflatedBytes`, and
 * the records past it are left for the next call. Measured in allocations, not time: the largest buffer
 * the decoder makes is checked through what it returns.
 */
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompressionType, compressZlib, decompress } from '../../../src/protocol/compression.js';
import { DecompressionLimitError } from '../../../src/protocol/decompression-limit-error.js';
import { compressLz4 } from '../../../src/protocol/lz4-frame.js';
import { decodeMessages } from '../../../src/protocol/message-decoder.js';
import { encodeStoredMessages, type StoredMessageInput } from '../../../src/protocol/message-encoder.js';
import { MessageSysFlag } from '../../../src/protocol/message-sys-flag.js';

/** SYSFLAG of a body stored zlib-compressed (COMPRESSED and the ZLIB type bits), as a producer sets it. */
const ZLIB = MessageSysFlag.COMPRESSED | MessageSysFlag.COMPRESSION_ZLIB;
const KiB = 1024;
const MiB = 1024 * KiB;

/** A zlib body of `bytes` zeros: about 1,000 times smaller than what it inflates to. */
function zlibBomb(bytes: number): Buffer {
  return deflateSync(Buffer.alloc(bytes), { level: 9 });
}

function record(queueOffset: number, fields: Partial<StoredMessageInput> = {}): StoredMessageInput {
  return {
    topic: 'Orders',
    queueOffset,
    physicalOffset: 1_000 + queueOffset * 100,
    properties: { UNIQ_KEY: `id-${queueOffset}` },
    body: Buffer.from(`message ${queueOffset}`),
    ...fields,
  };
}

describe('every codec throws DecompressionLimitError past the limit', () => {
  const zeros = Buffer.alloc(2 * MiB);
  it.each([
    ['zlib', CompressionType.ZLIB, compressZlib(zeros)],
    ['LZ4', CompressionType.LZ4, compressLz4(zeros)],
  ])('%s', (_name, type, stored) => {
    expect(() => decompress(type, stored, MiB)).toThrow(DecompressionLimitError);
    expect(() => decompress(type, stored, MiB)).toThrow(
      /output exceeds the 1048576-byte decompression limit/,
    );
    expect(decompress(type, stored, 2 * MiB)).toHaveLength(2 * MiB);
  });

  it('corrupt data is not a limit error', () => {
    const broken = Buffer.from(compressZlib(zeros));
    broken[10] = (broken[10] ?? 0) ^ 0xff;
    let thrown: unknown;
    try {
      decompress(CompressionType.ZLIB, broken, MiB);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeDefined();
    expect(thrown).not.toBeInstanceOf(DecompressionLimitError);
  });
});

describe('maxBodyBytes', () => {
  it('a bomb between good messages is reported as too large and the rest is decoded', () => {
    const body = encodeStoredMessages([
      record(10),
      record(11, { storedBody: zlibBomb(8 * MiB), sysFlag: ZLIB }),
      record(12, { body: Buffer.from('x'.repeat(5000)), compression: CompressionType.ZLIB }),
      record(13),
    ]);
    const result = decodeMessages(body, { maxBodyBytes: MiB });
    expect(result.error).toBeUndefined();
    expect(result.deferred).toBeUndefined();
    expect(result.messages.map((m) => m.queueOffset)).toEqual([10, 12, 13]);
    expect(result.messages[1]?.body.toString()).toBe('x'.repeat(5000));
    expect(result.tooLarge?.map((t) => [t.message.queueOffset, t.message.msgId])).toEqual([[11, 'id-11']]);
    expect(result.tooLarge?.[0]?.reason).toMatch(
      /inflates past 1048576 bytes \(\d+ bytes of zlib as stored\)/,
    );
  });

  it('the default (6 MiB) refuses what inflates to 8 MiB and keeps what inflates to 4 MiB', () => {
    const body = encodeStoredMessages([
      record(0, { storedBody: zlibBomb(8 * MiB), sysFlag: ZLIB }),
      record(1, { storedBody: zlibBomb(4 * MiB), sysFlag: ZLIB }),
    ]);
    const result = decodeMessages(body);
    expect(result.tooLarge?.map((t) => t.message.queueOffset)).toEqual([0]);
    expect(result.messages.map((m) => [m.queueOffset, m.body.length])).toEqual([[1, 4 * MiB]]);
  });

  it('an inner batch too large to inflate is an error of its record (its message count is inside)', () => {
    const body = encodeStoredMessages([
      record(5),
      record(6, {
        storedBody: zlibBomb(2 * MiB),
        sysFlag: ZLIB | MessageSysFlag.INNER_BATCH | MessageSysFlag.NEED_UNWRAP,
      }),
    ]);
    const result = decodeMessages(body, { maxBodyBytes: MiB });
    expect(result.messages.map((m) => m.queueOffset)).toEqual([5]);
    expect(result.error?.queueOffset).toBe(6);
    expect(result.error?.message).toMatch(/inner batch .*decompression limit/);
  });
});

describe('maxInflatedBytes', () => {
  it('a body too large to inflate costs the budget what it inflated: a frame of bombs is read a budget at a time', () => {
    const body = encodeStoredMessages(
      Array.from({ length: 10 }, (_, offset) =>
        record(offset, { storedBody: zlibBomb(3 * MiB), sysFlag: ZLIB }),
      ),
    );
    const first = decodeMessages(body, { maxBodyBytes: MiB, maxInflatedBytes: 3 * MiB });
    expect(first.tooLarge?.map((t) => t.message.queueOffset)).toEqual([0, 1, 2]);
    expect(first.deferred?.queueOffset).toBe(3);
    const rest = decodeMessages(body.subarray(first.deferred?.byteOffset), {
      maxBodyBytes: MiB,
      maxInflatedBytes: 3 * MiB,
    });
    expect(rest.tooLarge?.map((t) => t.message.queueOffset)).toEqual([3, 4, 5]);
  });

  it('stops before the record that would pass the budget and says where', () => {
    const inputs = [0, 1, 2, 3, 4].map((offset) =>
      record(offset, { storedBody: zlibBomb(900 * KiB), sysFlag: ZLIB }),
    );
    const body = encodeStoredMessages(inputs);
    const result = decodeMessages(body, { maxBodyBytes: MiB, maxInflatedBytes: 2 * MiB });
    expect(result.messages.map((m) => m.queueOffset)).toEqual([0, 1]);
    expect(result.tooLarge).toBeUndefined();
    expect(result.error).toBeUndefined();
    expect(result.deferred?.queueOffset).toBe(2);
    // The next call, from the deferred record on, starts with a full budget.
    const rest = decodeMessages(body.subarray(result.deferred?.byteOffset), {
      maxBodyBytes: MiB,
      maxInflatedBytes: 2 * MiB,
    });
    expect(rest.messages.map((m) => m.queueOffset)).toEqual([2, 3]);
    expect(rest.deferred?.queueOffset).toBe(4);
  });

  it('is raised to maxBodyBytes: the first compressed record of a call is never deferred', () => {
    const body = encodeStoredMessages([record(0, { storedBody: zlibBomb(900 * KiB), sysFlag: ZLIB })]);
    const result = decodeMessages(body, { maxBodyBytes: MiB, maxInflatedBytes: 1 });
    expect(result.messages.map((m) => m.queueOffset)).toEqual([0]);
    expect(result.deferred).toBeUndefined();
  });

  it('uncompressed records cost nothing of the budget', () => {
    const body = encodeStoredMessages([
      record(0, { body: Buffer.alloc(600 * KiB) }),
      record(1, { storedBody: zlibBomb(900 * KiB), sysFlag: ZLIB }),
      record(2, { body: Buffer.alloc(600 * KiB) }),
    ]);
    const result = decodeMessages(body, { maxBodyBytes: MiB, maxInflatedBytes: MiB });
    expect(result.messages.map((m) => m.queueOffset)).toEqual([0, 1, 2]);
  });

  it('whatever the mix, what a call holds inflated stays within its budget and no record is dropped', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('plain', 'small', 'large', 'bomb'), { minLength: 1, maxLength: 12 }),
        (kinds) => {
          const inputs = kinds.map((kind, offset) => {
            if (kind === 'plain') return record(offset);
            const bytes = kind === 'small' ? 10 * KiB : kind === 'large' ? 700 * KiB : 3 * MiB;
            return record(offset, { storedBody: zlibBomb(bytes), sysFlag: ZLIB });
          });
          const body = encodeStoredMessages(inputs);
          const options = { maxBodyBytes: MiB, maxInflatedBytes: 2 * MiB };
          // Decode the way a consumer does: call after call from where the last one stopped.
          const seen: number[] = [];
          let at = 0;
          for (let calls = 0; at < body.length; calls++) {
            expect(calls).toBeLessThan(kinds.length + 1);
            const result = decodeMessages(body.subarray(at), options);
            expect(result.error).toBeUndefined();
            let inflated = 0;
            for (const m of result.messages) if (kinds[m.queueOffset] !== 'plain') inflated += m.body.length;
            expect(inflated).toBeLessThanOrEqual(2 * MiB);
            const offsets = [
              ...result.messages.map((m) => m.queueOffset),
              ...(result.tooLarge ?? []).map((t) => t.message.queueOffset),
            ].sort((a, b) => a - b);
            seen.push(...offsets);
            for (const t of result.tooLarge ?? []) expect(kinds[t.message.queueOffset]).toBe('bomb');
            if (result.deferred === undefined) break;
            expect(offsets.length).toBeGreaterThan(0);
            at += result.deferred.byteOffset;
          }
          expect(seen).toEqual(kinds.map((_, offset) => offset));
        },
      ),
      { numRuns: 40 },
    );
  });
});
