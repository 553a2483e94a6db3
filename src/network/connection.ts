/**
 * A remoting connection to one name server or broker: request/response correlation by opaque, per-request
 * timeouts (closing the socket a request timed out on when it looks stuck), oneway sends, answers to
 * broker-initiated requests under a memory budget, lazy connect and reconnect on demand. It knows frames,
 * not request codes.
 */
import type tls from 'node:tls';
import { RocketMQError } from '../errors.js';
import {
  CLIENT_LANGUAGE,
  CLIENT_VERSION,
  encodeFrame,
  FLAG_ONEWAY,
  isResponse,
  MAX_FRAME_LENGTH,
  type RemotingCommand,
} from '../protocol/remoting-command.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { parseAddress } from './address.js';
import {
  type ConnectionCloseEvent,
  type ConnectionOptions,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_QUEUED_BYTES,
  DEFAULT_ONEWAY_TIMEOUT_MS,
  DEFAULT_PARTIAL_FRAME_TIMEOUT_MS,
  MAX_QUIET_TIMEOUTS,
  type RemotingRequest,
  type RequestHandler,
} from './connection-options.js';
import {
  ConnectionClosedError,
  InFlightLimitError,
  type NetworkError,
  RequestTimeoutError,
  SendQueueFullError,
} from './errors.js';
import { InboundBudget } from './inbound-budget.js';
import { serveInboundRequest } from './inbound-request.js';
import { linkCloseError } from './link-close-error.js';
import { processOpaqueCounter } from './opaque.js';
import { flushPeerLines, peerLineKey, peerLinesOf } from './peer-lines.js';
import { SocketLink, type WriteHandle } from './socket-link.js';

export type {
  ConnectionCloseEvent,
  ConnectionOptions,
  RemotingRequest,
  RemotingResponse,
  RequestHandler,
} from './connection-options.js';
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_QUEUED_BYTES,
  DEFAULT_ONEWAY_TIMEOUT_MS,
  DEFAULT_PARTIAL_FRAME_TIMEOUT_MS,
  MAX_QUIET_TIMEOUTS,
} from './connection-options.js';

/**
 * The logger of connections given none: one for all of them, so that the lines a peer can repeat are
 * throttled per address across the connections a pool replaces (see peer-lines.ts).
 */
let defaultLogger: Logger | undefined;

/** Node's setTimeout fires at once for delays above 2^31 - 1 ms, so longer timeouts are clamped to it. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

interface PendingRequest {
  opaque: number;
  code: number;
  link: SocketLink;
  longPoll: boolean;
  /** The link's received bytes when the request was sent: unchanged at its timeout, the peer was silent. */
  receivedBytesAtSend: number;
  /** The socket took the frame. */
  written: boolean;
  timer: NodeJS.Timeout;
  write: WriteHandle | undefined;
  resolve: (response: RemotingCommand) => void;
  reject: (error: NetworkError) => void;
}

/**
 * One remoting connection. Connects on the first request (concurrent first requests share the connect),
 * reconnects on the next request after the socket closed, and never reconnects on its own while idle.
 * A request that times out closes its socket when the socket looks stuck (`closeOnTimeout` says when;
 * never with `closeOnTimeout: false`); otherwise only that request fails. Emits no events; failures
 * surface as typed rejections of the calls that they affect.
 */
export class Connection {
  readonly address: string;
  private readonly host: string;
  private readonly port: number;
  private readonly tls: false | tls.ConnectionOptions;
  private readonly connectTimeoutMs: number;
  private readonly maxInFlight: number;
  private readonly maxFrameBytes: number;
  private readonly closeOnTimeout: boolean;
  private readonly partialFrameTimeoutMs: number;
  private readonly maxQueuedBytes: number;
  private readonly requestHandler: RequestHandler | undefined;
  private readonly beforeSend: ((command: RemotingCommand) => RemotingCommand) | undefined;
  private readonly onCloseCallback: ((event: ConnectionCloseEvent) => void) | undefined;
  private readonly logger: Logger;
  private link: SocketLink | undefined;
  /** The inbound-request budget of {@link Connection.link}. */
  private budget: InboundBudget | undefined;
  private readonly pending = new Map<number, PendingRequest>();
  /** Request timeouts in a row on a link with no response between them. */
  private readonly quietTimeouts = new WeakMap<SocketLink, number>();
  private onewaysInFlight = 0;
  private closedByUser = false;

  constructor(options: ConnectionOptions) {
    const { host, port } = parseAddress(options.address);
    this.address = options.address;
    this.host = host;
    this.port = port;
    this.tls = options.tls === true ? {} : options.tls || false;
    this.connectTimeoutMs = positiveOr(options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS);
    this.maxInFlight = positiveOr(options.maxInFlight, DEFAULT_MAX_IN_FLIGHT);
    this.maxFrameBytes = Math.min(positiveOr(options.maxFrameBytes, MAX_FRAME_LENGTH), MAX_FRAME_LENGTH);
    this.closeOnTimeout = options.closeOnTimeout ?? true;
    this.partialFrameTimeoutMs = Math.min(
      positiveOr(options.partialFrameTimeoutMs, DEFAULT_PARTIAL_FRAME_TIMEOUT_MS),
      MAX_TIMER_DELAY_MS,
    );
    this.maxQueuedBytes = positiveOr(options.maxQueuedBytes, DEFAULT_MAX_QUEUED_BYTES);
    this.requestHandler = options.requestHandler;
    this.beforeSend = options.beforeSend;
    this.onCloseCallback = options.onClose;
    defaultLogger ??= componentLogger('network.connection');
    this.logger = options.logger ?? defaultLogger;
  }

  /** True while a socket is connected (TLS: handshake done). */
  get isOpen(): boolean {
    return this.link?.state === 'open';
  }

  /** True once {@link Connection.close} was called; a closed connection rejects every call. */
  get isClosed(): boolean {
    return this.closedByUser;
  }

  /** Requests awaiting their response plus oneways awaiting their write. */
  get inFlight(): number {
    return this.pending.size + this.onewaysInFlight;
  }

  /** Bytes of requests and replies queued on the current socket and not yet taken by it. */
  get queuedBytes(): number {
    return this.link?.queuedBytes ?? 0;
  }

  /** Peer-initiated requests on the current socket being answered or whose reply is not yet written. */
  get inboundPending(): number {
    return this.budget?.requests ?? 0;
  }

  /** Bytes of replies to peer-initiated requests queued on the current socket and not yet written. */
  get queuedReplyBytes(): number {
    return this.budget?.replyBytes ?? 0;
  }

  /** True while reading the current socket is paused because too many inbound requests are pending. */
  get isReadingPaused(): boolean {
    return this.link?.isReadingPaused ?? false;
  }

  /**
   * Sends a request and resolves with the response, whatever its code. Rejects with
   * RequestTimeoutError, ConnectError, ConnectionClosedError, InFlightLimitError, SendQueueFullError, or
   * the ProtocolError of an unencodable request. With `closeOnTimeout`, a timeout on a socket that looks
   * stuck also fails the other requests on it with a ConnectionClosedError whose `cause` is the
   * RequestTimeoutError; a long poll's timeout alone does not (see {@link RemotingRequest.longPoll}).
   */
  request(request: RemotingRequest, timeoutMs: number): Promise<RemotingCommand> {
    return new Promise<RemotingCommand>((resolve, reject) => {
      const refusal = this.refusal(timeoutMs);
      if (refusal) return reject(refusal);
      const opaque = processOpaqueCounter.next((candidate) => this.pending.has(candidate));
      let frame: Buffer;
      try {
        frame = this.encodeRequest(request, opaque, 0);
      } catch (error) {
        return reject(error);
      }
      const link = this.currentLink();
      const full = this.queueRefusal(link, frame.length);
      if (full) return reject(full);
      const entry: PendingRequest = {
        opaque,
        code: request.code,
        link,
        longPoll: request.longPoll === true,
        receivedBytesAtSend: link.receivedBytes,
        written: false,
        timer: setTimeout(() => this.onTimeout(entry, timeoutMs), Math.min(timeoutMs, MAX_TIMER_DELAY_MS)),
        write: undefined,
        resolve,
        reject,
      };
      this.pending.set(opaque, entry);
      entry.write = link.write(frame, (error) => {
        if (error) this.settle(entry, error);
        else entry.written = true;
      });
    });
  }

  /**
   * Sends a request with the oneway flag and resolves once the socket took it; no response is awaited.
   * Rejects with ConnectError, ConnectionClosedError, InFlightLimitError, SendQueueFullError, or
   * RequestTimeoutError when the frame could not be written within `timeoutMs` (which, with
   * `closeOnTimeout`, also closes the socket).
   */
  oneway(request: RemotingRequest, timeoutMs: number = DEFAULT_ONEWAY_TIMEOUT_MS): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const refusal = this.refusal(timeoutMs);
      if (refusal) return reject(refusal);
      const opaque = processOpaqueCounter.next((candidate) => this.pending.has(candidate));
      let frame: Buffer;
      try {
        frame = this.encodeRequest(request, opaque, FLAG_ONEWAY);
      } catch (error) {
        return reject(error);
      }
      const link = this.currentLink();
      const full = this.queueRefusal(link, frame.length);
      if (full) return reject(full);
      this.onewaysInFlight++;
      let settled = false;
      const finish = (error: NetworkError | undefined): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.onewaysInFlight--;
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(
        () => {
          handle.cancel();
          const timeout = new RequestTimeoutError({
            address: this.address,
            timeoutMs,
            opaque,
            code: request.code,
          });
          finish(timeout);
          this.closeAfterTimeout(link, timeout, 'its frame was not written');
        },
        Math.min(timeoutMs, MAX_TIMER_DELAY_MS),
      );
      const handle = link.write(frame, finish);
    });
  }

  /** Writes what the peer lines of this connection's logger held back (at shutdown: nothing is lost). */
  flushLogs(): void {
    flushPeerLines(this.logger);
  }

  /** Rejects every in-flight call with ConnectionClosedError, ends the socket and resolves once it closed. */
  async close(): Promise<void> {
    this.closedByUser = true;
    const error = new ConnectionClosedError(`connection to ${this.address} closed by the client`, {
      address: this.address,
    });
    for (const entry of [...this.pending.values()]) this.settle(entry, error);
    const link = this.link;
    this.link = undefined;
    this.budget = undefined;
    if (link) await link.end(error);
  }

  private refusal(timeoutMs: number): RocketMQError | undefined {
    if (this.closedByUser) {
      return new ConnectionClosedError(`connection to ${this.address} is closed`, { address: this.address });
    }
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
      return new RocketMQError(`timeoutMs must be a positive number, got ${timeoutMs}`);
    }
    if (this.inFlight >= this.maxInFlight) {
      return new InFlightLimitError({ address: this.address, maxInFlight: this.maxInFlight });
    }
    return undefined;
  }

  /** A SendQueueFullError when `frameBytes` more would overfill the link's send queue. */
  private queueRefusal(link: SocketLink, frameBytes: number): SendQueueFullError | undefined {
    const queuedBytes = link.queuedBytes;
    // An empty queue takes any frame, so a single large request is never refused.
    if (queuedBytes === 0 || queuedBytes + frameBytes <= this.maxQueuedBytes) return undefined;
    return new SendQueueFullError({
      address: this.address,
      queuedBytes,
      frameBytes,
      maxQueuedBytes: this.maxQueuedBytes,
    });
  }

  private encodeRequest(request: RemotingRequest, opaque: number, flag: number): Buffer {
    if (request.encodeFrame !== undefined && this.beforeSend === undefined) {
      return request.encodeFrame(opaque, flag);
    }
    let command: RemotingCommand = {
      code: request.code,
      language: CLIENT_LANGUAGE,
      version: CLIENT_VERSION,
      opaque,
      flag,
      extFields: { ...request.extFields },
      body: request.body,
    };
    if (this.beforeSend) {
      try {
        command = this.beforeSend(command);
      } catch (error) {
        if (error instanceof RocketMQError) throw error;
        throw new RocketMQError(`beforeSend failed for request code ${request.code}`, { cause: error });
      }
    }
    return encodeFrame(command);
  }

  /** The link to write on: the current one unless it closed, else a new one (reconnect on demand). */
  private currentLink(): SocketLink {
    if (this.link && this.link.state !== 'closed') return this.link;
    let link: SocketLink;
    try {
      link = new SocketLink({
        address: this.address,
        host: this.host,
        port: this.port,
        tls: this.tls,
        connectTimeoutMs: this.connectTimeoutMs,
        maxFrameBytes: this.maxFrameBytes,
        partialFrameTimeoutMs: this.partialFrameTimeoutMs,
        logger: this.logger,
        onOpen: () => this.peerLine('debug', 'connected', {}),
        onFrame: (from, command) => this.onFrame(from, command, budget),
        onClose: (from, error) => this.onLinkClose(from, error),
      });
    } catch (error) {
      // tls.connect builds its secure context from the options at once, and throws when our own key
      // material cannot be used (a wrong passphrase, a key that is not the certificate's): the same at
      // every reconnect, so it fails the request as a permanent ConnectError (tls-errors.ts).
      throw linkCloseError({
        address: this.address,
        tls: this.tls !== false,
        wasOpen: false,
        cause: error instanceof Error ? error : new Error(String(error)),
        closedByPeer: false,
        silentPeer: false,
      });
    }
    const budget = new InboundBudget(
      { pause: () => link.pauseReading(), resume: () => link.resumeReading() },
      { address: this.address, logger: this.logger },
    );
    this.link = link;
    this.budget = budget;
    return link;
  }

  private onFrame(link: SocketLink, command: RemotingCommand, budget: InboundBudget): void {
    if (!isResponse(command)) {
      serveInboundRequest(command, {
        connection: this,
        link,
        budget,
        handler: this.requestHandler,
        logger: this.logger,
      });
      return;
    }
    this.quietTimeouts.delete(link);
    const entry = this.pending.get(command.opaque);
    if (entry === undefined || entry.link !== link) {
      this.peerLine('debug', 'response for no pending request dropped (late after timeout?)', {
        opaque: command.opaque,
        code: command.code,
      });
      return;
    }
    this.settle(entry, command);
  }

  private onTimeout(entry: PendingRequest, timeoutMs: number): void {
    entry.write?.cancel();
    const timeout = new RequestTimeoutError({
      address: this.address,
      timeoutMs,
      opaque: entry.opaque,
      code: entry.code,
    });
    this.settle(entry, timeout);
    const stuck = this.stuckEvidence(entry);
    if (stuck !== undefined) {
      this.closeAfterTimeout(entry.link, timeout, stuck);
      return;
    }
    // A busy peer answers late: its answer is dropped, and the connection keeps serving the others.
    this.peerLine('debug', 'request timed out; the connection is not stuck and stays open', {
      code: entry.code,
      timeoutMs,
      longPoll: entry.longPoll,
    });
  }

  /**
   * Why the link a request timed out on looks stuck (see `closeOnTimeout`), or undefined when it does
   * not. Counts the timeout among the link's quiet timeouts.
   */
  private stuckEvidence(entry: PendingRequest): string | undefined {
    const { link } = entry;
    const quiet = (this.quietTimeouts.get(link) ?? 0) + 1;
    this.quietTimeouts.set(link, quiet);
    if (!entry.written) return 'its frame was not written';
    if (link.partialFrameBytes > 0) return 'a frame from the peer stopped half-way';
    if (!entry.longPoll && link.receivedBytes === entry.receivedBytesAtSend) {
      return 'nothing arrived since it was sent';
    }
    if (quiet >= MAX_QUIET_TIMEOUTS) return `${quiet} requests in a row timed out`;
    return undefined;
  }

  /**
   * With `closeOnTimeout`, fails the link a request timed out on (`evidence`: why it looks stuck): the
   * other requests on it fail now with a retriable ConnectionClosedError caused by the timeout, and the
   * next request reconnects.
   */
  private closeAfterTimeout(link: SocketLink, timeout: RequestTimeoutError, evidence: string): void {
    if (!this.closeOnTimeout || link.state === 'closed') return;
    const message =
      `connection to ${this.address} closed because request code ${timeout.code} ` +
      `(opaque ${timeout.opaque}) timed out after ${timeout.timeoutMs} ms and ${evidence}`;
    this.peerLine('warn', 'request timed out on a stuck connection, closing it', {
      code: timeout.code,
      timeoutMs: timeout.timeoutMs,
      evidence,
    });
    link.abort(new ConnectionClosedError(message, { address: this.address, cause: timeout }));
  }

  private onLinkClose(link: SocketLink, error: NetworkError): void {
    if (this.link === link) {
      this.link = undefined;
      this.budget = undefined;
    }
    for (const entry of [...this.pending.values()]) {
      if (entry.link === link) this.settle(entry, error);
    }
    if (this.closedByUser) this.logger.debug({ address: this.address }, 'connection closed by the client');
    else this.peerLine('info', 'connection closed', { err: error });
    if (this.onCloseCallback) {
      try {
        this.onCloseCallback({ address: this.address, error });
      } catch (callbackError) {
        this.logger.error({ address: this.address, err: callbackError }, 'onClose callback threw');
      }
    }
  }

  /** Logs a line the peer can make repeat (at every reconnect, or per frame), throttled per address and line. */
  private peerLine(level: 'debug' | 'info' | 'warn', message: string, fields: Record<string, unknown>): void {
    peerLinesOf(this.logger)[level](
      peerLineKey(message, this.address),
      { address: this.address, ...fields },
      message,
    );
  }

  /** Completes a pending request once: clears its timer and removes it. */
  private settle(entry: PendingRequest, outcome: RemotingCommand | NetworkError): void {
    if (this.pending.get(entry.opaque) !== entry) return;
    this.pending.delete(entry.opaque);
    clearTimeout(entry.timer);
    if (outcome instanceof Error) entry.reject(outcome);
    else entry.resolve(outcome);
  }
}

function positiveOr(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}
