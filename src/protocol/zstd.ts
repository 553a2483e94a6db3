/**
 * zstd decompression of message bodies, safe on corrupt or hostile input.
 *
 * Where Node has zstd built in (22.15+, 23.8+: the container image and the Lambda runtime), each
 * data frame goes to `zlib.zstdDecompressSync`, i.e. the reference libzstd. Older Node (20, which
 * the project still runs on) decodes with the pure-JS `fzstd` in a worker thread under a deadline:
 * fzstd can loop forever on some corrupt frames (a damaged Huffman table in a literals section turns
 * its weight-decoding loop endless), which on the main thread would freeze the poller with the
 * message never reaching the DLQ. The call stays synchronous: the main thread waits on a shared
 * flag until the worker answers or the deadline passes, then the worker is terminated.
 *
 * Both paths first outline the body with {@link zstdFrames}: it refuses a body cut inside a frame
 * (libzstd's one-shot API would return the prefix it decoded) and a declared size above the cap.
 */
import { createRequire } from 'node:module';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import * as zlib from 'node:zlib';
import { errorMessage } from '../util/error-message.js';
import { DecompressionLimitError } from './decompression-limit-error.js';
import { ProtocolError } from './errors.js';
import { type ZstdFrame, zstdFrames } from './zstd-frames.js';

type NativeZstd = (data: Uint8Array, options: { maxOutputLength: number }) => Buffer;

/** `zlib.zstdDecompressSync` where this Node has it (typed loosely: @types/node 20 lacks it). */
const nativeZstd: NativeZstd | undefined = (zlib as unknown as { zstdDecompressSync?: NativeZstd })
  .zstdDecompressSync;

/** Which decoder {@link decompressZstd} uses on this Node. */
export const zstdDecoder: 'native' | 'fzstd-worker' = nativeZstd === undefined ? 'fzstd-worker' : 'native';

/** Deadline of the worker path: a base for scheduling, plus time for the bytes the frames may yield. */
const DEADLINE_BASE_MS = 2000;
/**
 * fzstd decodes ~35 MiB/s (a `zstd -19` frame, 2 cores) and needs ~1 ms for a small Java frame
 * (it sets up the whole window); budget 16 MiB per second of deadline.
 */
const DEADLINE_BYTES_PER_SECOND = 16 * 1024 * 1024;
/** How long a new worker may take to load fzstd. */
const WORKER_START_MS = 30_000;

/** Options of {@link decompressZstd}. */
export interface ZstdOptions {
  /** Use the fzstd worker even where Node has zstd (tests of that path). */
  readonly forceWorker?: boolean;
  /** Deadline of the worker path in ms; the default grows with the output the frames may produce. */
  readonly deadlineMs?: number;
}

/**
 * Decompresses a zstd body of one or more frames into a fresh Buffer of at most `maxBytes`.
 *
 * @throws ProtocolError for corrupt or truncated data, output above `maxBytes`, or (worker path) a
 *   decode that does not finish by its deadline; the decoder's error is the `cause`.
 */
export function decompressZstd(data: Uint8Array, maxBytes: number, options: ZstdOptions = {}): Buffer {
  const frames = zstdFrames(data, maxBytes);
  if (nativeZstd !== undefined && options.forceWorker !== true) {
    return decodeNative(nativeZstd, data, frames, maxBytes);
  }
  return decodeInWorker(data, maxBytes, options.deadlineMs ?? defaultDeadline(frames, maxBytes));
}

function decodeNative(decode: NativeZstd, data: Uint8Array, frames: ZstdFrame[], maxBytes: number): Buffer {
  const parts: Buffer[] = [];
  let total = 0;
  for (const frame of frames) {
    let part: Buffer;
    try {
      part = decode(data.subarray(frame.start, frame.end), {
        maxOutputLength: Math.max(1, maxBytes - total),
      });
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new DecompressionLimitError('zstd output', maxBytes, { cause: err });
      }
      throw new ProtocolError(`zstd decompression failed: ${errorMessage(err)}`, { cause: err });
    }
    if (frame.contentBytes !== undefined && part.length !== frame.contentBytes) {
      throw new ProtocolError(
        `zstd frame at byte ${frame.start} declares ${frame.contentBytes} bytes but yields ${part.length}`,
      );
    }
    total += part.length;
    if (total > maxBytes) throw new DecompressionLimitError('zstd output', maxBytes);
    parts.push(part);
  }
  return parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts, total);
}

function defaultDeadline(frames: ZstdFrame[], maxBytes: number): number {
  let bound = 0;
  for (const frame of frames) bound += frame.maxOutputBytes;
  return DEADLINE_BASE_MS + Math.ceil((Math.min(bound, maxBytes) / DEADLINE_BYTES_PER_SECOND) * 1000);
}

/** What the worker answers: the output, or why there is none. */
type WorkerReply = { ok: true; bytes: Uint8Array } | { ok: false; overflow: boolean; message: string };

/**
 * The worker: decodes with fzstd, answers on its port, then raises the shared flag. CommonJS run
 * with `eval`, so it loads the same way under tsx, vitest and the compiled build.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
let Decompress;
let loadError;
try { ({ Decompress } = require(workerData.fzstdPath)); } catch (err) { loadError = 'cannot load fzstd: ' + String(err); }
const { port } = workerData;
const flag = new Int32Array(workerData.flag);
const raise = () => { Atomics.store(flag, 0, 1); Atomics.notify(flag, 0); };
port.on('message', ({ data, maxBytes }) => {
  let reply;
  let overflow = false;
  try {
    if (loadError !== undefined) throw new Error(loadError);
    const chunks = [];
    let total = 0;
    new Decompress((chunk) => {
      total += chunk.length;
      if (total > maxBytes) { overflow = true; throw new Error('output exceeds ' + maxBytes + ' bytes'); }
      chunks.push(chunk);
    }).push(data, true);
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) { bytes.set(chunk, at); at += chunk.length; }
    reply = { ok: true, bytes };
  } catch (err) {
    reply = { ok: false, overflow, message: String(err && err.message ? err.message : err) };
  }
  port.postMessage(reply, reply.ok ? [reply.bytes.buffer] : []);
  raise();
});
raise();
`;

interface ZstdWorker {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly flag: Int32Array;
}

let current: ZstdWorker | undefined;

function decodeInWorker(data: Uint8Array, maxBytes: number, deadlineMs: number): Buffer {
  const zstdWorker = current ?? startWorker();
  const copy = new Uint8Array(data); // its own ArrayBuffer: cloning a view would copy a whole pull buffer
  Atomics.store(zstdWorker.flag, 0, 0);
  zstdWorker.port.postMessage({ data: copy, maxBytes }, [copy.buffer]);
  const outcome = Atomics.wait(zstdWorker.flag, 0, 0, deadlineMs);
  const received = receiveMessageOnPort(zstdWorker.port);
  if (received === undefined) {
    stopWorker(zstdWorker);
    throw new ProtocolError(
      outcome === 'timed-out'
        ? `zstd decompression did not finish within ${deadlineMs} ms (a corrupt frame can make the decoder loop)`
        : 'zstd decompression worker answered nothing',
    );
  }
  const reply = received.message as WorkerReply;
  if (reply.ok) return Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength);
  if (reply.overflow) throw new DecompressionLimitError('zstd output', maxBytes);
  throw new ProtocolError(`zstd decompression failed: ${reply.message}`, { cause: new Error(reply.message) });
}

function startWorker(): ZstdWorker {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const fzstdPath = createRequire(import.meta.url).resolve('fzstd');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { fzstdPath, port: port2, flag: flag.buffer },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  const zstdWorker: ZstdWorker = { worker, port: port1, flag };
  worker.on('error', () => {
    if (current === zstdWorker) current = undefined;
  });
  if (Atomics.wait(flag, 0, 0, WORKER_START_MS) === 'timed-out') {
    stopWorker(zstdWorker);
    throw new ProtocolError(`zstd decompression worker did not start within ${WORKER_START_MS} ms`);
  }
  current = zstdWorker;
  return zstdWorker;
}

function stopWorker(zstdWorker: ZstdWorker): void {
  if (current === zstdWorker) current = undefined;
  zstdWorker.port.close();
  void zstdWorker.worker.terminate();
}
