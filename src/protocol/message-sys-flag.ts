/**
 * MessageSysFlag: the system bits of a stored message's SYSFLAG field (Java `MessageSysFlag`).
 *
 * ```
 * bit  0      COMPRESSED           body is compressed with the type in bits 8-10
 * bit  1      MULTI_TAGS
 * bits 2-3    transaction type     0 none, 1 prepared, 2 commit, 3 rollback
 * bit  4      BORNHOST_V6          born host is 16 + 4 bytes instead of 4 + 4
 * bit  5      STOREHOST_V6         store host is 16 + 4 bytes instead of 4 + 4
 * bit  6      NEED_UNWRAP          with INNER_BATCH: the body is a batch to expand
 * bit  7      INNER_BATCH
 * bits 8-10   compression type     1 LZ4, 2 ZSTD, 3 ZLIB, 0 ZLIB (old producers)
 * ```
 */

/**
 * The SYSFLAG bits, by name.
 */
export const MessageSysFlag = {
  COMPRESSED: 0x1,
  MULTI_TAGS: 0x2,
  TRANSACTION_NOT_TYPE: 0,
  TRANSACTION_PREPARED_TYPE: 0x4,
  TRANSACTION_COMMIT_TYPE: 0x8,
  TRANSACTION_ROLLBACK_TYPE: 0xc,
  BORNHOST_V6: 0x10,
  STOREHOST_V6: 0x20,
  NEED_UNWRAP: 0x40,
  INNER_BATCH: 0x80,
  COMPRESSION_LZ4: 0x100,
  COMPRESSION_ZSTD: 0x200,
  COMPRESSION_ZLIB: 0x300,
  /** Mask of the compression type bits 8-10. */
  COMPRESSION_TYPE_MASK: 0x700,
} as const;

/** Mask of the transaction type bits 2-3. */
const TRANSACTION_MASK = 0xc;
/** Position of the compression type bits. */
const COMPRESSION_TYPE_SHIFT = 8;

/**
 * True when any bit of `bits` is set in `sysFlag` (Java `MessageSysFlag.check`).
 */
export function hasSysFlag(sysFlag: number, bits: number): boolean {
  return (sysFlag & bits) !== 0;
}

/**
 * The raw compression type number in bits 8-10 (0..7); see `compressionTypeOf` in compression.ts
 * for the mapping to a {@link CompressionType}.
 */
export function compressionTypeBits(sysFlag: number): number {
  return (sysFlag & MessageSysFlag.COMPRESSION_TYPE_MASK) >>> COMPRESSION_TYPE_SHIFT;
}

/**
 * `sysFlag` with its compression type bits replaced by `type` (1 LZ4, 2 ZSTD, 3 ZLIB) and the
 * COMPRESSED bit set.
 */
export function withCompression(sysFlag: number, type: number): number {
  return (
    (sysFlag & ~MessageSysFlag.COMPRESSION_TYPE_MASK) |
    ((type << COMPRESSION_TYPE_SHIFT) & MessageSysFlag.COMPRESSION_TYPE_MASK) |
    MessageSysFlag.COMPRESSED
  );
}

/**
 * `sysFlag` without the COMPRESSED bit (what Java reports after inflating a body; the type bits stay).
 */
export function clearCompressed(sysFlag: number): number {
  return sysFlag & ~MessageSysFlag.COMPRESSED;
}

/**
 * The transaction type bits (one of the `TRANSACTION_*_TYPE` values).
 */
export function transactionType(sysFlag: number): number {
  return sysFlag & TRANSACTION_MASK;
}

/**
 * True when the stored record is an inner batch the client must expand (INNER_BATCH and NEED_UNWRAP).
 */
export function isInnerBatch(sysFlag: number): boolean {
  return hasSysFlag(sysFlag, MessageSysFlag.INNER_BATCH) && hasSysFlag(sysFlag, MessageSysFlag.NEED_UNWRAP);
}
