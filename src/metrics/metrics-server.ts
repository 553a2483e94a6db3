/**
 * The poller's HTTP endpoints for Prometheus and orchestrators (node:http, no framework):
 * - `GET /metrics`: the registry in Prometheus text format, with the registry's content type;
 * - `GET /healthz`: liveness, 200 while the process serves requests;
 * - `GET /readyz`: readiness, 200 when every mapping's consumer runs and is healthy (the poller's health
 *   verdict, consumer-health.ts), else 503 with `{ ready: false, problems: [...] }`.
 * Anything else is 404; methods other than GET and HEAD are 405.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { RocketMQError } from '../errors.js';
import { componentLogger, type Logger } from '../util/logger.js';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Options of {@link MetricsServer.start}.
 */
export interface MetricsServerOptions {
  readonly registry: Registry;
  /** The verdict `/readyz` answers with. */
  readonly readiness: () => { readonly healthy: boolean; readonly problems: readonly string[] };
  /** 0 picks a free port (see {@link MetricsServer.port}). */
  readonly port: number;
  readonly host: string;
  readonly logger?: Logger | undefined;
}

/**
 * The running server.
 *
 * @example
 * ```ts
 * const server = await MetricsServer.start({ registry, readiness: () => poller.health(), port: 0, host: '127.0.0.1' });
 * await fetch(`${server.url}/metrics`);
 * await server.close();
 * ```
 */
export class MetricsServer {
  readonly #server: Server;
  readonly #address: AddressInfo;

  private constructor(server: Server, address: AddressInfo) {
    this.#server = server;
    this.#address = address;
  }

  /** Listens; rejects when the port cannot be bound (in use, no permission). */
  static async start(options: MetricsServerOptions): Promise<MetricsServer> {
    const log = componentLogger('metrics.http', options.logger);
    const server = createServer((request, response) => {
      handle(request, response, options).catch((error: unknown) => {
        log.error({ err: error, path: request.url }, 'metrics request failed');
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('internal error\n');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((cause: unknown) => {
      throw new RocketMQError(
        `the metrics server cannot listen on ${options.host}:${options.port} (metrics.prometheus)`,
        { cause },
      );
    });
    server.on('error', (error) => log.error({ err: error }, 'metrics server error'));
    const address = server.address() as AddressInfo;
    log.info({ host: address.address, port: address.port }, 'serving /metrics, /healthz and /readyz');
    return new MetricsServer(server, address);
  }

  /** The bound port (the one picked when 0 was asked). */
  get port(): number {
    return this.#address.port;
  }

  /** `http://<host>:<port>`, with a loopback host when listening on every interface. */
  get url(): string {
    const host = this.#address.address;
    const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${this.port}`;
  }

  /** Stops listening and closes open connections; resolves once closed. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  options: MetricsServerOptions,
): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
    response.end('method not allowed\n');
    return;
  }
  switch (path) {
    case '/metrics': {
      const body = await options.registry.metrics();
      response.writeHead(200, { 'content-type': options.registry.contentType });
      response.end(request.method === 'HEAD' ? undefined : body);
      return;
    }
    case '/healthz':
      response.writeHead(200, { 'content-type': JSON_CONTENT_TYPE });
      response.end(request.method === 'HEAD' ? undefined : `${JSON.stringify({ live: true })}\n`);
      return;
    case '/readyz': {
      const { healthy, problems } = options.readiness();
      response.writeHead(healthy ? 200 : 503, { 'content-type': JSON_CONTENT_TYPE });
      response.end(
        request.method === 'HEAD' ? undefined : `${JSON.stringify({ ready: healthy, problems })}\n`,
      );
      return;
    }
    default:
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('not found: try /metrics, /healthz or /readyz\n');
  }
}
