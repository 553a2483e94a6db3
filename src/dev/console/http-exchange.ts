/**
 * The HTTP plumbing of the dev console's JSON API: reading a request body within its bound, parsing it
 * as a JSON object, answering JSON, and errors that carry their status (`{ "error": "..." }`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The largest request body the console reads. */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

/** An error with the HTTP status it answers with; its message names what is wrong. */
export class HttpError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
  }
}

/**
 * Reads a request's body as a JSON object: 415 unless it says `application/json` (so that a web page of
 * another origin cannot post a form here), 413 over `maxBytes`, 400 for bad JSON or anything but an object.
 */
export async function readJsonObject(
  request: IncomingMessage,
  maxBytes: number = MAX_REQUEST_BODY_BYTES,
): Promise<Record<string, unknown>> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new HttpError(
      415,
      `the body must be JSON sent as content-type application/json, got ${JSON.stringify(type)}`,
    );
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    throw new HttpError(413, `the body is ${declared} bytes, over the limit of ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      request.resume();
      throw new HttpError(413, `the body is over the limit of ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'the body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/** Answers `body` as JSON with `status`. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  response.end(text);
}

/** Answers an error as `{ "error": message }`. */
export function sendError(response: ServerResponse, status: number, message: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  sendJson(response, status, { error: message });
}
