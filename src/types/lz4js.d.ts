/**
 * Minimal types for `lz4js` 0.2 (plain CommonJS, ships no types): only the parts we use.
 * The frame-level `decompress` is deliberately not declared: it trusts the frame's sizes (see
 * src/protocol/lz4-frame.ts), so we parse frames ourselves and use the block codec.
 */
declare module 'lz4js' {
  interface Lz4js {
    /**
     * Decodes one LZ4 block `src[sIndex, sIndex + sLength)` into `dst` from `dIndex`; returns the
     * index after the last byte written. Does no bounds checking: validate the block first.
     */
    decompressBlock(
      src: Uint8Array,
      dst: Uint8Array,
      sIndex: number,
      sLength: number,
      dIndex: number,
    ): number;
    /**
     * Encodes `src[sIndex, sIndex + sLength)` as one LZ4 block into `dst` (at least
     * `compressBound(sLength)` long); returns its length, or 0 when the data did not compress.
     * `hashTable` is a 65536-entry table of zeros; entries point into `src`.
     */
    compressBlock(
      src: Uint8Array,
      dst: Uint8Array,
      sIndex: number,
      sLength: number,
      hashTable: Uint32Array,
    ): number;
    /** Worst-case size of a compressed block of `n` bytes. */
    compressBound(n: number): number;
  }
  const lz4js: Lz4js;
  export default lz4js;
}

declare module 'lz4js/xxh32.js' {
  interface Xxh32 {
    /** XXH32 of `src[index, index + length)` with `seed`, as an unsigned 32-bit number. */
    hash(seed: number, src: Uint8Array, index: number, length: number): number;
  }
  const xxh32: Xxh32;
  export default xxh32;
}
