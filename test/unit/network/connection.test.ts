import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Connection, type ConnectionCloseEvent } from '../../../src/network/connection.js';
import {
  ConnectError,
  ConnectionClosedError,
  InFlightLimitError,
  RequestTimeoutError,
} from '../../../src/network/errors.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import {
  encodeFrame,
  FLAG_ONEWAY,
  FLAG_RESPONSE,
  type RemotingCommand,
  SerializeType,
} from '../../../src/protocol/remoting-command.js';
import { expectQuietFor } from '../../support/quiet-window.js';
import { FakeServer, rejectionOf, unusedPort, waitFor } from './fake-server.js';

/** A server behaviour that never answers. */
function ignore(): void {
  // Deliberately silent.
}

const cleanups: Array<() => Promise<void>> = [];

async function startServer(options: Parameters<typeof FakeServer.start>[0] = {}): Promise<FakeServer> {
  const server = await FakeServer.start(options);
  cleanups.push(() => server.close());
  return server;
}

function connect(
  options: Omit<ConstructorParameters<typeof Connection>[0], 'address'> & { address: string },
) {
  const connection = new Connection(options);
  cleanups.push(() => connection.close());
  return connection;
}

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function brokerRequest(code: number, opaque: number, flag = 0): RemotingCommand {
  return { code, language: 'JAVA', version: 479, opaque, flag, extFields: { consumerGroup: 'G' } };
}

describe('Connection request/response', () => {
  it('matches 200 concurrent requests answered out of order, over one shared connect', async () => {
    const held: RemotingCommand[] = [];
    const server = await startServer({
      onCommand: (command, peer) => {
        held.push(command);
        if (held.length === 200) {
          for (const request of [...held].reverse()) {
            peer.reply(request, { body: Buffer.from(`answer-${request.extFields.i}`) });
          }
        }
      },
    });
    const connection = connect({ address: server.address });
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        connection.request({ code: 10, extFields: { i: String(i) } }, 5000),
      ),
    );
    responses.forEach((response, i) => {
      expect(response.body?.toString()).toBe(`answer-${i}`);
      expect(response.flag & FLAG_RESPONSE).toBe(FLAG_RESPONSE);
    });
    expect(server.peers).toHaveLength(1);
    expect(new Set(held.map((command) => command.opaque)).size).toBe(200);
    expect(held[0]).toMatchObject({ language: 'JAVA', version: 401, flag: 0 });
    expect(connection.inFlight).toBe(0);
    expect(connection.isOpen).toBe(true);
  });

  it('resolves with non-zero response codes too', async () => {
    const server = await startServer({
      onCommand: (command, peer) => peer.reply(command, { code: 17, remark: 'no topic' }),
    });
    const connection = connect({ address: server.address });
    const response = await connection.request({ code: 105 }, 2000);
    expect(response).toMatchObject({ code: 17, remark: 'no topic' });
  });

  it('with closeOnTimeout: false, times out a request, keeps the socket and drops the late response', async () => {
    const server = await startServer({ onCommand: ignore });
    const connection = connect({ address: server.address, closeOnTimeout: false });
    const started = Date.now();
    const error = await rejectionOf(connection.request({ code: 11 }, 150));
    const elapsedMs = Date.now() - started;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    const timeout = error as RequestTimeoutError;
    expect(timeout).toMatchObject({ timeoutMs: 150, code: 11, address: server.address, retriable: true });
    expect(elapsedMs).toBeGreaterThanOrEqual(140);
    expect(elapsedMs).toBeLessThan(1000);
    expect(connection.inFlight).toBe(0);
    const request = server.received[0];
    expect(request?.opaque).toBe(timeout.opaque);
    if (request === undefined) throw new Error('server got no request');

    server.lastPeer.reply(request);
    server.onCommand = (command, peer) => peer.reply(command, { body: Buffer.from('fresh') });
    const next = await connection.request({ code: 11 }, 2000);
    expect(next.body?.toString()).toBe('fresh');
    expect(connection.isOpen).toBe(true);
    expect(server.peers).toHaveLength(1);
  });

  it('round-trips a 10 MiB body split across many chunks', async () => {
    const server = await startServer();
    const connection = connect({ address: server.address });
    const body = Buffer.alloc(10 * 1024 * 1024);
    for (let i = 0; i < body.length; i += 4) body.writeUInt32BE(i, i);
    const response = await connection.request({ code: 10, body }, 10_000);
    expect(response.body?.length).toBe(body.length);
    expect(response.body?.equals(body)).toBe(true);
  });

  it('keeps every response body intact after later reads (a plaintext link reuses one read buffer)', async () => {
    const server = await startServer();
    const connection = connect({ address: server.address });
    // Bodies of 1 to 40 KiB, each filled with its own byte: many responses per read, and responses
    // split across reads, all held until the last one arrived.
    const bodies = Array.from({ length: 60 }, (_, i) => Buffer.alloc(1024 * (1 + ((i * 7) % 40)), i));
    const responses = await Promise.all(
      bodies.map((body, i) => connection.request({ code: 10 + (i % 3), body }, 10_000)),
    );
    responses.forEach((response, i) => {
      expect(response.body?.equals(bodies[i] as Buffer), `response ${i}`).toBe(true);
    });
  });

  it('decodes responses with a binary (ROCKETMQ) header', async () => {
    const server = await startServer({
      onCommand: (command, peer) =>
        peer.reply(command, {
          remark: 'binary',
          body: Buffer.from('b'),
          serializeType: SerializeType.ROCKETMQ,
        }),
    });
    const connection = connect({ address: server.address });
    const response = await connection.request({ code: 105 }, 2000);
    expect(response).toMatchObject({
      code: 0,
      remark: 'binary',
      serializeType: SerializeType.ROCKETMQ,
      extFields: { echoedCode: '105' },
    });
    expect(response.body?.toString()).toBe('b');
  });

  it('applies beforeSend to requests and oneways', async () => {
    const server = await startServer();
    const connection = connect({
      address: server.address,
      beforeSend: (command) => ({ ...command, extFields: { ...command.extFields, Signature: 'sig' } }),
    });
    await connection.request({ code: 34, extFields: { a: '1' } }, 2000);
    await connection.oneway({ code: 15 });
    await waitFor(() => server.received.length === 2);
    expect(server.received.map((command) => command.extFields)).toEqual([
      { a: '1', Signature: 'sig' },
      { Signature: 'sig' },
    ]);
  });

  it("sends a request's own frame encoding with the chosen opaque, unless beforeSend must see the command", async () => {
    const server = await startServer();
    const encoded: Array<{ opaque: number; flag: number }> = [];
    const request = {
      code: 11,
      extFields: { queueOffset: '7' },
      encodeFrame: (opaque: number, flag: number) => {
        encoded.push({ opaque, flag });
        return encodeFrame({
          code: 11,
          language: 'JAVA',
          version: 401,
          opaque,
          flag,
          extFields: { queueOffset: '7', from: 'encodeFrame' },
          serializeType: SerializeType.ROCKETMQ,
        });
      },
    };
    const plain = connect({ address: server.address });
    const response = await plain.request(request, 2000);
    expect(encoded).toEqual([{ opaque: response.opaque, flag: 0 }]);
    expect(server.received[0]).toMatchObject({
      opaque: response.opaque,
      serializeType: SerializeType.ROCKETMQ,
      extFields: { queueOffset: '7', from: 'encodeFrame' },
    });
    const signing = connect({
      address: server.address,
      beforeSend: (command) => ({ ...command, extFields: { ...command.extFields, Signature: 'sig' } }),
    });
    await signing.request(request, 2000);
    expect(encoded).toHaveLength(1);
    expect(server.received[1]?.extFields).toEqual({ queueOffset: '7', Signature: 'sig' });
  });
});

describe('Connection oneway', () => {
  it('sends flag 2 and resolves without a reply', async () => {
    const server = await startServer();
    const connection = connect({ address: server.address });
    await connection.oneway({ code: 15, extFields: { commitOffset: '5' } });
    await waitFor(() => server.received.length === 1);
    expect(server.received[0]).toMatchObject({
      code: 15,
      flag: FLAG_ONEWAY,
      extFields: { commitOffset: '5' },
    });
    expect(connection.inFlight).toBe(0);
  });
});

describe('Connection backpressure', () => {
  it('holds frames while the socket is full and drops queued oneways that time out (closeOnTimeout: false)', async () => {
    const server = await startServer();
    const connection = connect({
      address: server.address,
      closeOnTimeout: false,
      maxQueuedBytes: 128 * 1024 * 1024,
    });
    await connection.request({ code: 34 }, 2000);
    server.lastPeer.socket.pause();
    const body = Buffer.alloc(1024 * 1024, 1);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 64 }, () => connection.oneway({ code: 15, body }, 300)),
    );
    const rejected = outcomes.filter((outcome) => outcome.status === 'rejected');
    const written = outcomes.length - rejected.length;
    expect(rejected.length).toBeGreaterThan(0);
    for (const outcome of rejected) expect(outcome.reason).toBeInstanceOf(RequestTimeoutError);
    expect(connection.inFlight).toBe(0);

    server.lastPeer.socket.resume();
    const after = await connection.request({ code: 34, body: Buffer.from('after') }, 10_000);
    expect(after.body?.toString()).toBe('after');
    const delivered = server.received.filter((command) => command.code === 15).length;
    expect(delivered).toBeGreaterThanOrEqual(written);
    expect(delivered).toBeLessThan(64);
  });
});

describe('Connection broker-initiated requests', () => {
  async function setup(handler?: ConstructorParameters<typeof Connection>[0]['requestHandler']) {
    const replies: RemotingCommand[] = [];
    const server = await startServer({
      onCommand: (command, peer) => {
        if (command.flag & FLAG_RESPONSE) replies.push(command);
        else peer.reply(command);
      },
    });
    const connection = connect({ address: server.address, requestHandler: handler });
    await connection.request({ code: 34 }, 2000);
    return { server, connection, replies, peer: server.lastPeer };
  }

  it('answers with the same opaque, flag 1 and our language and version', async () => {
    const seen: Array<{ request: RemotingCommand; connection: Connection }> = [];
    const { connection, replies, peer } = await setup(async (request, origin) => {
      seen.push({ request, connection: origin });
      return { code: 0, remark: 'ok', extFields: { k: 'v' }, body: Buffer.from('{"x":1}') };
    });
    peer.send(brokerRequest(307, 777));
    await waitFor(() => replies.length === 1);
    expect(replies[0]).toMatchObject({
      code: 0,
      opaque: 777,
      flag: FLAG_RESPONSE,
      language: 'JAVA',
      version: 401,
      remark: 'ok',
      extFields: { k: 'v' },
    });
    expect(replies[0]?.body?.toString()).toBe('{"x":1}');
    expect(seen[0]?.request).toMatchObject({ code: 307, opaque: 777, extFields: { consumerGroup: 'G' } });
    expect(seen[0]?.connection).toBe(connection);
  });

  it('never answers a oneway request', async () => {
    const calls: number[] = [];
    const { replies, peer } = await setup((request) => {
      calls.push(request.code);
      return { code: 0 };
    });
    peer.send(brokerRequest(40, 1, FLAG_ONEWAY));
    peer.send(brokerRequest(99, 2));
    // The reply to 99 is the marker: both requests take the same path in arrival order, so a reply
    // to the oneway 40 would have been written, and have arrived, before it.
    await waitFor(() => replies.length === 1);
    expect(calls).toEqual([40, 99]);
    expect(replies.map((reply) => reply.opaque)).toEqual([2]);
  });

  it('answers 3 REQUEST_CODE_NOT_SUPPORTED without a handler or when it returns undefined', async () => {
    const first = await setup();
    first.peer.send(brokerRequest(12345, 5));
    await waitFor(() => first.replies.length === 1);
    expect(first.replies[0]).toMatchObject({
      code: 3,
      opaque: 5,
      remark: ' request type 12345 not supported',
    });

    const second = await setup(() => undefined);
    second.peer.send(brokerRequest(221, 6));
    await waitFor(() => second.replies.length === 1);
    expect(second.replies[0]).toMatchObject({
      code: 3,
      opaque: 6,
      remark: ' request type 221 not supported',
    });
  });

  it('answers 1 SYSTEM_ERROR with the message when the handler throws or rejects', async () => {
    const { replies, peer } = await setup((request) => {
      if (request.code === 307) throw new Error('boom');
      return Promise.reject(new Error('async boom'));
    });
    peer.send(brokerRequest(307, 8));
    peer.send(brokerRequest(309, 9));
    await waitFor(() => replies.length === 2);
    const byOpaque = new Map(replies.map((reply) => [reply.opaque, reply]));
    expect(byOpaque.get(8)).toMatchObject({ code: 1, remark: 'boom', flag: FLAG_RESPONSE });
    expect(byOpaque.get(9)).toMatchObject({ code: 1, remark: 'async boom', flag: FLAG_RESPONSE });
  });
});

describe('Connection failures and reconnects', () => {
  it.each([
    ['a length prefix above the cap', Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0])],
    ['a negative length prefix', Buffer.from([0xff, 0xff, 0xff, 0xfe])],
    ['a header that is not JSON', frameWithJsonHeader('{"code":0,')],
    ['a header length beyond the frame', Buffer.from([0, 0, 0, 8, 0, 0, 0, 200, 1, 2, 3, 4])],
  ])(
    'closes on %s, rejects in-flight with ConnectionClosedError(cause ProtocolError), then reconnects',
    async (_, garbage) => {
      const closes: ConnectionCloseEvent[] = [];
      const server = await startServer({ onCommand: (_command, peer) => peer.sendRaw(garbage) });
      const connection = connect({ address: server.address, onClose: (event) => closes.push(event) });
      const error = await rejectionOf(connection.request({ code: 10 }, 2000));
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect((error as ConnectionClosedError).cause).toBeInstanceOf(ProtocolError);
      expect((error as ConnectionClosedError).retriable).toBe(true);
      expect(connection.isOpen).toBe(false);
      expect(closes).toHaveLength(1);
      expect(closes[0]?.error).toBe(error);

      server.onCommand = (command, peer) => peer.reply(command, { body: Buffer.from('again') });
      const response = await connection.request({ code: 10 }, 2000);
      expect(response.body?.toString()).toBe('again');
      expect(server.peers).toHaveLength(2);
    },
  );

  it('reconnects on the next request after the server closed the socket, not before', async () => {
    const server = await startServer();
    const connection = connect({ address: server.address });
    await connection.request({ code: 34 }, 2000);
    server.lastPeer.socket.destroy();
    await waitFor(() => !connection.isOpen);
    // Not reconnecting has no event of its own: watch the server's connections for a while.
    await expectQuietFor('connections to the server', 200, () => server.peers.length);
    expect(server.peers).toHaveLength(1);

    await connection.request({ code: 34 }, 2000);
    expect(server.peers).toHaveLength(2);
    expect(connection.isOpen).toBe(true);
  });

  it('rejects a request in flight when the server closes the socket', async () => {
    const server = await startServer({ onCommand: (_command, peer) => peer.socket.end() });
    const connection = connect({ address: server.address });
    const error = await rejectionOf(connection.request({ code: 11 }, 2000));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error).toMatchObject({ address: server.address });
  });

  it('fails fast with ConnectError when the connection is refused', async () => {
    const address = `127.0.0.1:${await unusedPort()}`;
    const connection = connect({ address });
    const started = Date.now();
    const [first, second] = await Promise.all([
      rejectionOf(connection.request({ code: 105 }, 5000)),
      rejectionOf(connection.oneway({ code: 15 })),
    ]);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(first).toBeInstanceOf(ConnectError);
    expect(second).toBeInstanceOf(ConnectError);
    expect(first).toMatchObject({ address, retriable: true });
    expect((first as ConnectError).cause).toMatchObject({ code: 'ECONNREFUSED' });
    expect(connection.inFlight).toBe(0);
  });

  it('fails with ConnectError after connectTimeoutMs when the TLS handshake never completes', async () => {
    const silent = net.createServer(ignore);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets: net.Socket[] = [];
    silent.on('connection', (socket) => sockets.push(socket));
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const info = silent.address() as net.AddressInfo;
    const connection = connect({ address: `127.0.0.1:${info.port}`, tls: true, connectTimeoutMs: 200 });
    const started = Date.now();
    const error = await rejectionOf(connection.request({ code: 105 }, 5000));
    expect(error).toBeInstanceOf(ConnectError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('rejects requests beyond maxInFlight with InFlightLimitError', async () => {
    const held: RemotingCommand[] = [];
    const server = await startServer({ onCommand: (command) => held.push(command) });
    const connection = connect({ address: server.address, maxInFlight: 2 });
    const first = connection.request({ code: 1 }, 2000);
    const second = connection.request({ code: 2 }, 2000);
    const error = await rejectionOf(connection.request({ code: 3 }, 2000));
    expect(error).toBeInstanceOf(InFlightLimitError);
    expect(error).toMatchObject({ maxInFlight: 2, retriable: true, address: server.address });
    expect(await rejectionOf(connection.oneway({ code: 4 }))).toBeInstanceOf(InFlightLimitError);

    await waitFor(() => held.length === 2);
    for (const request of held) server.lastPeer.reply(request);
    await Promise.all([first, second]);
    server.onCommand = (command, peer) => peer.reply(command);
    await expect(connection.request({ code: 5 }, 2000)).resolves.toMatchObject({ code: 0 });
  });

  it('close() rejects pending requests, resolves, and refuses later calls', async () => {
    const server = await startServer({ onCommand: ignore });
    const connection = connect({ address: server.address });
    const pending = rejectionOf(connection.request({ code: 11 }, 5000));
    await waitFor(() => server.received.length === 1);
    await connection.close();
    const error = await pending;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(connection.isOpen).toBe(false);
    expect(connection.isClosed).toBe(true);
    expect(connection.inFlight).toBe(0);
    expect(await rejectionOf(connection.request({ code: 11 }, 1000))).toBeInstanceOf(ConnectionClosedError);
    await waitFor(() => server.lastPeer.socket.destroyed || server.lastPeer.socket.readableEnded);
  });

  it('close() while connecting rejects the queued requests', async () => {
    const server = await startServer();
    const connection = connect({ address: server.address });
    const pending = rejectionOf(connection.request({ code: 11 }, 5000));
    await connection.close();
    expect(await pending).toBeInstanceOf(ConnectionClosedError);
  });

  it('rejects a frame too large to encode with ProtocolError, without connecting', async () => {
    const server = await startServer();
    const connection = connect({ address: server.address });
    const error = await rejectionOf(
      connection.request({ code: 10, body: Buffer.alloc(16 * 1024 * 1024) }, 1000),
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect(server.peers).toHaveLength(0);
  });
});

describe('Connection over TLS', () => {
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

  it('round-trips requests with a self-signed certificate and rejectUnauthorized: false', async () => {
    const server = await startServer({ tls: { key, cert } });
    const connection = connect({ address: server.address, tls: { rejectUnauthorized: false } });
    const responses = await Promise.all([
      connection.request({ code: 105, body: Buffer.from('over tls') }, 3000),
      connection.request({ code: 105, body: Buffer.alloc(256 * 1024, 7) }, 3000),
    ]);
    expect(responses[0]?.body?.toString()).toBe('over tls');
    expect(responses[1]?.body?.length).toBe(256 * 1024);
    expect(server.peers).toHaveLength(1);
  });

  it('fails with ConnectError when the certificate is not trusted', async () => {
    const server = await startServer({ tls: { key, cert } });
    const connection = connect({ address: server.address, tls: true });
    const error = await rejectionOf(connection.request({ code: 105 }, 3000));
    expect(error).toBeInstanceOf(ConnectError);
  });
});

function frameWithJsonHeader(header: string): Buffer {
  const bytes = Buffer.from(header, 'utf8');
  const frame = Buffer.alloc(8 + bytes.length);
  frame.writeInt32BE(4 + bytes.length, 0);
  frame.writeInt32BE(bytes.length, 4);
  bytes.copy(frame, 8);
  return frame;
}
