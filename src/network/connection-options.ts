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
 *
 * @example
 * ```ts
 * new Connection({ address, connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS * 2 });
 * ```
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
/**
 * Requests plus oneways outstanding per connection when `maxInFlight` is not given.
 *
 * @example
 * ```ts
 * new Connection({ address, maxInFlight: DEFAULT_MAX_IN_FLIGHT / 4 });
 * ```
 */
export const DEFAULT_MAX_IN_FLIGHT = 4096;
/**
 * How long a oneway frame may wait to be written (connect plus socket backpressure) by default: 30 s.
 *
 * @example
 * ```ts
 * await connection.oneway({ code: 15, extFields }, DEFAULT_ONEWAY_TIMEOUT_MS);
 * ```
 */
export const DEFAULT_ONEWAY_TIMEOUT_MS = 30_000;

/**
 * A request to send: our language, version and a fresh opaque are added.
 *
 * @example
 * ```ts
 * const request: RemotingRequest = { code: 105, extFields: toExtFields({ topic: 'TopicTest' }) };
 * ```
 */
export interface RemotingRequest {
  code: number;
  extFields?: Record<string, string>;
  body?: Buffer;
}

/**
 * What a {@link RequestHandler} answers to a broker-initiated request.
 *
 * @example
 * ```ts
 * const response: RemotingResponse = { code: 0, body: Buffer.from(JSON.stringify(runningInfo)) };
 * ```
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
 *
 * @example
 * ```ts
 * const handler: RequestHandler = (request) =>
 *   request.code === 40 ? (rebalanceSoon(), undefined) : undefined;
 * ```
 */
export type RequestHandler = (
  request: RemotingCommand,
  connection: Connection,
) => Promise<RemotingResponse | undefined> | RemotingResponse | undefined;

/**
 * Told when a socket of the connection closed; the next request reconnects.
 *
 * @example
 * ```ts
 * new Connection({ address, onClose: (event: ConnectionCloseEvent) => log.info({ err: event.error }, 'closed') });
 * ```
 */
export interface ConnectionCloseEvent {
  address: string;
  /** ConnectError when the socket never opened, ConnectionClosedError otherwise. */
  error: NetworkError;
}

/**
 * Options of a {@link Connection}; all but `address` have defaults.
 *
 * @example
 * ```ts
 * const options: ConnectionOptions = { address: 'broker-a:10911', tls: { rejectUnauthorized: false },
 *   requestHandler, beforeSend: (command) => signRequest(command, credentials) };
 * ```
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
