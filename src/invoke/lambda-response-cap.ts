/**
 * The limit on the size of an Invoke API answer, enforced while it is read. An answer is buffered whole
 * before it is handed over (lambda-invoke-channel.ts), so an endpoint that answers with hundreds of
 * megabytes, or with a chunked body that never ends (a third-party Lambda API, a misbehaving proxy: the
 * poller takes custom endpoints), would take the poller's memory. A declared length over the limit is refused before a byte
 * of the body is read, and a body without one is cut off (its connection destroyed) as soon as it passes
 * the limit. Error answers (a status outside 2xx) have a much lower limit: the SDK parses them.
 */
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { RocketMQError } from '../errors.js';

/**
 * The largest Invoke API answer read, in bytes: 7 MiB. Lambda itself never answers a RequestResponse
 * invoke with more than its 6 MB payload limit (6,291,556 bytes: a larger result fails the invoke with
 * `Function.ResponseSizeTooLarge`), so no answer from Lambda comes near it, and the margin of about
 * 1 MiB keeps a compatible API that counts a little differently working. One answer being read never
 * holds more than this (plus one network read) in memory.
 */
export const MAX_LAMBDA_RESPONSE_BYTES = 7 * 1024 * 1024;

/**
 * The largest error answer (a status outside 2xx) read, in bytes: 64 KiB. Lambda's error answers are a
 * small JSON object (a type and a message, well under 1 KiB), and the SDK turns an error answer's body
 * into an object at up to a microsecond and 250 bytes of memory per byte of body: a 7 MB one (a JSON
 * string) blocked the event loop for 11 to 13 s and took the process to 1.6-1.8 GiB; 64 KiB costs about
 * 50 ms.
 * A function's own error (FunctionError) is a 200 answer: {@link MAX_LAMBDA_RESPONSE_BYTES} applies.
 */
export const MAX_LAMBDA_ERROR_ANSWER_BYTES = 64 * 1024;

/** What is read of an HTTP response (`HttpResponse` of `@smithy/core`). */
export interface HttpResponseShape {
  statusCode?: unknown;
  headers?: Record<string, string | undefined>;
  body?: unknown;
}

/**
 * An answer over the limit: the invoke failed, the answer was not (or no longer) read. `reason` says
 * how big it was and what the limit is; the SDK may add a line to `message`, never to `reason`.
 */
export class LambdaResponseTooLargeError extends RocketMQError {
  /** How big the answer was, and what was done with it, as a sentence. */
  readonly reason: string;
  /** The limit passed, in bytes. */
  readonly maxBytes: number;

  constructor(reason: string, maxBytes: number) {
    super(reason);
    this.reason = reason;
    this.maxBytes = maxBytes;
  }
}

/** Which limit an answer is held to, and how a message names it. */
interface AnswerLimit {
  readonly maxBytes: number;
  /** E.g. `answer (HTTP 200)`. */
  readonly answer: string;
  /** E.g. `the limit of 7340032 bytes on an answer (Lambda answers at most 6 MB)`. */
  readonly limit: string;
}

/**
 * Holds one answer of the Invoke API to the limit, before a byte of its body is read: a declared
 * Content-Length over `maxBytes` (over {@link MAX_LAMBDA_ERROR_ANSWER_BYTES} for a status outside 2xx)
 * throws a {@link LambdaResponseTooLargeError} and destroys the body; a body without one gets a counting
 * stream instead, which fails with that error as soon as it passes the limit. `maxBytes`: a positive
 * integer (LambdaInvokeChannel checks it).
 */
export function capResponseBody(response: HttpResponseShape, maxBytes: number): void {
  const { body } = response;
  if (!(body instanceof Readable)) return;
  const limit = limitOf(response.statusCode, maxBytes);
  const declared = declaredLength(response.headers);
  if (declared !== undefined && declared > limit.maxBytes) {
    body.destroy(); // closes the connection: nothing more of it is read
    throw new LambdaResponseTooLargeError(
      `the Invoke API's ${limit.answer} is ${declared} bytes by its Content-Length, over ${limit.limit}: ` +
        `refused unread`,
      limit.maxBytes,
    );
  }
  // A declared length within the limit bounds the body already: node's HTTP parser reads no byte past
  // it. Only an answer without one (chunked) is counted as it streams (a Transform per answer costs CPU).
  if (declared !== undefined) return;
  const counted = new ByteLimit(limit);
  // On an error of either side, pipeline destroys both: the limit passed closes the connection.
  pipeline(body, counted, () => undefined);
  response.body = counted;
}

function limitOf(statusCode: unknown, maxBytes: number): AnswerLimit {
  const status = typeof statusCode === 'number' ? statusCode : undefined;
  const shown = status === undefined ? '' : ` (HTTP ${status})`;
  if (status === undefined || (status >= 200 && status < 300)) {
    return {
      maxBytes,
      answer: `answer${shown}`,
      limit: `the limit of ${maxBytes} bytes on an answer (Lambda answers at most 6 MB)`,
    };
  }
  const errorMaxBytes = Math.min(maxBytes, MAX_LAMBDA_ERROR_ANSWER_BYTES);
  return {
    maxBytes: errorMaxBytes,
    answer: `error answer${shown}`,
    limit: `the limit of ${errorMaxBytes} bytes on an error answer (Lambda's are a small JSON object)`,
  };
}

/** The Content-Length of a response, when it has a valid one. */
function declaredLength(headers: HttpResponseShape['headers']): number | undefined {
  const value = headers?.['content-length'];
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

/** Passes bytes through until more than the limit went by, then fails. */
class ByteLimit extends Transform {
  readonly #limit: AnswerLimit;
  #bytes = 0;

  constructor(limit: AnswerLimit) {
    super();
    this.#limit = limit;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#bytes += chunk.length;
    if (this.#bytes <= this.#limit.maxBytes) {
      callback(null, chunk);
      return;
    }
    const { answer, limit, maxBytes } = this.#limit;
    callback(
      new LambdaResponseTooLargeError(
        `the Invoke API's ${answer} passed ${limit}: cut off after ${this.#bytes} bytes, its connection closed`,
        maxBytes,
      ),
    );
  }
}
