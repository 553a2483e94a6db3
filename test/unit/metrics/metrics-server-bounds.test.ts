/**
 * The metrics endpoint facing a hostile client, on a real listening server: loopback unless configured,
 * a client that sends its headers byte by byte (slowloris) or nothing at all is cut off, connections past
 * the cap are closed at once, and request bodies are never read. The limits are shortened in the tests
 * through `limits`; the defaults are checked against what the config reference promises.
 */
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import { metricsSchema } from '../../../src/config/metrics-config-schema.js';
import {
  METRICS_SERVER_LIMITS,
  MetricsServer,
  type MetricsServerLimits,
} from '../../../src/metrics/metrics-server.js';
import { waitFor } from '../../support/wait-for.js';

/** Waits until `predicate` holds (waitFor resolves on any value but undefined). */
async function until(what: string, timeoutMs: number, predicate: () => boolean | Promise<boolean>) {
  await waitFor(what, timeoutMs, async () => ((await predicate()) ? true : undefined), { intervalMs: 10 });
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(host: string, limits: Partial<MetricsServerLimits> = {}): Promise<MetricsServer> {
  const server = await MetricsServer.start({
    registry: new Registry(),
    readiness: () => ({ healthy: true, problems: [] }),
    port: 0,
    host,
    limits,
  });
  cleanups.push(() => server.close());
  return server;
}

/** A raw client socket that records what it receives and when it was closed. */
async function rawClient(port: number, host = '127.0.0.1') {
  const socket = net.connect(port, host);
  cleanups.push(() => socket.destroy());
  const state = { received: '', closed: false, error: undefined as Error | undefined };
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    state.received += chunk;
  });
  socket.on('error', (error) => {
    state.error = error;
  });
  socket.on('close', () => {
    state.closed = true;
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, state };
}

/** Sends one keep-alive GET and waits for its whole answer (a body of `{"live":true}`). */
async function healthzOn(client: Awaited<ReturnType<typeof rawClient>>): Promise<void> {
  client.socket.write('GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n');
  await until('the /healthz answer', 2000, () => client.state.received.includes('{"live":true}'));
}

function nonLoopbackIPv4(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address !== undefined && !address.internal && address.family === 'IPv4')?.address;
}

describe('the metrics endpoint under hostile clients', () => {
  it('listens on loopback when metrics.prometheus.host is not set', async () => {
    const config = parseConfig(
      {
        nameServer: '127.0.0.1:9876',
        offsets: { store: 'memory' },
        metrics: { prometheus: { port: 0 } },
        mappings: [{ topic: 'T', consumerGroup: 'G', function: 'local:./h.mjs#handler' }],
      },
      { baseDir: '/app', env: {} },
    );
    const host = config.metrics.prometheus?.host;
    expect(host).toBe('127.0.0.1');
    const server = await serve(host ?? '');
    expect(server.host).toBe('127.0.0.1');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // From another address of this machine, nothing listens.
    const outside = nonLoopbackIPv4();
    if (outside !== undefined) {
      await expect(rawClient(server.port, outside)).rejects.toThrow(/ECONNREFUSED/);
    }
  });

  it('cuts off a client that sends its headers byte by byte', async () => {
    const server = await serve('127.0.0.1', {
      headersTimeoutMs: 300,
      requestTimeoutMs: 600,
      timeoutCheckIntervalMs: 50,
    });
    const client = await rawClient(server.port);
    const request = `GET /metrics HTTP/1.1\r\nHost: t\r\nX-Slow: ${'x'.repeat(10_000)}\r\n\r\n`;
    let sent = 0;
    // One byte every 20 ms: never idle long enough for an idle timeout, never done within 200 s.
    const drip = setInterval(() => {
      if (!client.socket.destroyed) client.socket.write(request[sent++] ?? '');
    }, 20);
    cleanups.push(() => clearInterval(drip));
    await until('the slow client cut off', 5000, () => client.state.closed);
    expect(sent).toBeLessThan(request.length);
    expect(client.state.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a connection that sends nothing', async () => {
    const server = await serve('127.0.0.1', { idleTimeoutMs: 200, timeoutCheckIntervalMs: 50 });
    const client = await rawClient(server.port);
    await until('the silent connection closed', 2000, () => client.state.closed);
    expect(client.state.received).not.toContain('200 OK');
  });

  it('closes connections past the cap at once; a fresh one is served once they are gone', async () => {
    const server = await serve('127.0.0.1', { maxConnections: 4, keepAliveTimeoutMs: 30_000 });
    const held = [];
    for (let i = 0; i < 4; i++) {
      const client = await rawClient(server.port);
      await healthzOn(client); // accepted and kept alive
      held.push(client);
    }
    const extra = await rawClient(server.port);
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n');
    await until('the connection past the cap closed', 2000, () => extra.state.closed);
    expect(extra.state.received).toBe('');
    expect(held.every((client) => !client.state.closed)).toBe(true);

    for (const client of held) client.socket.destroy();
    // The server sees the closes asynchronously: the first fresh connections may still be refused (and
    // fetch may then hang on them, hence the abort).
    await until('/healthz on a fresh connection', 3000, async () => {
      try {
        return (await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(300) })).status === 200;
      } catch {
        return false;
      }
    });
  });

  it('answers 404 to unknown paths (whatever they look like) and 405 to other methods', async () => {
    const server = await serve('127.0.0.1');
    expect((await fetch(`${server.url}/`)).status).toBe(404);
    expect((await fetch(`${server.url}/metrics/x?y=1`)).status).toBe(404);
    expect((await fetch(`${server.url}/healthz?probe=1`)).status).toBe(200);
    const post = await fetch(`${server.url}/metrics`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    // A target no URL parser takes is still just an unknown path.
    const client = await rawClient(server.port);
    client.socket.write('GET // HTTP/1.1\r\nHost: t\r\n\r\n');
    await until('the answer', 2000, () => client.state.received.includes('\r\n\r\n'));
    expect(client.state.received).toMatch(/^HTTP\/1\.1 404 /);
  });

  it('never reads a request body: answers, then closes the connection', async () => {
    const server = await serve('127.0.0.1');
    for (const head of [
      'POST /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n',
    ]) {
      const client = await rawClient(server.port);
      client.socket.write(head);
      client.socket.write('x'.repeat(1000));
      // Announced 100 MB and sent 1 KB: a server reading the body would wait for the rest.
      await until(`closed after answering ${head.split('\r\n')[0]}`, 2000, () => client.state.closed);
      expect(client.state.received).toMatch(/^HTTP\/1\.1 (405|200) /);
    }
  });

  it('the config reference states the default limits', () => {
    const description = String(metricsSchema.unwrap().shape.prometheus.meta()?.description);
    const limits = METRICS_SERVER_LIMITS;
    expect(description).toContain(`at most ${limits.maxConnections} connections`);
    expect(description).toContain(
      `headers within ${limits.headersTimeoutMs / 1000} s and ${limits.maxHeaderBytes / 1024} KiB`,
    );
    expect(description).toContain(`idle connections closed after ${limits.idleTimeoutMs / 1000} s`);
  });
});
