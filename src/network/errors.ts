/**
 * Errors of the network layer. Each carries the peer `address` and a `retriable` flag; callers branch on
 * the flag (and on `instanceof` for the few that need a different reaction), never on messages.
 */
import { RocketMQError } from '../errors.js';
import { anyInCauseChain } from '../util/cause-chain.js';

/**
 * Options every network error accepts.
 */
export interface NetworkErrorOptions {
  /** The peer, `host:port`. */
  address: string;
  cause?: unknown;
  retriable?: boolean;
  /** A refusal that will not go away without a configuration change (e.g. a TLS mismatch); never retriable. */
  permanent?: boolean;
}

/**
 * Base of every error the network layer produces. Not retriable unless a subclass says so.
 */
export class NetworkError extends RocketMQError {
  /** The peer, `host:port`. */
  readonly address: string;

  constructor(message: string, options: NetworkErrorOptions) {
    super(message, {
      cause: options.cause,
      retriable: options.retriable ?? false,
      permanent: options.permanent ?? false,
    });
    this.address = options.address;
  }
}

/**
 * The connection could not be established: refused, unreachable, TLS handshake failed or timed out.
 * Retriable, unless `permanent` (TLS on one side only: the peer speaks TLS and we do not, or the other
 * way round), which no retry can fix.
 */
export class ConnectError extends NetworkError {
  constructor(message: string, options: Omit<NetworkErrorOptions, 'retriable'>) {
    super(message, { ...options, retriable: true });
  }
}

/**
 * No response arrived within the request's timeout. Retriable. A response that arrives later is dropped.
 */
export class RequestTimeoutError extends NetworkError {
  /** The timeout that elapsed. */
  readonly timeoutMs: number;
  /** The request's opaque. */
  readonly opaque: number;
  /** The request code. */
  readonly code: number;

  constructor(options: { address: string; timeoutMs: number; opaque: number; code: number }) {
    super(`request code ${options.code} (opaque ${options.opaque}) timed out after ${options.timeoutMs} ms`, {
      address: options.address,
      retriable: true,
    });
    this.timeoutMs = options.timeoutMs;
    this.opaque = options.opaque;
    this.code = options.code;
  }
}

/**
 * The connection closed while the request was in flight, or before it could be written. Retriable: the
 * next request reconnects. When the cause was a malformed incoming frame, `cause` is that ProtocolError.
 */
export class ConnectionClosedError extends NetworkError {
  /**
   * The peer took our request and closed the plaintext connection without sending a single byte: what a
   * TLS-only server does to a plaintext client (see {@link isSilentPeerClose}).
   */
  readonly peerSilent: boolean;

  constructor(message: string, options: Omit<NetworkErrorOptions, 'retriable'> & { peerSilent?: boolean }) {
    super(message, { ...options, retriable: true });
    this.peerSilent = options.peerSilent ?? false;
  }
}

/**
 * True when `error` (or an error in its cause chain) is a connection the peer closed without answering
 * a single byte (retriable: a server may die at that moment; but when it happens at every attempt, the
 * server most likely speaks TLS and we do not).
 */
export function isSilentPeerClose(error: unknown): boolean {
  return anyInCauseChain(
    error,
    (candidate) => candidate instanceof ConnectionClosedError && candidate.peerSilent,
  );
}

/**
 * The connection already has `maxInFlight` requests outstanding; this one was not sent. Retriable once
 * some of them have finished.
 */
export class InFlightLimitError extends NetworkError {
  /** The cap that was reached. */
  readonly maxInFlight: number;

  constructor(options: { address: string; maxInFlight: number }) {
    super(`${options.maxInFlight} requests already in flight to ${options.address}`, {
      address: options.address,
      retriable: true,
    });
    this.maxInFlight = options.maxInFlight;
  }
}

/**
 * The bytes already queued on the socket and not yet written, plus this frame, would exceed
 * `maxQueuedBytes`; this request was not sent. Retriable once the socket has drained: the peer (or the
 * network) is slower than we produce, and queueing more would only grow memory.
 */
export class SendQueueFullError extends NetworkError {
  /** Bytes queued unsent when the request was refused. */
  readonly queuedBytes: number;
  /** The cap that would have been exceeded. */
  readonly maxQueuedBytes: number;

  constructor(options: { address: string; queuedBytes: number; frameBytes: number; maxQueuedBytes: number }) {
    super(
      `${options.queuedBytes} bytes already queued unsent to ${options.address}; a frame of ` +
        `${options.frameBytes} bytes would exceed the ${options.maxQueuedBytes}-byte send queue`,
      { address: options.address, retriable: true },
    );
    this.queuedBytes = options.queuedBytes;
    this.maxQueuedBytes = options.maxQueuedBytes;
  }
}
