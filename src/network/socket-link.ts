/**
 * One TCP (or TLS) socket and its framing: connect with a timeout, split and decode incoming frames,
 * write frames in order while honouring backpressure, pause reading on request, give up on a frame that
 * stops arriving half-way, spot a TLS peer behind a plaintext link, and tear down with one typed error.
 * A link is used once: after it closes, {@link Connection} opens a new one on demand.
 */
import net from 'node:net';
import tls from 'node:tls';
import { decodeFrame, FrameSplitter, type RemotingCommand } from '../protocol/remoting-command.js';
import type { Logger } from '../util/logger.js';
import { ConnectError, ConnectionClosedError, type NetworkError } from './errors.js';
import { linkCloseError } from './link-close-error.js';
import { peerLineKey, peerLinesOf } from './peer-lines.js';
import { StallWatchdog } from './stall-watchdog.js';
import { looksLikeTlsRecord } from './tls-mismatch.js';
import { withServerNameFor } from './tls-options.js';

/** How long {@link SocketLink.end} waits for the peer to close before destroying the socket. */
const END_GRACE_MS = 1000;
/**
 * A plaintext link's read buffer: one read takes at most this much (libuv's own suggestion for a read),
 * a PULL response of 32 messages of 1 KiB is about 40 KiB.
 */
const READ_BUFFER_BYTES = 64 * 1024;
/** Idle time before the first TCP keep-alive probe. */
const KEEP_ALIVE_INITIAL_DELAY_MS = 30_000;

/**
 * What a link needs to know; every option is already normalised by its owner.
 */
export interface SocketLinkOptions {
  address: string;
  host: string;
  port: number;
  tls: false | tls.ConnectionOptions;
  connectTimeoutMs: number;
  maxFrameBytes: number;
  /** How long a partly received frame may go without a new byte before the link is given up. */
  partialFrameTimeoutMs: number;
  /** Where the lines go; those a peer can repeat are throttled per address (see peer-lines.ts). */
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
 */
export type WriteCallback = (error: NetworkError | undefined) => void;

/**
 * Handle of a queued frame.
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
 */
export type SocketLinkState = 'connecting' | 'open' | 'closed';

/**
 * One socket with framing and an ordered, backpressure-aware write queue.
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
  /** Bytes of frames queued or handed to the socket whose write has not completed. */
  private unsentBytes = 0;
  private bytesReceived = 0;
  private framesWritten = 0;
  /** The first bytes of a plaintext link, kept until three are known to rule out a TLS peer. */
  private sniffed: Buffer | undefined;
  private readPaused = false;
  private delivering = false;
  /** The socket is corked until the loop's next check phase (see {@link SocketLink.flush}). */
  private corked = false;
  private readonly stallWatchdog: StallWatchdog;
  /** The error in-flight work failed with when the link closed. */
  private error: NetworkError | undefined;
  /** Resolves once the socket has emitted 'close'. */
  readonly closed: Promise<void>;

  /** Starts connecting at once. */
  constructor(options: SocketLinkOptions) {
    this.options = options;
    this.splitter = new FrameSplitter(options.maxFrameBytes);
    this.sniffed = options.tls === false ? Buffer.alloc(0) : undefined;
    this.stallWatchdog = new StallWatchdog(options.partialFrameTimeoutMs, () => this.onFrameStalled());
    const { host, port } = options;
    this.socket =
      options.tls === false
        ? // Every read lands in this link's one read buffer: the splitter copies each frame out once, and
          // no buffer is allocated per read (each was a new ArrayBuffer for V8 to account and collect).
          net.connect({
            host,
            port,
            onread: {
              buffer: Buffer.allocUnsafeSlow(READ_BUFFER_BYTES),
              callback: (bytes: number, buffer: Uint8Array) => {
                this.onData(buffer as Buffer, bytes);
                return !this.readPaused;
              },
            },
          })
        : tls.connect({ ...withServerNameFor(options.tls, host), host, port });
    this.closed = new Promise((resolve) =>
      this.socket.once('close', () => {
        clearTimeout(this.endTimer);
        resolve();
      }),
    );
    this.socket.on('error', (error) => {
      this.lastSocketError = error;
      this.peerLine('debug', 'socket error', { err: error });
    });
    this.socket.on('close', () => this.finish(undefined, undefined, true));
    // TLS sockets take no `onread`: their chunks come as 'data' events.
    if (options.tls !== false) this.socket.on('data', (chunk: Buffer) => this.onData(chunk, chunk.length));
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

  /** Bytes of frames written with {@link SocketLink.write} that the socket has not taken yet. */
  get queuedBytes(): number {
    return this.unsentBytes;
  }

  /** Bytes read from the socket so far: any change shows that the peer and our reading still work. */
  get receivedBytes(): number {
    return this.bytesReceived;
  }

  /** Bytes of a frame begun and not yet complete (0 between frames). */
  get partialFrameBytes(): number {
    return this.splitter.pendingBytes;
  }

  /** True while reading is paused with {@link SocketLink.pauseReading}. */
  get isReadingPaused(): boolean {
    return this.readPaused;
  }

  /**
   * Stops delivering frames and reading the socket, so TCP pushes back on the peer. Frames already
   * received stay buffered and are delivered after {@link SocketLink.resumeReading}.
   */
  pauseReading(): void {
    if (this.readPaused) return;
    this.readPaused = true;
    this.socket.pause();
    // While we do not read, the peer cannot send: that is no stall.
    this.stallWatchdog.stop();
  }

  /** Delivers the buffered frames and reads the socket again. */
  resumeReading(): void {
    if (!this.readPaused) return;
    this.readPaused = false;
    this.stallWatchdog.touch();
    this.deliverFrames();
    if (!this.readPaused && this.currentState === 'open') this.socket.resume();
  }

  /** Queues a frame; frames are written in order once the link is open. */
  write(frame: Buffer, callback: WriteCallback): WriteHandle {
    const item: QueuedWrite = { frame, callback, done: false };
    const handle: WriteHandle = {
      cancel: () => {
        if (item.done || this.inSocket.has(item)) return;
        item.done = true;
        this.unsentBytes -= item.frame.length;
        const index = this.queue.indexOf(item);
        if (index >= 0) this.queue.splice(index, 1);
      },
    };
    if (this.currentState === 'closed') {
      item.done = true;
      queueMicrotask(() => callback(this.closedError()));
      return handle;
    }
    this.unsentBytes += frame.length;
    this.queue.push(item);
    this.flush();
    return handle;
  }

  /** Tears the socket down now. `cause` becomes the `cause` of the error in-flight work fails with. */
  destroy(cause?: Error): void {
    this.finish(undefined, cause, false);
    this.socket.destroy();
  }

  /** Tears the socket down now and fails in-flight work with exactly `error`. */
  abort(error: NetworkError): void {
    this.finish(error, undefined, false);
    this.socket.destroy();
  }

  /** Fails in-flight work with `error`, half-closes the socket and resolves once it is closed. */
  end(error: NetworkError): Promise<void> {
    const wasOpen = this.currentState === 'open';
    this.finish(error, undefined, false);
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

  /** Takes `chunk[0, end)`; a plaintext link's chunk is its read buffer, reused by the next read. */
  private onData(chunk: Buffer, end: number): void {
    if (this.currentState !== 'open') return;
    this.bytesReceived += end;
    this.stallWatchdog.touch();
    if (this.sniffed !== undefined && this.sniffForTls(chunk.subarray(0, end))) return;
    this.splitter.append(chunk, end);
    this.deliverFrames();
  }

  /** Hands complete frames to the owner until none is left, reading pauses or the link closes. */
  private deliverFrames(): void {
    if (this.delivering) return;
    this.delivering = true;
    try {
      while (this.currentState === 'open' && !this.readPaused) {
        let frame: Buffer | undefined;
        let command: RemotingCommand;
        try {
          frame = this.splitter.next();
          if (frame === undefined) break;
          command = decodeFrame(frame);
        } catch (error) {
          this.onMalformed(error);
          return;
        }
        this.options.onFrame(this, command);
      }
    } finally {
      this.delivering = false;
    }
    this.stallWatchdog.arm(
      this.currentState === 'open' && !this.readPaused && this.splitter.pendingBytes > 0,
    );
  }

  /**
   * Checks the first bytes of a plaintext link: a TLS record there means the peer only speaks TLS.
   * Returns true when the link was failed.
   */
  private sniffForTls(chunk: Buffer): boolean {
    const known = this.sniffed ?? Buffer.alloc(0);
    // Three bytes decide; never copy more of a large chunk than that.
    const head = known.length === 0 ? chunk : Buffer.concat([known, chunk.subarray(0, 3)]);
    const verdict = looksLikeTlsRecord(head);
    this.sniffed = verdict === undefined ? Buffer.from(head) : undefined;
    if (verdict !== true) return false;
    const { address } = this.options;
    this.peerLine('warn', 'the peer answered with TLS on a plaintext connection', {});
    this.abort(
      new ConnectError(`the peer at ${address} speaks TLS; enable TLS`, { address, permanent: true }),
    );
    return true;
  }

  /** A frame stopped arriving half-way: give the link up, saying how much of it came. */
  private onFrameStalled(): void {
    if (this.currentState !== 'open' || this.readPaused || this.splitter.pendingBytes === 0) return;
    const { address, partialFrameTimeoutMs } = this.options;
    const received = this.splitter.pendingBytes;
    const expected = this.splitter.expectedBytes;
    const what =
      expected === undefined
        ? `${received} of the 4 bytes of a frame length prefix`
        : `${received} of ${expected} bytes of a frame`;
    this.peerLine('warn', 'frame stalled, closing connection', {
      receivedBytes: received,
      expectedBytes: expected,
      partialFrameTimeoutMs,
    });
    this.abort(
      new ConnectionClosedError(
        `connection to ${address} closed: the peer sent ${what} and then nothing for ${partialFrameTimeoutMs} ms`,
        { address },
      ),
    );
  }

  private onMalformed(error: unknown): void {
    const cause = error instanceof Error ? error : new Error(String(error));
    this.peerLine('warn', 'malformed frame, closing connection', { err: cause });
    this.destroy(cause);
  }

  /** Logs a line the peer can make repeat at every reconnect, throttled per address and line. */
  private peerLine(level: 'debug' | 'warn', message: string, fields: Record<string, unknown>): void {
    const { address, logger } = this.options;
    peerLinesOf(logger)[level](peerLineKey(message, address), { address, ...fields }, message);
  }

  /**
   * Hands queued frames to the socket. The first frame corks the socket and the event loop's next check
   * phase (setImmediate) uncorks it, so the frames written while one turn of the loop handles its reads
   * (the next pulls of every queue whose response came in, a heartbeat) leave in one writev: each socket
   * write costs a syscall and a wake-up of the peer's thread, the largest single self time of a drain
   * (bench/results/profiles). A 200,000-message drain made 7,921 write calls with a write each and
   * 3,847 with this (strace -c). No frame waits longer than the current turn of the loop.
   */
  private flush(): void {
    while (this.currentState === 'open' && !this.waitingForDrain) {
      const item = this.queue.shift();
      if (item === undefined) return;
      if (item.done) continue;
      if (!this.corked) {
        this.corked = true;
        this.socket.cork();
        setImmediate(this.uncork);
      }
      this.inSocket.add(item);
      this.framesWritten++;
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

  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };

  private settle(item: QueuedWrite, error: NetworkError | undefined): void {
    if (item.done) return;
    item.done = true;
    this.unsentBytes -= item.frame.length;
    try {
      item.callback(error);
    } catch (callbackError) {
      this.options.logger.error(
        { address: this.options.address, err: callbackError },
        'write callback threw',
      );
    }
  }

  /**
   * Moves to 'closed' once: fails queued and unconfirmed writes, then tells the owner. `byPeer` is set
   * when the socket closed on its own (the peer closed, reset, or the network failed).
   */
  private finish(error: NetworkError | undefined, cause: Error | undefined, byPeer: boolean): void {
    if (this.currentState === 'closed') return;
    const wasOpen = this.currentState === 'open';
    this.currentState = 'closed';
    clearTimeout(this.connectTimer);
    this.stallWatchdog.stop();
    const closeError =
      error ??
      linkCloseError({
        address: this.options.address,
        tls: this.options.tls !== false,
        wasOpen,
        cause: cause ?? this.lastSocketError,
        closedByPeer: byPeer,
        silentPeer: this.bytesReceived === 0 && this.framesWritten > 0,
      });
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
}
