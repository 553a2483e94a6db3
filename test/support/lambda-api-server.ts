/**
 * A small Lambda Invoke API of our own over HTTP, for tests: `@aws-sdk/client-lambda` pointed at its
 * endpoint (with dummy credentials) invokes in-process handlers. Errors look like Lambda's, and faults can
 * be queued per function (throttles, 5xx, slow and hung functions, malformed responses, function errors).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The largest request body Lambda accepts for a synchronous invoke (6 MiB). Lambda's own answer over it:
 * "Request must be smaller than 6291456 bytes for the InvokeFunction operation" (the 6,291,556 in
 * `Function.ResponseSizeTooLarge` errors is the response limit).
 */
export const LAMBDA_MAX_REQUEST_BYTES = 6_291_456;

const REGION = 'us-east-1';
const ACCOUNT_ID = '123456789012';
const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/** What a handler gets besides the event. */
export interface LambdaApiContext {
  readonly functionName: string;
  readonly qualifier: string | undefined;
  readonly awsRequestId: string;
  readonly invokedFunctionArn: string;
}

/** An in-process function: its return value is JSON-serialized; a throw is an Unhandled FunctionError. */
export type LambdaApiHandler = (event: unknown, context: LambdaApiContext) => unknown;

/** Something to happen instead of (or before) a normal invoke. */
export type LambdaApiFault =
  | { readonly kind: 'throttle'; readonly reason?: string; readonly retryAfterSeconds?: number }
  | { readonly kind: 'server-error'; readonly status?: number; readonly message?: string }
  | { readonly kind: 'slow'; readonly delayMs: number }
  | { readonly kind: 'hang' }
  | { readonly kind: 'malformed-response'; readonly body?: string }
  | {
      readonly kind: 'function-error';
      readonly handled?: boolean;
      readonly errorType?: string;
      readonly errorMessage?: string;
    }
  | { readonly kind: 'access-denied'; readonly message?: string }
  | { readonly kind: 'not-found' };

/** One request the server received. */
export interface LambdaApiCall {
  readonly functionName: string;
  readonly qualifier: string | undefined;
  readonly invocationType: string;
  readonly payloadBytes: number;
  /** The `X-Amzn-Trace-Id` header the request carried (Lambda reads it for X-Ray), if any. */
  readonly traceHeader: string | undefined;
  /** The W3C `traceparent` header the request carried, if any. */
  readonly traceparent: string | undefined;
  /** The parsed event; undefined when the body was rejected before parsing. */
  event: unknown;
  /** The fault applied, if any. */
  fault: LambdaApiFault['kind'] | 'too-large' | undefined;
  /** The HTTP status answered (undefined for a hang). */
  status: number | undefined;
  /** How a {@link LargeResponse} went out, when the handler returned one. */
  streamed?: StreamedAnswer;
}

/** Options of {@link largeResponse}. */
export interface LargeResponseOptions {
  /** Sent without a Content-Length (chunked), so the client cannot know the size up front. @default false */
  readonly chunked?: boolean;
  /** The HTTP status of the answer. @default 200 */
  readonly status?: number;
  /** Sent as `X-Amz-Function-Error` (`Handled` or `Unhandled`) when given. */
  readonly functionError?: string;
}

/** A large answer a handler asks for: see {@link largeResponse}. */
export class LargeResponse {
  constructor(
    readonly bytes: number,
    readonly options: LargeResponseOptions,
  ) {}
}

/**
 * What a handler returns to answer with a body of `bytes` bytes, streamed in 64 KiB writes that wait for
 * the client to read (never held in memory): a JSON string `"aaa…a"`, so an answer of any size that is
 * read whole is valid JSON. `Infinity` never ends (chunked): the server writes until the client closes the
 * socket, or until {@link ENDLESS_ANSWER_SAFETY_BYTES} went out, when it destroys the socket (never a clean
 * end: a client without a limit then fails instead of taking the machine's memory).
 * {@link LambdaApiCall.streamed} tells how many bytes went out and whether the client hung up first.
 *
 * @example
 * ```ts
 * server.register('big', () => largeResponse(50 * 1024 * 1024, { chunked: true }));
 * ```
 */
export function largeResponse(bytes: number, options: LargeResponseOptions = {}): LargeResponse {
  if (!(bytes >= 2 && (Number.isSafeInteger(bytes) || bytes === Number.POSITIVE_INFINITY))) {
    throw new Error(`a large response has a whole number of bytes, at least 2, got ${bytes}`);
  }
  if (bytes === Number.POSITIVE_INFINITY && options.chunked !== true) {
    throw new Error('an endless response has no Content-Length: pass chunked: true');
  }
  return new LargeResponse(bytes, options);
}

/** How a {@link LargeResponse} went out. */
export interface StreamedAnswer {
  /** The size the answer was meant to have (`Infinity` for an endless one). */
  readonly bytes: number;
  /** Bytes handed to the socket so far (the kernel's buffers hold some of them when the client stops). */
  bytesWritten: number;
  /** Whether the whole body went out; `false` when the client closed the connection first. */
  finished: boolean;
  /** Settles when the server stopped writing: the body is out or the connection closed. */
  readonly done: Promise<void>;
}

/** The size of each write of a streamed answer. */
const STREAM_CHUNK_BYTES = 64 * 1024;

/** Where an endless answer gives up on a client that keeps reading: the socket is destroyed there. */
export const ENDLESS_ANSWER_SAFETY_BYTES = 64 * 1024 * 1024;

/** Options of {@link LambdaApiServer.start}. */
export interface LambdaApiServerOptions {
  /** Bodies over it are answered 413. @default LAMBDA_MAX_REQUEST_BYTES */
  maxRequestBytes?: number;
}

/**
 * The test Invoke API server.
 *
 * @example
 * ```ts
 * const server = await LambdaApiServer.start();
 * server.register('orders', async (event) => ({ batchItemFailures: [] }));
 * server.injectFaults('orders', { kind: 'throttle' }, { kind: 'throttle' });
 * const invoker = new LambdaInvoker(server.clientOptions());
 * await server.close();
 * ```
 */
export class LambdaApiServer {
  readonly #server: Server;
  readonly #maxRequestBytes: number;
  readonly #handlers = new Map<string, LambdaApiHandler>();
  readonly #faults = new Map<string, LambdaApiFault[]>();
  readonly #calls: LambdaApiCall[] = [];
  /** Requests being held by a `hang` fault, answered (destroyed) on close. */
  readonly #hung = new Set<ServerResponse>();
  #endpoint: string | undefined;

  private constructor(server: Server, maxRequestBytes: number) {
    this.#server = server;
    this.#maxRequestBytes = maxRequestBytes;
  }

  static async start(options: LambdaApiServerOptions = {}): Promise<LambdaApiServer> {
    let api: LambdaApiServer | undefined;
    const server = createServer((req, res) => {
      if (api === undefined) throw new Error('server not ready');
      api.#handle(req, res).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
    api = new LambdaApiServer(server, options.maxRequestBytes ?? LAMBDA_MAX_REQUEST_BYTES);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    void api.endpoint; // remembered, so that it stays known after close
    return api;
  }

  /** `http://127.0.0.1:<port>` */
  get endpoint(): string {
    if (this.#endpoint === undefined) {
      const address = this.#server.address() as AddressInfo;
      this.#endpoint = `http://127.0.0.1:${address.port}`;
    }
    return this.#endpoint;
  }

  /** What an SDK client needs to talk to this server. */
  clientOptions(): {
    endpoint: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  } {
    return {
      endpoint: this.endpoint,
      region: REGION,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    };
  }

  /** Registers (or replaces) the handler of a function name. */
  register(functionName: string, handler: LambdaApiHandler): void {
    this.#handlers.set(functionName, handler);
  }

  /** Queues faults for the next calls of a function, one per call, in order. */
  injectFaults(functionName: string, ...faults: LambdaApiFault[]): void {
    const queue = this.#faults.get(functionName) ?? [];
    queue.push(...faults);
    this.#faults.set(functionName, queue);
  }

  /** Drops the faults still queued for `functionName` (a burst that ends before all were used). */
  clearFaults(functionName: string): void {
    this.#faults.delete(functionName);
  }

  /** The calls of one function (or of all), in arrival order. */
  calls(functionName?: string): readonly LambdaApiCall[] {
    return functionName === undefined
      ? this.#calls
      : this.#calls.filter((c) => c.functionName === functionName);
  }

  async close(): Promise<void> {
    for (const res of this.#hung) res.destroy();
    this.#hung.clear();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = req.method === 'POST' ? INVOKE_PATH.exec(url.pathname) : null;
    const body = await readBody(req);
    if (match === null) {
      sendError(res, 404, 'UnknownOperationException', {
        message: `no route for ${req.method} ${url.pathname}`,
      });
      return;
    }
    const { name, qualifier: pathQualifier } = splitFunctionName(decodeURIComponent(match[1] ?? ''));
    const qualifier = url.searchParams.get('Qualifier') ?? pathQualifier;
    const invocationType = headerValue(req, 'x-amz-invocation-type') ?? 'RequestResponse';
    const call: LambdaApiCall = {
      functionName: name,
      qualifier,
      invocationType,
      payloadBytes: body.length,
      traceHeader: headerValue(req, 'x-amzn-trace-id'),
      traceparent: headerValue(req, 'traceparent'),
      event: undefined,
      fault: undefined,
      status: undefined,
    };
    this.#calls.push(call);
    const arn = `arn:aws:lambda:${REGION}:${ACCOUNT_ID}:function:${name}${qualifier === undefined ? '' : `:${qualifier}`}`;

    if (body.length > this.#maxRequestBytes) {
      call.fault = 'too-large';
      call.status = 413;
      sendError(res, 413, 'RequestEntityTooLargeException', {
        message: `Request must be smaller than ${this.#maxRequestBytes} bytes for the InvokeFunction operation`,
      });
      return;
    }
    const handler = this.#handlers.get(name);
    const fault = this.#faults.get(name)?.shift();
    call.fault = fault?.kind;
    if (handler === undefined || fault?.kind === 'not-found') {
      call.status = 404;
      sendError(res, 404, 'ResourceNotFoundException', {
        Type: 'User',
        Message: `Function not found: ${arn}`,
      });
      return;
    }
    if (invocationType === 'DryRun') {
      // Lambda checks the function and the caller's permission, runs nothing and answers 204.
      call.status = 204;
      res.writeHead(204).end();
      return;
    }
    let event: unknown;
    try {
      event = JSON.parse(body.toString('utf8'));
    } catch {
      call.status = 400;
      sendError(res, 400, 'InvalidRequestContentException', {
        Type: 'User',
        message: 'Could not parse request body into json',
      });
      return;
    }
    call.event = event;
    switch (fault?.kind) {
      case 'throttle':
        call.status = 429;
        sendError(
          res,
          429,
          'TooManyRequestsException',
          {
            Type: 'User',
            Reason: fault.reason ?? 'ReservedFunctionConcurrentInvocationLimitExceeded',
            message: 'Rate Exceeded.',
          },
          fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) },
        );
        return;
      case 'server-error':
        call.status = fault.status ?? 500;
        sendError(res, call.status, 'ServiceException', {
          Type: 'Service',
          Message: fault.message ?? 'Internal error',
        });
        return;
      case 'access-denied':
        call.status = 403;
        sendError(res, 403, 'AccessDeniedException', {
          Message:
            fault.message ??
            `User: arn:aws:iam::${ACCOUNT_ID}:user/poller is not authorized to perform: lambda:InvokeFunction on resource: ${arn}`,
        });
        return;
      case 'hang':
        this.#hung.add(res);
        return;
      case 'malformed-response':
        call.status = 200;
        send(res, 200, fault.body ?? '{"batchItemFailures": [', {});
        return;
      case 'function-error':
        call.status = 200;
        send(
          res,
          200,
          JSON.stringify({
            errorType: fault.errorType ?? 'Error',
            errorMessage: fault.errorMessage ?? 'injected function error',
            trace: [],
          }),
          { 'x-amz-function-error': fault.handled === true ? 'Handled' : 'Unhandled' },
        );
        return;
      case 'slow':
        await sleep(fault.delayMs);
        break;
      case undefined:
        break;
    }
    const context: LambdaApiContext = {
      functionName: name,
      qualifier,
      awsRequestId: randomUUID(),
      invokedFunctionArn: arn,
    };
    let result: unknown;
    try {
      result = await handler(event, context);
    } catch (error) {
      call.status = 200;
      const errorType = error instanceof Error ? error.name : typeof error;
      const errorMessage = error instanceof Error ? error.message : String(error);
      send(res, 200, JSON.stringify({ errorType, errorMessage, trace: [] }), {
        'x-amz-function-error': 'Unhandled',
      });
      return;
    }
    if (result instanceof LargeResponse) {
      call.status = result.options.status ?? 200;
      const progress = { bytes: result.bytes, bytesWritten: 0, finished: false };
      const done = streamAnswer(res, result, progress);
      call.streamed = Object.assign(progress, { done });
      await done;
      return;
    }
    call.status = 200;
    send(res, 200, JSON.stringify(result ?? null), { 'x-amz-executed-version': '$LATEST' });
  }
}

/** Writes a {@link LargeResponse}, waiting for the client to read, until it is out or the socket closes. */
async function streamAnswer(
  res: ServerResponse,
  answer: LargeResponse,
  streamed: Omit<StreamedAnswer, 'done'>,
): Promise<void> {
  const { bytes, options } = answer;
  res.writeHead(options.status ?? 200, {
    'content-type': 'application/json',
    ...(options.chunked === true ? {} : { 'content-length': bytes }),
    'x-amzn-requestid': randomUUID(),
    ...(options.functionError === undefined ? {} : { 'x-amz-function-error': options.functionError }),
  });
  let closed = false;
  const onClose = () => {
    closed = true;
  };
  res.once('close', onClose);
  const filler = Buffer.alloc(STREAM_CHUNK_BYTES, 'a'); // never changed: the quotes go into copies
  while (!closed && streamed.bytesWritten < bytes) {
    const size = Math.min(STREAM_CHUNK_BYTES, bytes - streamed.bytesWritten);
    const first = streamed.bytesWritten === 0;
    const last = streamed.bytesWritten + size === bytes;
    let chunk = filler.subarray(0, size);
    if (first || last) {
      chunk = Buffer.from(chunk);
      if (first) chunk[0] = 0x22;
      if (last) chunk[size - 1] = 0x22;
    }
    const flushed = res.write(chunk);
    streamed.bytesWritten += size;
    if (streamed.bytesWritten >= ENDLESS_ANSWER_SAFETY_BYTES && bytes === Number.POSITIVE_INFINITY) {
      res.destroy();
      break;
    }
    if (!flushed && !closed) await drainedOrClosed(res);
  }
  res.off('close', onClose);
  if (closed || res.destroyed) return;
  streamed.finished = true;
  res.end();
}

/** Settles when `res` can take more writes or its connection closed, leaving no listener behind. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      res.off('drain', settle);
      res.off('close', settle);
      resolve();
    };
    res.once('drain', settle);
    res.once('close', settle);
  });
}

/** `name`, `name:qualifier`, `123456789012:function:name[:q]` or a full ARN → name and qualifier. */
function splitFunctionName(raw: string): { name: string; qualifier: string | undefined } {
  const parts = raw.split(':');
  const at = parts.indexOf('function');
  const rest = at === -1 ? parts : parts.slice(at + 1);
  return { name: rest[0] ?? '', qualifier: rest[1] };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-amzn-requestid': randomUUID(),
    ...headers,
  });
  res.end(body);
}

function sendError(
  res: ServerResponse,
  status: number,
  errorType: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): void {
  send(res, status, JSON.stringify(body), { 'x-amzn-errortype': errorType, ...headers });
}
