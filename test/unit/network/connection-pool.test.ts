import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionPool } from '../../../src/network/connection-pool.js';
import { ConnectError, ConnectionClosedError, NetworkError } from '../../../src/network/errors.js';
import { FLAG_ONEWAY } from '../../../src/protocol/remoting-command.js';
import { FakeServer, rejectionOf, unusedPort, waitFor } from './fake-server.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startServer(): Promise<FakeServer> {
  const server = await FakeServer.start();
  cleanups.push(() => server.close());
  return server;
}

function newPool(options: ConstructorParameters<typeof ConnectionPool>[0] = {}): ConnectionPool {
  const pool = new ConnectionPool(options);
  cleanups.push(() => pool.close());
  return pool;
}

describe('ConnectionPool', () => {
  it('keeps one connection per address, created on demand', async () => {
    const [a, b] = [await startServer(), await startServer()];
    const pool = newPool();
    expect(pool.get(a.address)).toBe(pool.get(a.address));
    expect(pool.get(a.address)).not.toBe(pool.get(b.address));
    expect(pool.size).toBe(2);

    await Promise.all([
      pool.request(a.address, { code: 105 }, 2000),
      pool.request(a.address, { code: 105 }, 2000),
      pool.request(b.address, { code: 105 }, 2000),
      pool.oneway(b.address, { code: 15 }),
    ]);
    expect(a.peers).toHaveLength(1);
    expect(b.peers).toHaveLength(1);
    await waitFor(() => b.received.length === 2);
    expect(b.received.map((command) => command.flag)).toContain(FLAG_ONEWAY);
  });

  it('passes connection options to every connection', async () => {
    const server = await startServer();
    const pool = newPool({ beforeSend: (command) => ({ ...command, extFields: { signed: 'yes' } }) });
    await pool.request(server.address, { code: 34 }, 2000);
    expect(server.received[0]?.extFields).toEqual({ signed: 'yes' });
  });

  it('evicts a connection that failed to connect, and the next call retries with a new one', async () => {
    const address = `127.0.0.1:${await unusedPort()}`;
    const pool = newPool();
    const failed = pool.get(address);
    expect(await rejectionOf(pool.request(address, { code: 105 }, 2000))).toBeInstanceOf(ConnectError);
    expect(pool.size).toBe(0);
    expect(failed.isClosed).toBe(true);
    const retry = pool.get(address);
    expect(retry).not.toBe(failed);
    expect(await rejectionOf(pool.oneway(address, { code: 15 }))).toBeInstanceOf(ConnectError);
    expect(pool.size).toBe(0);
  });

  it('evict() closes a connection and rejects its in-flight requests', async () => {
    const server = await startServer();
    server.onCommand = () => undefined;
    const pool = newPool();
    const pending = rejectionOf(pool.request(server.address, { code: 11 }, 5000));
    await waitFor(() => server.received.length === 1);
    await pool.evict(server.address);
    expect(await pending).toBeInstanceOf(ConnectionClosedError);
    expect(pool.size).toBe(0);
  });

  it('close() closes every connection; later calls throw', async () => {
    const [a, b] = [await startServer(), await startServer()];
    const pool = newPool();
    const first = pool.get(a.address);
    const second = pool.get(b.address);
    await pool.request(a.address, { code: 105 }, 2000);
    await pool.close();
    expect(first.isClosed && second.isClosed).toBe(true);
    expect(() => pool.get(a.address)).toThrow(NetworkError);
    expect(await rejectionOf(pool.request(a.address, { code: 105 }, 2000))).toMatchObject({
      retriable: false,
    });
  });
});
