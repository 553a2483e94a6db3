/**
 * The offsets file format and its durable I/O, used by {@link FileOffsetStore}:
 * `{ "version": 1, "offsets": { "topic@brokerName@queueId": 42, ... } }`.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseMessageQueueKey } from '../protocol/message-queue.js';
import { componentLogger } from '../util/logger.js';

const log = componentLogger('offsets.file');

/** The outcome of reading an offsets file: its offsets, or why there are none. */
export type OffsetFileRead =
  | { kind: 'ok'; offsets: Map<string, number> }
  | { kind: 'missing' }
  | { kind: 'corrupt'; reason: string; cause?: unknown };

/**
 * Reads and validates an offsets file. A missing file and bad content are results; other I/O errors
 * (permissions, a directory in the way) reject.
 */
export async function readOffsetFile(path: string): Promise<OffsetFileRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return { kind: 'missing' };
    throw err;
  }
  return parseOffsetFile(text);
}

/**
 * Parses offsets file content; every key must be a queue key and every value a non-negative safe integer.
 */
export function parseOffsetFile(text: string): OffsetFileRead {
  if (text.trim() === '') return { kind: 'corrupt', reason: 'empty file' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    return { kind: 'corrupt', reason: 'not valid JSON', cause };
  }
  const offsets =
    typeof parsed === 'object' && parsed !== null ? (parsed as { offsets?: unknown }).offsets : undefined;
  if (typeof offsets !== 'object' || offsets === null || Array.isArray(offsets)) {
    return { kind: 'corrupt', reason: 'no "offsets" object' };
  }
  const result = new Map<string, number>();
  for (const [key, value] of Object.entries(offsets)) {
    try {
      parseMessageQueueKey(key);
    } catch (cause) {
      return { kind: 'corrupt', reason: `bad queue key ${JSON.stringify(key)}`, cause };
    }
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      return { kind: 'corrupt', reason: `bad offset ${JSON.stringify(value)} for ${key}` };
    }
    result.set(key, value);
  }
  return { kind: 'ok', offsets: result };
}

/**
 * Writes `content` to `path` (created or truncated) and fsyncs it before resolving.
 */
export async function writeFileDurably(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Fsyncs a directory so renames inside it survive a power loss. Platforms that cannot open a directory
 * (Windows) skip it with a debug log.
 */
export async function syncDirectory(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch (err) {
    log.debug({ err, path }, 'directory fsync not possible here');
  } finally {
    await handle?.close();
  }
}

/**
 * The Node.js `code` of a system error (`'ENOENT'`, ...), if any.
 */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
