/**
 * The bodies `rocketmq-lambda send` sends: one text (`--body`), one file's bytes (`--file`, binary kept as
 * is) or standard input; with `--lines`, one body per line; with `--count N`, all of them N times.
 */
import { readFile } from 'node:fs/promises';
import { RocketMQError } from '../errors.js';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Where the bodies come from.
 */
export interface BodySource {
  /** `--body`: the text (UTF-8). */
  readonly body?: string | undefined;
  /** `--file`: a file's bytes. */
  readonly file?: string | undefined;
  /** Standard input, read to its end when neither `body` nor `file` is given. */
  readonly stdin?: AsyncIterable<Buffer | string> | undefined;
  /** One body per line (LF or CRLF; empty lines skipped: RocketMQ refuses empty bodies). */
  readonly lines: boolean;
  /** How many times each body is sent. */
  readonly count: number;
}

/**
 * Input that gives no message to send (an empty body, no lines, an unreadable file). Permanent: the same
 * input gives the same answer.
 */
export class BodySourceError extends RocketMQError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, permanent: true });
  }
}

/**
 * The bodies to send, in order; with `count` > 1 the whole list repeats (lines a, b with count 2 give a, b,
 * a, b). Throws {@link BodySourceError} when there is nothing to send.
 */
export async function readMessageBodies(source: BodySource): Promise<Buffer[]> {
  const raw = await readRaw(source);
  const once = source.lines ? splitLines(raw.bytes) : [raw.bytes];
  if (once.length === 0 || once.every((body) => body.length === 0)) {
    throw new BodySourceError(
      source.lines
        ? `${raw.what} has no non-empty line (RocketMQ refuses empty messages)`
        : `${raw.what} is empty (RocketMQ refuses empty messages)`,
    );
  }
  const bodies: Buffer[] = [];
  for (let i = 0; i < source.count; i++) bodies.push(...once);
  return bodies;
}

/**
 * The lines of `bytes` (split at LF, a CR before it dropped), empty lines left out.
 */
export function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  while (start <= bytes.length) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline;
    const stop = end > start && bytes[end - 1] === CARRIAGE_RETURN ? end - 1 : end;
    if (stop > start) lines.push(bytes.subarray(start, stop));
    if (newline === -1) break;
    start = newline + 1;
  }
  return lines;
}

async function readRaw(source: BodySource): Promise<{ bytes: Buffer; what: string }> {
  if (source.body !== undefined) return { bytes: Buffer.from(source.body, 'utf8'), what: '--body' };
  if (source.file !== undefined) {
    try {
      return { bytes: await readFile(source.file), what: source.file };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : String(code);
      throw new BodySourceError(`--file ${source.file}: ${why}`, { cause: error });
    }
  }
  if (source.stdin === undefined) throw new BodySourceError('no body: give --body, --file or standard input');
  const chunks: Buffer[] = [];
  for await (const chunk of source.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return { bytes: Buffer.concat(chunks), what: 'standard input' };
}
