/**
 * The poller's HTTP endpoints for Prometheus and orchestrators (node:http, no framework):
 * - `GET /metrics`: the registry in Prometheus text format, with the registry's content type;
 * - `GET /healthz`: liveness, 200 while the process serves requests;
 * - `GET /readyz`: readiness, 200 when every mapping's consumer runs and is healthy (the poller's health
 *   verdict, consumer-health.ts), else 503 with `{ ready: false, problems: [...] }`; both with each
 *   mapping's consume state when the poller gives it (`mappings`, poller-health.ts).
 * Anything else is 404; methods other than GET and HEAD are 405.
 *
 * Anyone who reaches the port can talk to it, so it listens on loopback unless configured (the default of
 * `metrics.prometheus.host`, src/config/metrics-config-schema.ts) and bounds
 * what a client can hold ({@link METRICS_SERVER_LIMITS}): connections, header size, the time to send a
 * request, idle time. Request bodies are never read: a request that has one, or another method than
 * GET/HEAD, is answered and its connection closed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { RocketMQError } from '../errors.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { ThrottledLog } from '../util/throttled-log.js';

/**
 * Bounds on what HTTP clients can hold. A Prometheus scrape is one small GET every 15-60 s on one
 * keep-alive connection and an orchestrator's probes a few more: these leave that plenty of room while a
 * client that connects and never finishes (slowloris), or opens connections by the thousand, costs a
 * bounded number of sockets for a bounded time.
 */
export interface MetricsServerLimits {
  /** Open connections at most; further ones are closed at once (and counted in a throttled warning). */
  readonly maxConnections: number;
  /** A request's headers must be complete this soon after its first byte, else 408 and closed. */
  readonly headersTimeoutMs: number;
  /** A whole request must be received this soon, else 408 and closed. */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** A socket with no traffic either way (a client that stops reading the answer) is closed after this. */
  readonly idleTimeoutMs: number;
  /** Request line and headers at most, else 431 and closed. */
  readonly maxHeaderBytes: number;
  /** How often the header and request timeouts are checked (node:http checks them on a timer). */
  readonly timeoutCheckIntervalMs: number;
}

/** The limits used unless {@link MetricsServerOptions.limits} says otherwise. */
export const METRICS_SERVER_LIMITS: MetricsServerLimits = {
  maxConnections: 64,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 15_000,
  maxHeaderBytes: 8 * 1024,
  timeoutCheckIntervalMs: 1_000,
};

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Options of {@link MetricsServer.start}.
 */
export interface MetricsServerOptions {
  readonly registry: Registry;
  /** The verdict `/readyz` answers with; `mappings` (each mapping's state, poller-health.ts) is passed on. */
  readonly readiness: () => {
    readonly healthy: boolean;
    readonly problems: readonly string[];
    readonly mappings?: readonly unknown[] | undefined;
  };
  /** 0 picks a free port (see {@link MetricsServer.port}). */
  readonly port: number;
  /** The address to listen on (`metrics.prometheus.host`, loopback unless configured). */
  readonly host: string;
  readonly logger?: Logger | undefined;
  /** Overrides of {@link METRICS_SERVER_LIMITS} (tests shorten the timeouts). */
  readonly limits?: Partial<MetricsServerLimits> | undefined;
}

/**
 * The running server.
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
    // Clients cause these lines as often as they like.
    const lines = new ThrottledLog(log);
    const limits = { ...METRICS_SERVER_LIMITS, ...options.limits };
    const { host } = options;
    const server = createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
        maxHeaderSize: limits.maxHeaderBytes,
      },
      (request, response) => {
        handle(request, response, options).catch((error: unknown) => {
          lines.error('failed', { err: error, path: request.url?.slice(0, 100) }, 'metrics request failed');
          if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          response.end('internal error\n');
        });
      },
    );
    server.maxConnections = limits.maxConnections;
    // Without a 'timeout' listener node:http destroys the idle socket.
    server.setTimeout(limits.idleTimeoutMs);
    server.on('drop', () =>
      lines.warn(
        'drop',
        { maxConnections: limits.maxConnections },
        'metrics connection refused: too many connections open',
      ),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, host, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((cause: unknown) => {
      throw new RocketMQError(
        `the metrics server cannot listen on ${host}:${options.port} (metrics.prometheus)`,
        {
          cause,
        },
      );
    });
    server.on('error', (error) => lines.error('server', { err: error }, 'metrics server error'));
    const address = server.address() as AddressInfo;
    log.info({ host: address.address, port: address.port }, 'serving /metrics, /healthz and /readyz');
    return new MetricsServer(server, address);
  }

  /** The bound address (what `host` resolved to). */
  get host(): string {
    return this.#address.address;
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
  // The path as sent, query cut off: no URL parsing a client could make throw.
  const target = request.url ?? '/';
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, {
      allow: 'GET, HEAD',
      'content-type': 'text/plain; charset=utf-8',
      connection: 'close',
    });
    response.end('method not allowed\n');
    return;
  }
  // Nothing here takes a body: one sent is not read, the connection closes after the answer instead.
  if (hasBody(request)) response.setHeader('connection', 'close');
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
      // 503 names each problem (a missing topic by name); `mappings` tells a waiting standby apart.
      const { healthy, problems, mappings } = options.readiness();
      response.writeHead(healthy ? 200 : 503, { 'content-type': JSON_CONTENT_TYPE });
      const body = { ready: healthy, problems, ...(mappings === undefined ? {} : { mappings }) };
      response.end(request.method === 'HEAD' ? undefined : `${JSON.stringify(body)}\n`);
      return;
    }
    default:
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('not found: try /metrics, /healthz or /readyz\n');
  }
}

/** Whether the request announces a body (which is never read). */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
