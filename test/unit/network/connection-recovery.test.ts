/**
 * Bad peers: requests that time out, frames that stop half-way, a peer that speaks TLS to a plaintext
 * client (and the reverse), a peer that drops us without a word, a peer that does not read what we send.
 * Every connection must recover on the next request and stay bounded meanwhile.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Connection, type ConnectionCloseEvent } from '../../../src/network/connection.js';
import {
  ConnectError,
  ConnectionClosedError,
  RequestTimeoutError,
  SendQueueFullError,
} from '../../../src/network/errors.js';
import type { RemotingCommand } from '../../../src/protocol/remoting-command.js';
import { echo, FakeServer, rejectionOf, startRawServer, waitFor } from './fake-server.js';

const cleanups: Array<() => Promise<void>> = [];

async function startServer(options: Parameters<typeof FakeServer.start>[0] = {}): Promise<FakeServer> {
  const server = await FakeServer.start(options);
  cleanups.push(() => server.close());
  return server;
}

function connect(options: ConstructorParameters<typeof Connection>[0]): Connection {
  const connection = new Connection(options);
  cleanups.push(() => connection.close());
  return connection;
}

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The first bytes of a frame of `totalBytes` (length prefix included): its prefix plus `sentBytes - 4`. */
function partialFrame(totalBytes: number, sentBytes: number): Buffer {
  const bytes = Buffer.alloc(sentBytes);
  bytes.writeInt32BE(totalBytes - 4, 0);
  return bytes;
}

/**
 * Answers normally on every connection but the first, where the first request gets only the start of a
 * frame and later answers are swallowed by the client as more of that frame.
 */
function stallOnFirstConnection(server: FakeServer, frame: Buffer): void {
  let stalled = false;
  server.onCommand = (command, peer) => {
    if (peer === server.peers[0] && !stalled) {
      stalled = true;
      peer.sendRaw(frame);
      return;
    }
    echo(command, peer);
  };
}

describe('closeOnTimeout (default)', () => {
  it('a timeout closes the socket, fails the other requests on it at once and the next request reconnects', async () => {
    const closes: ConnectionCloseEvent[] = [];
    const server = await startServer({ onCommand: () => undefined });
    const connection = connect({ address: server.address, onClose: (event) => closes.push(event) });
    const first = rejectionOf(connection.request({ code: 11 }, 150));
    const second = rejectionOf(connection.request({ code: 12 }, 60_000));
    await waitFor(() => server.received.length === 2);

    const timeout = await first;
    expect(timeout).toBeInstanceOf(RequestTimeoutError);
    const other = await second;
    // Failed by the close, long before its own 60 s timeout.
    expect(other).toBeInstanceOf(ConnectionClosedError);
    expect(other).toMatchObject({ retriable: true, permanent: false, address: server.address });
    expect((other as Error).cause).toBe(timeout);
    expect((other as Error).message).toContain(server.address);
    expect((other as Error).message).toContain('request code 11');
    expect(closes.map((event) => event.error)).toEqual([other]);
    expect(connection.inFlight).toBe(0);

    // The old peer's late answer goes to a closed socket; the new connection answers.
    const request = server.received[0] as RemotingCommand;
    server.peers[0]?.reply(request);
    server.onCommand = echo;
    await expect(connection.request({ code: 13 }, 2000)).resolves.toMatchObject({ code: 0 });
    expect(server.peers).toHaveLength(2);
  });

  it('a oneway not written within its timeout closes the socket too', async () => {
    const server = await startServer();
    const connection = connect({ address: server.address });
    await connection.request({ code: 34 }, 2000);
    server.lastPeer.socket.pause();
    const body = Buffer.alloc(1024 * 1024, 1);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 32 }, () => connection.oneway({ code: 15, body }, 300)),
    );
    const reasons = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    const timeouts = reasons.filter((reason) => reason instanceof RequestTimeoutError);
    const closed = reasons.filter((reason) => reason instanceof ConnectionClosedError);
    expect(timeouts.length).toBeGreaterThan(0);
    expect(closed.length).toBeGreaterThan(0);
    expect(timeouts.length + closed.length).toBe(reasons.length);
    for (const error of closed) expect(timeouts).toContain((error as Error).cause);
    expect(connection.inFlight).toBe(0);
    expect(connection.queuedBytes).toBe(0);

    await expect(connection.request({ code: 34 }, 2000)).resolves.toMatchObject({ code: 0 });
    expect(server.peers).toHaveLength(2);
  });

  it('after a peer stalls mid-frame, only the first request times out; the next ones get a new connection', async () => {
    const server = await startServer();
    stallOnFirstConnection(server, partialFrame(1_000_000, 10));
    const connection = connect({ address: server.address });
    const outcomes: Array<'ok' | string> = [];
    for (let i = 0; i < 8; i++) {
      try {
        await connection.request({ code: 10 }, 200);
        outcomes.push('ok');
      } catch (error) {
        outcomes.push((error as Error).name);
      }
    }
    expect(outcomes).toEqual(['RequestTimeoutError', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(server.peers).toHaveLength(2);
  });
});

describe('a frame that never completes', () => {
  it('fails the link after partialFrameTimeoutMs with how many of how many bytes arrived, then reconnects', async () => {
    const server = await startServer();
    stallOnFirstConnection(server, partialFrame(104, 14));
    // closeOnTimeout off and a long request timeout: only the stall watchdog can end this request.
    const connection = connect({
      address: server.address,
      closeOnTimeout: false,
      partialFrameTimeoutMs: 200,
    });
    const error = await rejectionOf(connection.request({ code: 10 }, 60_000));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error).toMatchObject({ retriable: true, address: server.address });
    expect((error as Error).message).toContain('14 of 104 bytes');
    expect((error as Error).message).toContain('200 ms');

    await expect(connection.request({ code: 10 }, 2000)).resolves.toMatchObject({ code: 0 });
    expect(server.peers).toHaveLength(2);
  });

  it('names a length prefix that stopped after two bytes', async () => {
    const server = await startServer();
    stallOnFirstConnection(server, Buffer.from([0, 0]));
    const connection = connect({
      address: server.address,
      closeOnTimeout: false,
      partialFrameTimeoutMs: 200,
    });
    const error = await rejectionOf(connection.request({ code: 10 }, 60_000));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).message).toContain('2 of the 4 bytes of a frame length prefix');
  });

  it('keeps a frame that arrives slowly but steadily, longer in total than the bound', async () => {
    const server = await startServer({
      onCommand: (command, peer) => {
        const frame = Buffer.from(encodeEcho(command));
        let sent = 0;
        const timer = setInterval(() => {
          if (sent >= frame.length || peer.socket.destroyed) {
            clearInterval(timer);
            return;
          }
          peer.sendRaw(frame.subarray(sent, sent + 4));
          sent += 4;
        }, 20);
        cleanups.push(async () => clearInterval(timer));
      },
    });
    const connection = connect({ address: server.address, partialFrameTimeoutMs: 500 });
    const response = await connection.request({ code: 10, body: Buffer.alloc(60, 1) }, 30_000);
    expect(response.body?.length).toBe(60);
    expect(server.peers).toHaveLength(1);
  });
});

/** A reply frame as FakePeer.reply would send it, for peers that trickle it out byte by byte. */
function encodeEcho(command: RemotingCommand): Buffer {
  const header = Buffer.from(
    JSON.stringify({ code: 0, language: 'JAVA', version: 479, opaque: command.opaque, flag: 1 }),
  );
  const body = command.body ?? Buffer.alloc(0);
  const frame = Buffer.alloc(8 + header.length + body.length);
  frame.writeInt32BE(4 + header.length + body.length, 0);
  frame.writeInt32BE(header.length, 4);
  header.copy(frame, 8);
  body.copy(frame, 8 + header.length);
  return frame;
}

describe('TLS on one side only', () => {
  const TLS_ALERT = Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46]);

  it('TLS-record bytes on a plaintext connection give a permanent error', async () => {
    const closes: ConnectionCloseEvent[] = [];
    const server = await startServer({ onCommand: (_command, peer) => peer.sendRaw(TLS_ALERT) });
    const connection = connect({ address: server.address, onClose: (event) => closes.push(event) });
    const error = await rejectionOf(connection.request({ code: 105 }, 5000));
    expect(error).toBeInstanceOf(ConnectError);
    expect(error).toMatchObject({ permanent: true, retriable: false, address: server.address });
    expect((error as Error).message).toBe(`the peer at ${server.address} speaks TLS; enable TLS`);
    expect(closes[0]?.error).toBe(error);
  });

  it('recognises a TLS handshake record that arrives one byte at a time', async () => {
    const address = await startRawServer((socket) => {
      socket.once('data', () => {
        const bytes = [0x16, 0x03, 0x01, 0x00, 0x05];
        bytes.forEach((byte, i) => {
          setTimeout(() => socket.write(Buffer.from([byte])), i * 20);
        });
      });
    });
    const connection = connect({ address });
    const error = await rejectionOf(connection.request({ code: 105 }, 5000));
    expect(error).toMatchObject({
      permanent: true,
      message: `the peer at ${address} speaks TLS; enable TLS`,
    });
  });

  it('a peer that closes without a single byte while a request is pending hints at TLS, retriable', async () => {
    const server = await startServer({ onCommand: (_command, peer) => peer.socket.end() });
    const connection = connect({ address: server.address });
    const error = await rejectionOf(connection.request({ code: 105 }, 5000));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error).toMatchObject({ retriable: true, permanent: false });
    expect((error as Error).message).toContain('without sending a single byte');
    expect((error as Error).message).toContain('a TLS-only server? check TLS settings');
  });

  it('no TLS hint once the peer has answered before closing', async () => {
    const server = await startServer({
      onCommand: (command, peer) => {
        if (command.code === 2) peer.socket.end();
        else echo(command, peer);
      },
    });
    const connection = connect({ address: server.address });
    await connection.request({ code: 1 }, 2000);
    const error = await rejectionOf(connection.request({ code: 2 }, 5000));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).message).not.toContain('TLS');
  });

  describe('with TLS on our side', () => {
    let dir = '';
    let key = '';
    let cert = '';

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'rocketmq-tls-'));
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
        ],
        { stdio: 'pipe' },
      );
      key = readFileSync(join(dir, 'key.pem'), 'utf8');
      cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    });

    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('a peer that answers the handshake in plaintext gives a permanent ConnectError', async () => {
      const address = await startRawServer((socket) => {
        socket.once('data', () => socket.write(Buffer.from([0, 0, 0, 20, 0, 0, 0, 16])));
      });
      const connection = connect({ address, tls: { rejectUnauthorized: false } });
      const error = await rejectionOf(connection.request({ code: 105 }, 5000));
      expect(error).toBeInstanceOf(ConnectError);
      expect(error).toMatchObject({ permanent: true, retriable: false });
      expect((error as Error).message).toContain(`the peer at ${address} does not speak TLS`);
      expect((error as Error).message).toContain('ERR_SSL_WRONG_VERSION_NUMBER');
    });

    it('a plaintext server that drops the handshake gives a retriable ConnectError with a hint', async () => {
      // Our fake server cannot frame a ClientHello and closes, as a broker without TLS does.
      const server = await startServer();
      const connection = connect({ address: server.address, tls: { rejectUnauthorized: false } });
      const error = await rejectionOf(connection.request({ code: 105 }, 5000));
      expect(error).toBeInstanceOf(ConnectError);
      expect(error).toMatchObject({ permanent: false, retriable: true });
      expect((error as Error).message).toContain('a plaintext server? check TLS settings');
    });

    it('still connects to a TLS peer (no false alarm)', async () => {
      const server = await startServer({ tls: { key, cert } });
      const connection = connect({ address: server.address, tls: { rejectUnauthorized: false } });
      await expect(connection.request({ code: 105 }, 3000)).resolves.toMatchObject({ code: 0 });
    });
  });
});

describe('send queue bound', () => {
  it('refuses requests past maxQueuedBytes with a retriable SendQueueFullError and recovers', async () => {
    const maxQueuedBytes = 1024 * 1024;
    const server = await startServer();
    const connection = connect({ address: server.address, maxQueuedBytes });
    await connection.request({ code: 34 }, 2000);
    server.lastPeer.socket.pause();
    const body = Buffer.alloc(256 * 1024, 2);
    const sends: Array<Promise<void>> = [];
    let refusal: unknown;
    let maxSeenBytes = 0;
    // The kernel takes a few MiB before anything stays queued with us; 256 oneways is 64 MiB.
    for (let i = 0; i < 256 && refusal === undefined; i++) {
      const send = connection.oneway({ code: 15, body }, 30_000);
      send.catch((error: unknown) => {
        refusal ??= error;
      });
      sends.push(send);
      maxSeenBytes = Math.max(maxSeenBytes, connection.queuedBytes);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(refusal).toBeInstanceOf(SendQueueFullError);
    expect(refusal).toMatchObject({ retriable: true, maxQueuedBytes, address: server.address });
    expect(maxSeenBytes).toBeLessThanOrEqual(maxQueuedBytes);

    server.lastPeer.socket.resume();
    const outcomes = await Promise.allSettled(sends.slice(0, -1));
    expect(outcomes.every((outcome) => outcome.status === 'fulfilled')).toBe(true);
    await waitFor(() => connection.queuedBytes === 0, 5000);
    await expect(connection.request({ code: 34, body }, 5000)).resolves.toMatchObject({ code: 0 });
  });

  it('accepts a single frame larger than maxQueuedBytes when nothing is queued', async () => {
    const server = await startServer();
    const connection = connect({ address: server.address, maxQueuedBytes: 1024 });
    const response = await connection.request({ code: 10, body: Buffer.alloc(64 * 1024, 3) }, 5000);
    expect(response.body?.length).toBe(64 * 1024);
  });
});
