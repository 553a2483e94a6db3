/**
 * Toxiproxy (Shopify's fault-injecting TCP proxy, built from the Go module proxy by go-tool.ts) for the
 * soak's TCP faults: a server on a free loopback port, one proxy per broker address, and toxics added
 * and removed through its HTTP API (latency, a bandwidth cap, connection resets, a black hole).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { onTestFinished } from 'vitest';
import { ensureGoTool, type GoTool } from '../go-tool.js';
import { waitFor } from '../wait-for.js';

/** Toxiproxy's server command, as the Go module proxy serves it. */
export const TOXIPROXY_SERVER: GoTool = {
  name: 'toxiproxy-server',
  version: 'v2.12.0',
  pkg: 'github.com/Shopify/toxiproxy/v2/cmd/server',
  executable: 'server',
};

/** A toxic as toxiproxy's API takes it. */
export interface Toxic {
  name: string;
  type: 'latency' | 'bandwidth' | 'reset_peer' | 'timeout';
  /** `downstream`: server to client. */
  stream: 'upstream' | 'downstream';
  attributes: Record<string, number>;
}

/**
 * A running toxiproxy server; stopped when the test ends.
 *
 * @example
 * ```ts
 * const toxiproxy = await Toxiproxy.start();
 * const listen = await toxiproxy.proxy('broker-a-0', '127.0.0.1:10911');
 * await toxiproxy.addToxic('broker-a-0', { name: 'hole', type: 'timeout', stream: 'downstream', attributes: { timeout: 0 } });
 * ```
 */
export class Toxiproxy {
  readonly #child: ChildProcess;
  readonly #api: string;

  private constructor(child: ChildProcess, api: string) {
    this.#child = child;
    this.#api = api;
  }

  /** Builds the server on first use (about a minute), starts it and waits for its API. */
  static async start(): Promise<Toxiproxy> {
    const binary = await ensureGoTool(TOXIPROXY_SERVER);
    const port = await freePort();
    const child = spawn(binary, ['-host', '127.0.0.1', '-port', String(port)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    });
    const proxy = new Toxiproxy(child, `http://127.0.0.1:${port}`);
    onTestFinished(() => proxy.stop());
    await waitFor(`toxiproxy's API on port ${port}`, 15_000, async () => {
      if (child.exitCode !== null) throw new Error(`toxiproxy exited ${child.exitCode}: ${stderr}`);
      try {
        return (await fetch(`${proxy.#api}/version`)).ok ? true : undefined;
      } catch {
        return undefined;
      }
    });
    return proxy;
  }

  /** Creates proxy `name` to `upstream` on a free loopback port; resolves with its listen address. */
  async proxy(name: string, upstream: string): Promise<string> {
    const created = (await this.#call('POST', '/proxies', { name, listen: '127.0.0.1:0', upstream })) as {
      listen: string;
    };
    return created.listen;
  }

  async addToxic(proxy: string, toxic: Toxic): Promise<void> {
    await this.#call('POST', `/proxies/${proxy}/toxics`, { ...toxic, toxicity: 1 });
  }

  async removeToxic(proxy: string, toxic: string): Promise<void> {
    await this.#call('DELETE', `/proxies/${proxy}/toxics/${toxic}`);
  }

  stop(): void {
    if (this.#child.exitCode === null) this.#child.kill('SIGTERM');
  }

  async #call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.#api}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`toxiproxy ${method} ${path}: HTTP ${response.status} ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const info = server.address();
      server.close(() =>
        info !== null && typeof info !== 'string' ? resolve(info.port) : reject(new Error('no port')),
      );
    });
  });
}
