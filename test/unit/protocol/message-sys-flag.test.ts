import { describe, expect, it } from 'vitest';
import { CompressionType, compressionTypeOf } from '../../../src/protocol/compression.js';
import {
  clearCompressed,
  compressionTypeBits,
  hasSysFlag,
  isInnerBatch,
  MessageSysFlag,
  transactionType,
  withCompression,
} from '../../../src/protocol/message-sys-flag.js';

describe('MessageSysFlag', () => {
  it('has the bit values of Java MessageSysFlag', () => {
    expect(MessageSysFlag).toMatchObject({
      COMPRESSED: 1,
      MULTI_TAGS: 2,
      TRANSACTION_PREPARED_TYPE: 4,
      TRANSACTION_COMMIT_TYPE: 8,
      TRANSACTION_ROLLBACK_TYPE: 12,
      BORNHOST_V6: 16,
      STOREHOST_V6: 32,
      NEED_UNWRAP: 64,
      INNER_BATCH: 128,
      COMPRESSION_LZ4: 256,
      COMPRESSION_ZSTD: 512,
      COMPRESSION_ZLIB: 768,
      COMPRESSION_TYPE_MASK: 1792,
    });
  });

  it('reads and writes the compression type bits 8-10', () => {
    const flag = withCompression(
      MessageSysFlag.MULTI_TAGS | MessageSysFlag.COMPRESSION_LZ4,
      CompressionType.ZSTD,
    );
    expect(flag).toBe(
      MessageSysFlag.MULTI_TAGS | MessageSysFlag.COMPRESSION_ZSTD | MessageSysFlag.COMPRESSED,
    );
    expect(compressionTypeBits(flag)).toBe(2);
    expect(compressionTypeOf(compressionTypeBits(MessageSysFlag.COMPRESSED))).toBe(CompressionType.ZLIB);
    expect(clearCompressed(flag)).toBe(MessageSysFlag.MULTI_TAGS | MessageSysFlag.COMPRESSION_ZSTD);
  });

  it('checks bits, transaction types and inner batches', () => {
    expect(hasSysFlag(0x30, MessageSysFlag.STOREHOST_V6)).toBe(true);
    expect(hasSysFlag(0x30, MessageSysFlag.COMPRESSED)).toBe(false);
    expect(transactionType(0x10c)).toBe(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE);
    expect(isInnerBatch(MessageSysFlag.INNER_BATCH | MessageSysFlag.NEED_UNWRAP)).toBe(true);
    expect(isInnerBatch(MessageSysFlag.INNER_BATCH)).toBe(false);
  });
});
