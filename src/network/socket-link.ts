/**
 * One TCP (or TLS) socket and its framing: connect with a timeout, split and decode incoming frames,
 * write frames in order while honouring backpressure, and tear down with one typed error. A link is
 * used once: after it closes, {@link Connection} opens a new one on demand.
 */
import net from 'node:net';
import tls from 'node:tls';
import { decodeFrame, FrameSplitter, type RemotingCommand } from '../protocol/remoting-command.js';
import type { Logger } from '../util/logger.js';
import { ConnectError, ConnectionClosedError, type NetworkError } from './errors.js';

/** How long {@link SocketLink.end} waits for the peer to close before destroying the socket. */
const END_GRACE_MS = 1000;
/** Idle time before the first TCP keep-alive probe. */
const KEEP_ALIVE_INITIAL_DELAY_MS = 30_000;

/**
 * What a link needs to know; every option is already normalised by its owner.
 *
 * @example
 * ```ts
 * new SocketLink({ ...options, onOpen, onFrame: (link, command) => route(command), onClose });
 * ```
 */
export interface SocketLinkOptions {
  address: string;
  host: string;
  port: number;
  tls: false | tls.ConnectionOptions;
  connectTimeoutMs: number;
  maxFrameBytes: number;
  logger: Logger;
  /** The socket is connected (TLS: handshake done) and queued frames are being written. */
  onOpen(link: SocketLink): void;
  /** A decoded frame arrived. Must not throw. */
  onFrame(link: SocketLink, command: RemotingCommand): void;
  /** The link is finished; `error` is a ConnectError if it never opened, else a ConnectionClosedError. */
  onClose(link: SocketLink, error: NetworkError): void;
}

/**
 * Called exactly once per written frame: without error once the socket took it, or with the reason it
 * was not. Not called at all for a frame cancelled before it reached the socket.
 *
 * @example
 * ```ts
 * const callback: WriteCallback = (error) => (error ? reject(error) : resolve());
 * ```
 */
export type WriteCallback = (error: NetworkError | undefined) => void;

/**
 * Handle of a queued frame.
 *
 * @example
 * ```ts
 * const handle = link.write(frame, callback);
 * setTimeout(() => handle.cancel(), timeoutMs);
 * ```
 */
export interface WriteHandle {
  /** Drops the frame if it has not been handed to the socket yet; its callback is then never called. */
  cancel(): void;
}

interface QueuedWrite {
  frame: Buffer;
  callback: WriteCallback;
  done: boolean;
}

/**
 * The life of a link: it only moves forwards.
 *
 * @example
 * ```ts
 * if (link.state === 'closed') link = openNewLink();
 * ```
 */
export type SocketLinkState = 'connecting' | 'open' | 'closed';

/**
 * One socket with framing and an ordered, backpressure-aware write queue.
 *
 * @example
 * ```ts
 * const link = new SocketLink({ address: '127.0.0.1:9876', host: '127.0.0.1', port: 9876, tls: false,
 *   connectTimeoutMs: 3000, maxFrameBytes: MAX_FRAME_LENGTH, logger,
 *   onOpen: () => {}, onFrame: (_, command) => handle(command), onClose: (_, error) => failAll(error) });
 * link.write(encodeFrame(command), (error) => { if (error) log.warn({ err: error }, 'not written') });
 * ```
 */
export class SocketLink {
  private readonly options: SocketLinkOptions;
  private readonly socket: net.Socket;
  private readonly splitter: FrameSplitter;
  private readonly queue: QueuedWrite[] = [];
  /** Frames handed to the socket whose write callback has not run yet. */
  private readonly inSocket = new Set<QueuedWrite>();
  private currentState: SocketLinkState = 'connecting';
  private waitingForDrain = false;
  private connectTimer: NodeJS.Timeout | undefined;
  private endTimer: NodeJS.Timeout | undefined;
  private lastSocketError: Error | undefined;
  /** The error in-flight work failed with when the link closed. */
  private error: NetworkError | undefined;
  /** Resolves once the socket has emitted 'close'. */
  readonly closed: Promise<void>;

  /** Starts connecting at once. */
  constructor(options: SocketLinkOptions) {
    this.options = options;
    this.splitter = new FrameSplitter(options.maxFrameBytes);
    const { host, port } = options;
    this.socket =
      options.tls === false ? net.connect({ host, port }) : tls.connect({ ...options.tls, host, port });
    this.closed = new Promise((resolve) =>
      this.socket.once('close', () => {
        clearTimeout(this.endTimer);
        resolve();
      }),
    );
    this.socket.on('error', (error) => {
      this.lastSocketError = error;
      options.logger.debug({ address: options.address, err: error }, 'socket error');
    });
    this.socket.on('close', () => this.finish(undefined, undefined));
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('drain', () => {
      this.waitingForDrain = false;
      this.flush();
    });
    this.socket.once(options.tls === false ? 'connect' : 'secureConnect', () => this.onConnected());
    this.connectTimer = setTimeout(() => {
      this.destroy(new Error(`connect timed out after ${options.connectTimeoutMs} ms`));
    }, options.connectTimeoutMs);
  }

  get state(): SocketLinkState {
    return this.currentState;
  }

  /** Queues a frame; frames are written in order once the link is open. */
  write(frame: Buffer, callback: WriteCallback): WriteHandle {
    const item: QueuedWrite = { frame, callback, done: false };
    const handle: WriteHandle = {
      cancel: () => {
        if (item.done || this.inSocket.has(item)) return;
        item.done = true;
        const index = this.queue.indexOf(item);
        if (index >= 0) this.queue.splice(index, 1);
      },
    };
    if (this.currentState === 'closed') {
      item.done = true;
      queueMicrotask(() => callback(this.closedError()));
      return handle;
    }
    this.queue.push(item);
    this.flush();
    return handle;
  }

  /** Tears the socket down now. `cause` becomes the `cause` of the error in-flight work fails with. */
  destroy(cause?: Error): void {
    this.finish(undefined, cause);
    this.socket.destroy();
  }

  /** Fails in-flight work with `error`, half-closes the socket and resolves once it is closed. */
  end(error: NetworkError): Promise<void> {
    const wasOpen = this.currentState === 'open';
    this.finish(error, undefined);
    if (wasOpen && !this.socket.destroyed) {
      this.socket.end();
      this.endTimer = setTimeout(() => this.socket.destroy(), END_GRACE_MS);
    } else {
      this.socket.destroy();
    }
    return this.closed;
  }

  private onConnected(): void {
    clearTimeout(this.connectTimer);
    if (this.currentState !== 'connecting') return;
    this.socket.setNoDelay(true);
    this.socket.setKeepAlive(true, KEEP_ALIVE_INITIAL_DELAY_MS);
    this.currentState = 'open';
    this.options.onOpen(this);
    this.flush();
  }

  private onData(chunk: Buffer): void {
    if (this.currentState !== 'open') return;
    let frames: Buffer[];
    try {
      frames = this.splitter.push(chunk);
    } catch (error) {
      this.onMalformed(error);
      return;
    }
    for (const frame of frames) {
      let command: RemotingCommand;
      try {
        command = decodeFrame(frame);
      } catch (error) {
        this.onMalformed(error);
        return;
      }
      this.options.onFrame(this, command);
      if (this.currentState !== 'open') return;
    }
  }

  private onMalformed(error: unknown): void {
    const cause = error instanceof Error ? error : new Error(String(error));
    this.options.logger.warn(
      { address: this.options.address, err: cause },
      'malformed frame, closing connection',
    );
    this.destroy(cause);
  }

  private flush(): void {
    while (this.currentState === 'open' && !this.waitingForDrain) {
      const item = this.queue.shift();
      if (item === undefined) return;
      if (item.done) continue;
      this.inSocket.add(item);
      const accepted = this.socket.write(item.frame, (error) => {
        this.inSocket.delete(item);
        this.settle(
          item,
          error
            ? new ConnectionClosedError(`write to ${this.options.address} failed`, {
                address: this.options.address,
                cause: error,
              })
            : undefined,
        );
      });
      if (!accepted) this.waitingForDrain = true;
    }
  }

  private settle(item: QueuedWrite, error: NetworkError | undefined): void {
    if (item.done) return;
    item.done = true;
    try {
      item.callback(error);
    } catch (callbackError) {
      this.options.logger.error(
        { address: this.options.address, err: callbackError },
        'write callback threw',
      );
    }
  }

  /** Moves to 'closed' once: fails queued and unconfirmed writes, then tells the owner. */
  private finish(error: NetworkError | undefined, cause: Error | undefined): void {
    if (this.currentState === 'closed') return;
    const wasOpen = this.currentState === 'open';
    this.currentState = 'closed';
    clearTimeout(this.connectTimer);
    const closeError = error ?? this.buildCloseError(wasOpen, cause ?? this.lastSocketError);
    this.error = closeError;
    const unsettled = [...this.inSocket, ...this.queue.splice(0)];
    this.inSocket.clear();
    for (const item of unsettled) this.settle(item, closeError);
    this.options.onClose(this, closeError);
  }

  private closedError(): NetworkError {
    return (
      this.error ??
      new ConnectionClosedError(`connection to ${this.options.address} is closed`, {
        address: this.options.address,
      })
    );
  }

  private buildCloseError(wasOpen: boolean, cause: Error | undefined): NetworkError {
    const { address } = this.options;
    const reason = cause === undefined ? '' : ` (${describe(cause)})`;
    return wasOpen
      ? new ConnectionClosedError(`connection to ${address} closed${reason}`, { address, cause })
      : new ConnectError(`could not connect to ${address}${reason}`, { address, cause });
  }
}

/** A short reason for error messages; the full cause travels as `cause` (loggers print it). */
function describe(cause: Error): string {
  const code = (cause as NodeJS.ErrnoException).code;
  if (typeof code === 'string') return code;
  return cause.name === 'Error' ? cause.message : cause.name;
}
