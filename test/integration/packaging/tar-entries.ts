/**
 * The files of an npm tarball (a gzipped ustar archive), read with node:zlib alone so that the tests
 * see exactly what `npm publish` would upload: paths, modes and contents.
 */
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';

/**
 * One regular file of a tarball.
 *
 * @example
 * ```ts
 * const main = entries.find((entry) => entry.path === 'package/dist/cli/main.js');
 * ```
 */
export interface TarEntry {
  /** As stored, e.g. `package/dist/index.js`. */
  readonly path: string;
  /** Permission bits, e.g. `0o755`. */
  readonly mode: number;
  readonly content: Buffer;
}

const BLOCK_BYTES = 512;
/** ustar type flags of regular files ('0', and NUL from pre-POSIX writers). */
const REGULAR_FILE_TYPES = new Set(['0', '\0']);

/**
 * The regular files of the `.tgz` at `file`, in archive order.
 *
 * @example
 * ```ts
 * const paths = (await readTarball('rocketmq-lambda-0.1.0.tgz')).map((entry) => entry.path);
 * ```
 */
export async function readTarball(file: string): Promise<TarEntry[]> {
  const archive = gunzipSync(await readFile(file));
  const entries: TarEntry[] = [];
  let offset = 0;
  while (offset + BLOCK_BYTES <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK_BYTES);
    if (header.every((byte) => byte === 0)) break; // the end-of-archive blocks
    const name = field(header, 0, 100);
    const prefix = field(header, 345, 155);
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 0);
    const start = offset + BLOCK_BYTES;
    if (REGULAR_FILE_TYPES.has(type)) {
      entries.push({
        path: prefix === '' ? name : `${prefix}/${name}`,
        mode: Number.parseInt(field(header, 100, 8).trim() || '0', 8) & 0o7777,
        content: archive.subarray(start, start + size),
      });
    }
    offset = start + Math.ceil(size / BLOCK_BYTES) * BLOCK_BYTES;
  }
  return entries;
}

/** A NUL-terminated header field as text. */
function field(header: Buffer, start: number, length: number): string {
  const bytes = header.subarray(start, start + length);
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end === -1 ? length : end).toString('utf8');
}
