/**
 * The entries of a zip archive (what `serverless package` writes), read with node:zlib alone: names and
 * sizes from the central directory, and extraction to a directory, so a test can list a function's zip
 * and load its handler from the extracted files as the Lambda runtime does from /var/task.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';

/**
 * One entry of a zip archive.
 *
 * @example
 * ```ts
 * const unzippedBytes = entries.reduce((sum, entry) => sum + entry.size, 0);
 * ```
 */
export interface ZipEntry {
  /** As stored, e.g. `node_modules/zod/index.js`; directories end with `/`. */
  readonly name: string;
  /** Uncompressed bytes. */
  readonly size: number;
  readonly compressedSize: number;
  /** 0 (stored) or 8 (deflate). */
  readonly method: number;
  readonly localHeaderOffset: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
/** The end record is 22 bytes plus a comment of at most 65,535 bytes. */
const MAX_END_RECORD_BYTES = 22 + 0xffff;

/**
 * The entries listed in the central directory of the zip archive `archive`.
 *
 * @example
 * ```ts
 * const names = readZipEntries(await readFile('service.zip')).map((entry) => entry.name);
 * ```
 */
export function readZipEntries(archive: Buffer): ZipEntry[] {
  const searchFrom = Math.max(0, archive.length - MAX_END_RECORD_BYTES);
  let end = -1;
  for (let at = archive.length - 22; at >= searchFrom; at--) {
    if (archive.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end === -1) throw new Error('not a zip archive: no end of central directory record');
  const count = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (archive.readUInt32LE(offset) !== CENTRAL_DIRECTORY_HEADER) {
      throw new Error(`zip central directory entry ${i} at ${offset} has a bad signature`);
    }
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    entries.push({
      method: archive.readUInt16LE(offset + 10),
      compressedSize: archive.readUInt32LE(offset + 20),
      size: archive.readUInt32LE(offset + 24),
      localHeaderOffset: archive.readUInt32LE(offset + 42),
      name: archive.toString('utf8', offset + 46, offset + 46 + nameLength),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * Extracts every file of the zip archive at `file` under `dir`; resolves with its entries.
 *
 * @example
 * ```ts
 * const entries = await extractZip('.serverless/service.zip', '/tmp/task');
 * ```
 */
export async function extractZip(file: string, dir: string): Promise<ZipEntry[]> {
  const archive = await readFile(file);
  const entries = readZipEntries(archive);
  for (const entry of entries) {
    const target = path.resolve(dir, entry.name);
    if (!target.startsWith(path.resolve(dir) + path.sep)) throw new Error(`zip entry outside: ${entry.name}`);
    if (entry.name.endsWith('/')) {
      await mkdir(target, { recursive: true });
      continue;
    }
    const at = entry.localHeaderOffset;
    if (archive.readUInt32LE(at) !== LOCAL_FILE_HEADER) throw new Error(`${entry.name}: bad local header`);
    const start = at + 30 + archive.readUInt16LE(at + 26) + archive.readUInt16LE(at + 28);
    const data = archive.subarray(start, start + entry.compressedSize);
    let content: Buffer;
    if (entry.method === 0) content = data;
    else if (entry.method === 8) content = inflateRawSync(data);
    else throw new Error(`${entry.name}: unsupported compression method ${entry.method}`);
    if (content.length !== entry.size)
      throw new Error(`${entry.name}: ${content.length} bytes, expected ${entry.size}`);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return entries;
}
