/**
 * A remoting connection to one name server or broker: request/response correlation by opaque, per-request
 * timeouts, oneway sends, answers to broker-initiated requests, lazy connect and reconnect on demand.
 * It knows frames, not request codes.
 */
import type tls from 'node:tls';
import { RocketMQError } from '../protocol/errors.js';
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
  DEFAULT_ONEWAY_TIMEOUT_MS,
  type RemotingRequest,
  type RequestHandler,
} from './connection-options.js';
import {
  ConnectionClosedError,
  InFlightLimitError,
  type NetworkError,
  RequestTimeoutError,
} from './errors.js';
import { answerInboundRequest } from './inbound-request.js';
import { processOpaqueCounter } from './opaque.js';
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
  DEFAULT_ONEWAY_TIMEOUT_MS,
} from './connection-options.js';

/** Node's setTimeout fires at once for delays above 2^31 - 1 ms, so longer timeouts are clamped to it. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

interface PendingRequest {
  opaque: number;
  code: number;
  link: SocketLink;
  timer: NodeJS.Timeout;
  write: WriteHandle | undefined;
  resolve: (response: RemotingCommand) => void;
  reject: (error: NetworkError) => void;
}

/**
 * One remoting connection. Connects on the first request (concurrent first requests share the connect),
 * reconnects on the next request after the socket closed, and never reconnects on its own while idle.
 * Emits no events; failures surface as typed rejections of the calls that they affect.
 *
 * @example
 * ```ts
 * const connection = new Connection({ address: '127.0.0.1:9876' });
 * const response = await connection.request({ code: 105, extFields: { topic: 'TopicTest' } }, 3000);
 * if (response.code === 0) console.log(response.body?.toString());
 * await connection.close();
 * ```
 */
export class Connection {
  readonly address: string;
  private readonly host: string;
  private readonly port: number;
  private readonly tls: false | tls.ConnectionOptions;
  private readonly connectTimeoutMs: number;
  private readonly maxInFlight: number;
  private readonly maxFrameBytes: number;
  private readonly requestHandler: RequestHandler | undefined;
  private readonly beforeSend: ((command: RemotingCommand) => RemotingCommand) | undefined;
  private readonly onCloseCallback: ((event: ConnectionCloseEvent) => void) | undefined;
  private readonly logger: Logger;
  private link: SocketLink | undefined;
  private readonly pending = new Map<number, PendingRequest>();
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
    this.requestHandler = options.requestHandler;
    this.beforeSend = options.beforeSend;
    this.onCloseCallback = options.onClose;
    this.logger = options.logger ?? componentLogger('network.connection');
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

  /**
   * Sends a request and resolves with the response, whatever its code. Rejects with
   * RequestTimeoutError, ConnectError, ConnectionClosedError, InFlightLimitError, or the ProtocolError
   * of an unencodable request.
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
      const entry: PendingRequest = {
        opaque,
        code: request.code,
        link,
        timer: setTimeout(() => this.onTimeout(entry, timeoutMs), Math.min(timeoutMs, MAX_TIMER_DELAY_MS)),
        write: undefined,
        resolve,
        reject,
      };
      this.pending.set(opaque, entry);
      entry.write = link.write(frame, (error) => {
        if (error) this.settle(entry, error);
      });
    });
  }

  /**
   * Sends a request with the oneway flag and resolves once the socket took it; no response is awaited.
   * Rejects with ConnectError, ConnectionClosedError, InFlightLimitError, or RequestTimeoutError when the
   * frame could not be written within `timeoutMs`.
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
          finish(new RequestTimeoutError({ address: this.address, timeoutMs, opaque, code: request.code }));
        },
        Math.min(timeoutMs, MAX_TIMER_DELAY_MS),
      );
      const handle = this.currentLink().write(frame, finish);
    });
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

  private encodeRequest(request: RemotingRequest, opaque: number, flag: number): Buffer {
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
    this.link = new SocketLink({
      address: this.address,
      host: this.host,
      port: this.port,
      tls: this.tls,
      connectTimeoutMs: this.connectTimeoutMs,
      maxFrameBytes: this.maxFrameBytes,
      logger: this.logger,
      onOpen: () => this.logger.debug({ address: this.address }, 'connected'),
      onFrame: (link, command) => this.onFrame(link, command),
      onClose: (link, error) => this.onLinkClose(link, error),
    });
    return this.link;
  }

  private onFrame(link: SocketLink, command: RemotingCommand): void {
    if (!isResponse(command)) {
      this.onInboundRequest(link, command);
      return;
    }
    const entry = this.pending.get(command.opaque);
    if (entry === undefined || entry.link !== link) {
      this.logger.debug(
        { address: this.address, opaque: command.opaque, code: command.code },
        'response for no pending request dropped (late after timeout?)',
      );
      return;
    }
    this.settle(entry, command);
  }

  private onInboundRequest(link: SocketLink, request: RemotingCommand): void {
    answerInboundRequest(request, this, this.requestHandler, this.logger)
      .then((reply) => {
        if (reply === undefined) return;
        if (link.state !== 'open') {
          this.logger.debug(
            { address: this.address, opaque: request.opaque },
            'reply dropped: socket closed',
          );
          return;
        }
        link.write(reply, (error) => {
          if (error) this.logger.debug({ address: this.address, err: error }, 'reply not written');
        });
      })
      .catch((error: unknown) => {
        this.logger.error(
          { address: this.address, code: request.code, err: error },
          'answering a request failed',
        );
      });
  }

  private onTimeout(entry: PendingRequest, timeoutMs: number): void {
    entry.write?.cancel();
    this.settle(
      entry,
      new RequestTimeoutError({ address: this.address, timeoutMs, opaque: entry.opaque, code: entry.code }),
    );
  }

  private onLinkClose(link: SocketLink, error: NetworkError): void {
    if (this.link === link) this.link = undefined;
    for (const entry of [...this.pending.values()]) {
      if (entry.link === link) this.settle(entry, error);
    }
    if (this.closedByUser) this.logger.debug({ address: this.address }, 'connection closed by the client');
    else this.logger.info({ address: this.address, err: error }, 'connection closed');
    if (this.onCloseCallback) {
      try {
        this.onCloseCallback({ address: this.address, error });
      } catch (callbackError) {
        this.logger.error({ address: this.address, err: callbackError }, 'onClose callback threw');
      }
    }
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
