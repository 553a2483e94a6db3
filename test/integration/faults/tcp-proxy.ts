/**
 * A TCP proxy on 127.0.0.1 in front of a real server (the test broker), for outages without killing
 * anything: while down it does not listen (a connection is refused, as by a host whose broker died) and
 * the connections it relayed are closed; up again, on the same port, it relays bytes both ways
 * untouched. A route that names the proxy's address instead of the broker's (fake-name-server.ts
 * rewrites routes) sends a consumer through it.
 */
import net from 'node:net';
import { onTestFinished } from 'vitest';

/**
 * A proxy that can be taken down and brought back.
 *
 * @example
 * ```ts
 * const proxy = await TcpProxy.start(brokerAddress, { down: true });
 * // ... connections to proxy.address are refused ...
 * await proxy.up();
 * ```
 */
export class TcpProxy {
  /** Connections relayed so far. */
  accepted = 0;
  readonly #server: net.Server;
  readonly #port: number;
  readonly #pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();

  private constructor(
    readonly upstream: string,
    server: net.Server,
    port: number,
  ) {
    this.#server = server;
    this.#port = port;
    server.on('connection', (socket) => this.#relay(socket));
  }

  /** Listens on a free port of 127.0.0.1 (and stops at once when `down`); closed when the test ends. */
  static async start(upstream: string, options: { down?: boolean } = {}): Promise<TcpProxy> {
    const server = net.createServer();
    await listen(server, 0);
    const info = server.address();
    if (info === null || typeof info === 'string') throw new Error('the proxy has no TCP address');
    const proxy = new TcpProxy(upstream, server, info.port);
    onTestFinished(() => proxy.down());
    if (options.down) await proxy.down();
    return proxy;
  }

  /** `127.0.0.1:<port>`, the same while down and up. */
  get address(): string {
    return `127.0.0.1:${this.#port}`;
  }

  /** True while connections are relayed. */
  get isUp(): boolean {
    return this.#server.listening;
  }

  /** Stops listening and closes every relayed connection. Idempotent. */
  async down(): Promise<void> {
    for (const { client, upstream } of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
    if (!this.#server.listening) return;
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Listens again on the same port. */
  async up(): Promise<void> {
    if (!this.#server.listening) await listen(this.#server, this.#port);
  }

  #relay(client: net.Socket): void {
    this.accepted++;
    const [host, port] = this.upstream.split(':');
    const upstream = net.connect({ host, port: Number(port) });
    const pair = { client, upstream };
    this.#pairs.add(pair);
    const end = () => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}

function listen(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
