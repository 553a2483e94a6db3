/**
 * The text of a config, read within a size cap: a poller config file, `ROCKETMQ_LAMBDA_CONFIG`, a
 * serverless.yml. Whatever goes wrong (no such file, a directory, too big, not UTF-8) is a
 * {@link ConfigError} of one line, never a stack trace.
 */
import { open } from 'node:fs/promises';
import { ConfigError } from './config-error.js';

/**
 * The most bytes a config may have (file or environment variable). A poller config of 100 mappings is
 * about 100 KB and a large serverless.yml a few hundred; CloudFormation refuses templates over 1 MB
 * anyway. Without a cap, a 50 MB config took 19 s and 2.2 GB to be refused: the parsers hold the text
 * several times over. The file is measured before it is read, and the read stops past the cap (a file
 * that grows meanwhile, or a pipe, has no size to measure).
 */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Options of {@link readConfigFileText}. */
export interface ReadConfigFileOptions {
  /** Starts each problem line: `(config)`, `(serverless.yml)`. @default '(config)' */
  readonly label?: string | undefined;
  /** Named in the error. @default the file */
  readonly source?: string | undefined;
  /** @default MAX_CONFIG_BYTES */
  readonly maxBytes?: number | undefined;
}

/**
 * The text of a config file (UTF-8, a leading byte order mark dropped). Throws {@link ConfigError} with
 * one line when the file cannot be read, is a directory, is larger than `maxBytes` (checked before
 * reading) or is not UTF-8.
 */
export async function readConfigFileText(file: string, options: ReadConfigFileOptions = {}): Promise<string> {
  const label = options.label ?? '(config)';
  const maxBytes = options.maxBytes ?? MAX_CONFIG_BYTES;
  const refuse = (why: string, cause?: unknown): ConfigError =>
    new ConfigError([`${label}: cannot read ${file}: ${why}`], { source: options.source ?? file, cause });
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (cause) {
    throw refuse(fileErrorWords(cause), cause);
  }
  try {
    let bytes: Buffer;
    try {
      const stat = await handle.stat();
      if (stat.isDirectory()) throw refuse('is a directory');
      if (stat.size > maxBytes) throw refuse(`${tooBigWords(stat.size, maxBytes)} (is this the right file?)`);
      bytes = await readAtMost(handle, maxBytes + 1);
    } catch (cause) {
      if (cause instanceof ConfigError) throw cause;
      throw refuse(fileErrorWords(cause), cause);
    }
    if (bytes.length > maxBytes) throw refuse(tooBigWords(undefined, maxBytes));
    return decodeUtf8(bytes, (why) => refuse(why));
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Throws {@link ConfigError} (one line naming `name`) when a config given as text (an environment
 * variable) is larger than `maxBytes` in UTF-8.
 */
export function checkConfigTextSize(text: string, name: string, maxBytes: number = MAX_CONFIG_BYTES): void {
  // Each UTF-16 unit is at most 3 bytes of UTF-8: short texts need no count.
  if (text.length * 3 <= maxBytes) return;
  const size = Buffer.byteLength(text, 'utf8');
  if (size <= maxBytes) return;
  throw new ConfigError([`(config): cannot read ${name}: ${tooBigWords(size, maxBytes)}`], {
    source: name,
  });
}

/** Reads up to `limit` bytes from the current position: a file that grows meanwhile is not read whole. */
async function readAtMost(handle: Awaited<ReturnType<typeof open>>, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.min(limit, 64 * 1024));
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, limit - total), null);
    if (bytesRead === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}

function tooBigWords(size: number | undefined, maxBytes: number): string {
  const what = size === undefined ? `more than ${maxBytes} bytes` : `${size} bytes`;
  return `${what}, over the ${sizeWords(maxBytes)} a config may have`;
}

function sizeWords(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}

/** The words for a failed open or read: the usual codes in words, else the code alone (no message). */
function fileErrorWords(cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ELOOP':
      return 'too many symbolic links';
    case 'ENAMETOOLONG':
      return 'the path is too long';
    default:
      return typeof code === 'string' ? code : 'cannot be read';
  }
}

/** UTF-8 text of `bytes`, without a leading byte order mark; else the error of `refuse`. */
function decodeUtf8(bytes: Buffer, refuse: (why: string) => ConfigError): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    const line = bytes.subarray(0, Math.max(0, offset)).filter((byte) => byte === 0x0a).length + 1;
    throw refuse(`is not UTF-8 text (a bad byte on line ${line})`);
  }
}

/**
 * The offset of the first byte that does not belong to well-formed UTF-8 (RFC 3629: no overlong forms,
 * no surrogates, nothing past U+10FFFF), or -1.
 */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      const min = k === 1 ? low : 0x80;
      const max = k === 1 ? high : 0xbf;
      if (next === undefined || next < min || next > max) return i;
    }
    i += length;
  }
  return -1;
}
