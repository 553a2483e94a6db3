/**
 * The dev console's HTTP server (docs/console-api.md): node:http on 127.0.0.1 only, the page's static
 * assets (src/dev/console/assets/, shipped in the package), the JSON API (console-api.ts) and one
 * server-sent-events stream, `/api/events`: the state every second and each settled invocation.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RocketMQError } from '../../errors.js';
import { describeError } from '../../util/describe-error.js';
import type { Logger } from '../../util/logger.js';
import { type ConsoleApiDeps, handleApiRequest } from './console-api.js';
import { HttpError, sendError } from './http-exchange.js';
import type { InvocationRecorder } from './invocation-recorder.js';

/** How often `/api/events` sends the state. */
export const STATE_EVENT_INTERVAL_MS = 1000;
/** Event streams open at once (a browser tab each); more are refused with 503. */
export const MAX_EVENT_STREAMS = 32;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

/** Shown at `/` until the page's assets exist. */
const PLACEHOLDER_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rocketmq-lambda dev console</title></head>
<body><h1>rocketmq-lambda dev console</h1>
<p>The page is not built into this copy; the API is: <a href="/api/state">/api/state</a>,
<a href="/api/invocations">/api/invocations</a> (docs/console-api.md).</p></body></html>
`;

/** The console port cannot be used (taken, or not allowed). */
export class ConsolePortError extends RocketMQError {
  constructor(message: string, cause: unknown) {
    super(message, { permanent: true, cause });
  }
}

/** A listening console. */
export interface ConsoleServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Options of {@link startConsoleServer}. */
export interface ConsoleServerOptions {
  /** 0: any free port. */
  readonly port: number;
  /** What the API works with; undefined while the dev session starts (the API answers 503 meanwhile). */
  readonly deps: () => ConsoleApiDeps | undefined;
  /** Tells the event streams of settled invocations (there from the start). */
  readonly recorder: Pick<InvocationRecorder, 'onInvocation'>;
  readonly log: Logger;
  /** Where the page's files are. @default src/dev/console/assets beside this module */
  readonly assetsDir?: URL | undefined;
  /** @default STATE_EVENT_INTERVAL_MS */
  readonly stateIntervalMs?: number | undefined;
}

/** Starts the console on 127.0.0.1:`port`; rejects with {@link ConsolePortError} when it cannot listen. */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const assetsDir = options.assetsDir ?? new URL('./assets/', import.meta.url);
  const streams = new Set<ServerResponse>();
  let port = options.port;
  const server: Server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      options.log.error({ err: error, url: request.url }, 'console request failed');
      sendError(response, 500, `the console failed: ${describeError(error)}`);
    });
  });

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    // Only pages of this server may call it: a DNS-rebound name is not one of ours.
    const host = request.headers.host ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      return sendError(
        response,
        403,
        `the console answers only to http://127.0.0.1:${port}/, not host ${JSON.stringify(host)}`,
      );
    }
    const url = new URL(request.url ?? '/', `http://${host}`);
    try {
      if (url.pathname === '/api/events') return openEventStream(request, response);
      if (url.pathname.startsWith('/api/')) return await handleApiRequest(ready(), request, response, url);
      return await serveAsset(url.pathname, request, response);
    } catch (error) {
      if (error instanceof HttpError) return sendError(response, error.status, error.message);
      throw error;
    }
  };

  const ready = (): ConsoleApiDeps => {
    const deps = options.deps();
    if (deps === undefined)
      throw new HttpError(503, 'the dev session is still starting: try again in a moment');
    return deps;
  };

  const serveAsset = async (pathname: string, request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new HttpError(404, `no such API: ${request.method} ${pathname}`);
    }
    const name = pathname === '/' ? 'index.html' : pathname.slice(1);
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new HttpError(404, `no file ${pathname}`);
    const type = CONTENT_TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';
    let bytes: Buffer;
    try {
      bytes = await readFile(new URL(name, assetsDir));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (name !== 'index.html') throw new HttpError(404, `no file ${pathname}`);
      bytes = Buffer.from(PLACEHOLDER_PAGE);
    }
    response.writeHead(200, {
      'content-type': type,
      'content-length': bytes.length,
      'cache-control': 'no-cache',
    });
    response.end(request.method === 'HEAD' ? undefined : bytes);
  };

  const openEventStream = (request: IncomingMessage, response: ServerResponse): void => {
    if (request.method !== 'GET') throw new HttpError(404, `no such API: ${request.method} /api/events`);
    if (streams.size >= MAX_EVENT_STREAMS) {
      throw new HttpError(503, `${MAX_EVENT_STREAMS} event streams are open already: close a console tab`);
    }
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    response.write(': rocketmq-lambda dev console\n\n');
    streams.add(response);
    const send = (event: string, data: unknown): void => {
      if (!response.writableEnded) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const unsubscribe = options.recorder.onInvocation((summary) => send('invocation', summary));
    let reading = false;
    const sendState = (): void => {
      const deps = options.deps();
      if (reading || deps === undefined) return;
      reading = true;
      deps
        .state()
        .then((state) => send('state', state))
        .catch((error: unknown) => options.log.warn({ err: error }, 'console state failed'))
        .finally(() => {
          reading = false;
        });
    };
    sendState();
    const timer = setInterval(sendState, options.stateIntervalMs ?? STATE_EVENT_INTERVAL_MS);
    const close = (): void => {
      clearInterval(timer);
      unsubscribe();
      streams.delete(response);
    };
    request.on('close', close);
    response.on('close', close);
  };

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const taken = error.code === 'EADDRINUSE';
      reject(
        new ConsolePortError(
          taken
            ? `console port ${options.port} is taken: pass another with --console-port <n>, or --console-port 0 for any free port (or --no-console)`
            : `the console cannot listen on 127.0.0.1:${options.port}: ${describeError(error)}`,
          error,
        ),
      );
    };
    server.once('error', onError);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of streams) stream.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
