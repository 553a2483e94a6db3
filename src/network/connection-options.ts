/**
 * The public vocabulary of a {@link Connection}: what goes in and out, its options and their defaults.
 */
import type tls from 'node:tls';
import type { RemotingCommand } from '../protocol/remoting-command.js';
import type { Logger } from '../util/logger.js';
import type { Connection } from './connection.js';
import type { NetworkError } from './errors.js';

/**
 * Connect (and TLS handshake) timeout when none is given: 3000 ms, as Java's
 * `com.rocketmq.remoting.client.connect.timeout`.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
/**
 * Requests plus oneways outstanding per connection when `maxInFlight` is not given.
 */
export const DEFAULT_MAX_IN_FLIGHT = 4096;
/**
 * How long a oneway frame may wait to be written (connect plus socket backpressure) by default: 30 s.
 */
export const DEFAULT_ONEWAY_TIMEOUT_MS = 30_000;

/**
 * How long a partly received frame may go without a single new byte before the connection is given up:
 * 10 s. A peer that sent a length prefix and then stalls would otherwise hold every later response
 * behind that frame. 10 s is well above a healthy broker's longest stop-the-world pause (hundreds of ms,
 * a few seconds in a bad full GC) and below the 15 s a broker holds a long-polling pull (30 s pull timeout), so a
 * stalled frame is noticed before the requests waiting behind it time out on their own.
 */
export const DEFAULT_PARTIAL_FRAME_TIMEOUT_MS = 10_000;

/**
 * Bytes of request frames (and replies) queued on a connection but not yet taken by the socket, beyond
 * which a new request fails fast with SendQueueFullError: 64 MiB, four frames of the 16 MiB maximum.
 * A request is always accepted while nothing is queued, however large. At 1 Gbit/s 64 MiB is half a
 * second of sending; more queued means the peer or the network is the bottleneck, and queueing further
 * only grows memory while the requests at the back run into their timeouts.
 */
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * A request to send: our language, version and a fresh opaque are added.
 */
export interface RemotingRequest {
  code: number;
  extFields?: Record<string, string>;
  body?: Buffer;
  /**
   * The peer may hold this request without a word until shortly before its timeout (a long poll such as
   * POP_MESSAGE), so its timeout alone says nothing about the connection: it closes the socket only on
   * the evidence that any timeout does (see `closeOnTimeout`). Not sent.
   */
  longPoll?: boolean;
  /**
   * A faster encoding of exactly this request (same code, extFields and body) as one whole frame, length
   * prefix included, for the opaque and flag the connection chose. Used instead of the generic encoding
   * unless a `beforeSend` hook must see the command (request signing), which then reads `extFields`.
   */
  encodeFrame?: (opaque: number, flag: number) => Buffer;
}

/**
 * What a {@link RequestHandler} answers to a broker-initiated request.
 */
export interface RemotingResponse {
  code: number;
  remark?: string;
  extFields?: Record<string, string>;
  body?: Buffer;
}

/**
 * Handles a request the peer sent us. Return a response to answer it, or `undefined` for "not supported"
 * (answered with code 3). The return value of a oneway request is ignored. A throw is answered with code 1.
 */
export type RequestHandler = (
  request: RemotingCommand,
  connection: Connection,
) => Promise<RemotingResponse | undefined> | RemotingResponse | undefined;

/**
 * Told when a socket of the connection closed; the next request reconnects.
 */
export interface ConnectionCloseEvent {
  address: string;
  /** ConnectError when the socket never opened, ConnectionClosedError otherwise. */
  error: NetworkError;
}

/**
 * Request timeouts in a row, with no response between them, after which a connection is taken for stuck
 * even when bytes kept arriving or the requests were long polls (`closeOnTimeout`).
 */
export const MAX_QUIET_TIMEOUTS = 3;

/**
 * Options of a {@link Connection}; all but `address` have defaults.
 */
export interface ConnectionOptions {
  /** `host:port`; IPv6 as `[::1]:10911` or `::1:10911` (split at the last colon). */
  address: string;
  /** TLS on (`true`) or TLS with these options. @default false */
  tls?: boolean | tls.ConnectionOptions;
  /** @default 3000 */
  connectTimeoutMs?: number;
  /** Requests beyond it fail fast with InFlightLimitError. @default 4096 */
  maxInFlight?: number;
  /**
   * Close the socket a request (or a oneway's write) timed out on when the connection looks stuck,
   * failing the other requests on it with a retriable ConnectionClosedError, so the next request
   * reconnects. A stuck connection (a half-open TCP connection after a network change, a peer stuck
   * mid-frame, a load balancer that dropped the flow) would time out every later request too. It looks
   * stuck when, at the timeout: a oneway's frame was still not written; a frame from the peer stopped
   * half-way; not one byte arrived since the request was sent (except for a `longPoll` request: a
   * broker holding a poll is silent too); or {@link MAX_QUIET_TIMEOUTS} requests in a row timed out
   * with no response between them. Otherwise the timeout fails only its own request (a busy broker
   * answering late), and its late answer is dropped. Java's client closes on the timeout of a
   * synchronous call (`clientCloseSocketIfTimeout`) and keeps the channel for an asynchronous one such
   * as a pull or a pop.
   * @default true
   */
  closeOnTimeout?: boolean;
  /** Give up a link whose partly received frame got no byte for this long. @default 10000 */
  partialFrameTimeoutMs?: number;
  /** Unsent bytes beyond which requests fail fast with SendQueueFullError. @default 64 MiB */
  maxQueuedBytes?: number;
  /** Largest accepted length prefix of an incoming frame. @default MAX_FRAME_LENGTH */
  maxFrameBytes?: number;
  /** Answers broker-initiated requests; without it every non-oneway request gets code 3. */
  requestHandler?: RequestHandler;
  /** Transforms each outgoing request (not replies) just before encoding, e.g. ACL signing. */
  beforeSend?: (command: RemotingCommand) => RemotingCommand;
  /** Called whenever a socket closes or fails to connect. Must not throw. */
  onClose?: (event: ConnectionCloseEvent) => void;
  /** @default componentLogger('network.connection') */
  logger?: Logger;
}
