/**
 * A small fake remoting server for network-layer unit tests: real sockets on 127.0.0.1, our own framing.
 * By default it answers every request with code 0, the same opaque and the request's body.
 */
import net from 'node:net';
import tls from 'node:tls';
import { onTestFinished } from 'vitest';
import {
  decodeFrame,
  encodeFrame,
  FLAG_RESPONSE,
  FrameSplitter,
  isOneway,
  isResponse,
  type RemotingCommand,
  type SerializeType,
} from '../../../src/protocol/remoting-command.js';
import { waitFor as sharedWaitFor } from '../../support/wait-for.js';

/** How often {@link waitFor} checks its predicate. */
const PREDICATE_POLL_MS = 5;

/** One accepted client socket. */
export class FakePeer {
  readonly received: RemotingCommand[] = [];
  readonly protocolErrors: unknown[] = [];
  private readonly splitter = new FrameSplitter();

  constructor(
    readonly socket: net.Socket,
    onCommand: (command: RemotingCommand, peer: FakePeer) => void,
  ) {
    socket.on('error', () => {
      // The client may reset the connection at any time; that is what many tests do on purpose.
      this.socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = this.splitter.push(chunk);
      } catch (error) {
        this.protocolErrors.push(error);
        socket.destroy();
        return;
      }
      for (const frame of frames) {
        const command = decodeFrame(frame);
        this.received.push(command);
        onCommand(command, this);
      }
    });
  }

  send(command: RemotingCommand): void {
    if (!this.socket.destroyed) this.socket.write(encodeFrame(command));
  }

  sendRaw(bytes: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  /** Answers `request` with the given code and body. */
  reply(
    request: RemotingCommand,
    response: { code?: number; body?: Buffer; remark?: string; serializeType?: SerializeType } = {},
  ): void {
    this.send({
      code: response.code ?? 0,
      language: 'JAVA',
      version: 479,
      opaque: request.opaque,
      flag: FLAG_RESPONSE,
      remark: response.remark,
      extFields: { echoedCode: String(request.code) },
      body: response.body ?? request.body,
      serializeType: response.serializeType,
    });
  }
}

export interface FakeServerOptions {
  /** Serve TLS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  /** What to do with each incoming frame; default: echo requests (not oneways, not responses). */
  onCommand?: (command: RemotingCommand, peer: FakePeer) => void;
}

/** Echoes requests; ignores oneways and responses. */
export function echo(command: RemotingCommand, peer: FakePeer): void {
  if (!isResponse(command) && !isOneway(command)) peer.reply(command);
}

/** The fake server. Start with {@link FakeServer.start}; close in `afterEach`. */
export class FakeServer {
  readonly peers: FakePeer[] = [];
  onCommand: (command: RemotingCommand, peer: FakePeer) => void;

  private constructor(
    private readonly server: net.Server,
    readonly address: string,
    onCommand: ((command: RemotingCommand, peer: FakePeer) => void) | undefined,
  ) {
    this.onCommand = onCommand ?? echo;
  }

  static async start(options: FakeServerOptions = {}): Promise<FakeServer> {
    let fake: FakeServer | undefined;
    const accept = (socket: net.Socket): void => {
      if (fake === undefined) {
        socket.destroy();
        return;
      }
      const self = fake;
      self.peers.push(new FakePeer(socket, (command, peer) => self.onCommand(command, peer)));
    };
    const server = options.tls ? tls.createServer({ ...options.tls }, accept) : net.createServer(accept);
    server.on('tlsClientError', () => {
      // A client that gives up mid-handshake is expected in the connect-timeout test.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const info = server.address();
    if (info === null || typeof info === 'string') throw new Error('server has no TCP address');
    fake = new FakeServer(server, `127.0.0.1:${info.port}`, options.onCommand);
    return fake;
  }

  /** All commands received on every connection, in arrival order per connection. */
  get received(): RemotingCommand[] {
    return this.peers.flatMap((peer) => peer.received);
  }

  get lastPeer(): FakePeer {
    const peer = this.peers.at(-1);
    if (peer === undefined) throw new Error('no client connected yet');
    return peer;
  }

  async close(): Promise<void> {
    for (const peer of this.peers) peer.socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Polls `predicate` until it holds; throws after `timeoutMs`. The shared wait (test/support/wait-for.ts),
 * polled every {@link PREDICATE_POLL_MS}: socket events here come within milliseconds.
 */
export async function waitFor(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
  await sharedWaitFor('a condition', timeoutMs, () => (predicate() ? true : undefined), {
    intervalMs: PREDICATE_POLL_MS,
  });
}

/**
 * A raw TCP server on 127.0.0.1 for peers that do not speak our framing at all: `onSocket` gets every
 * connection it accepts, whose errors are ignored (the client resets connections on purpose in these
 * tests). Its address; closed with the test, the sockets it accepted destroyed first.
 */
export async function startRawServer(onSocket: (socket: net.Socket) => void): Promise<string> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {
      // The client resets the connection on purpose; that is the point.
    });
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** A port on 127.0.0.1 with nothing listening on it. */
export async function unusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const info = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (info === null || typeof info === 'string') throw new Error('server has no TCP address');
  return info.port;
}

/** Awaits `promise` and returns its rejection reason; fails if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}
