/**
 * Requests the broker sends us (NOTIFY_CONSUMER_IDS_CHANGED, GET_CONSUMER_RUNNING_INFO, ...): run the
 * handler, build the reply Java's NettyRemotingAbstract would send and write it, counted by the link's
 * inbound budget from arrival until written. Oneway requests are never answered.
 *
 * A peer sends these at will, so every line they cause is throttled per connection (src/util/throttled-log.ts):
 * a flood of failing or unknown requests logs one line per kind and interval, with the count held back.
 */
import {
  CLIENT_LANGUAGE,
  CLIENT_VERSION,
  encodeFrame,
  FLAG_RESPONSE,
  isOneway,
  type RemotingCommand,
} from '../protocol/remoting-command.js';
import { requestCodeName } from '../protocol/request-code.js';
import { ResponseCode } from '../protocol/response-code.js';
import { errorMessage } from '../util/error-message.js';
import type { Logger } from '../util/logger.js';
import { ThrottledLog } from '../util/throttled-log.js';
import type { Connection } from './connection.js';
import type { RemotingResponse, RequestHandler } from './connection-options.js';
import type { InboundBudget } from './inbound-budget.js';
import type { SocketLink } from './socket-link.js';

/**
 * Where a peer-initiated request arrived and how to answer it.
 */
export interface InboundContext {
  connection: Connection;
  /** The link the request came on; the reply goes back on it, or is dropped once it closed. */
  link: SocketLink;
  /** The link's budget: the request counts from now until its reply is written or dropped. */
  budget: InboundBudget;
  handler: RequestHandler | undefined;
  logger: Logger;
  /** Where the lines go, throttled. @default the connection's (see {@link inboundLinesOf}) */
  lines?: ThrottledLog | undefined;
}

/** Each connection's throttled lines, kept across its reconnects (a peer that reconnects starts no new count). */
const linesByConnection = new WeakMap<Connection, ThrottledLog>();

/**
 * The throttled log of the inbound requests of `connection`, made on first use with `logger`.
 */
export function inboundLinesOf(connection: Connection, logger: Logger): ThrottledLog {
  let lines = linesByConnection.get(connection);
  if (lines === undefined) {
    lines = new ThrottledLog(logger);
    linesByConnection.set(connection, lines);
  }
  return lines;
}

/**
 * The throttling key of a line about a request of `code`: one per code this client knows, one for all
 * the others, so that the codes a peer makes up cannot multiply the keys (and the lines).
 */
function lineKey(line: string, code: number): string {
  const name = requestCodeName(code);
  return `${line}:${name.startsWith('CODE_') ? 'other codes' : name}`;
}

/**
 * Answers a peer-initiated request on the link it came on. Never throws; failures are logged.
 */
export function serveInboundRequest(request: RemotingCommand, context: InboundContext): void {
  const { connection, link, logger } = context;
  const lines = context.lines ?? inboundLinesOf(connection, logger);
  const ticket = context.budget.admit();
  answerInboundRequest(request, connection, context.handler, logger, lines)
    .then((reply) => {
      if (reply === undefined) {
        ticket.release();
        return;
      }
      if (link.state !== 'open') {
        ticket.release();
        lines.debug(
          'reply dropped',
          { address: connection.address, opaque: request.opaque },
          'reply dropped: socket closed',
        );
        return;
      }
      ticket.queueReply(reply.length);
      link.write(reply, (error) => {
        ticket.release();
        if (error)
          lines.debug('reply not written', { address: connection.address, err: error }, 'reply not written');
      });
    })
    .catch((error: unknown) => {
      ticket.release();
      lines.error(
        lineKey('answering failed', request.code),
        { address: connection.address, code: request.code, err: error },
        'answering a request failed',
      );
    });
}

/**
 * Runs `handler` for a broker-initiated request and returns the encoded reply frame to send, or
 * `undefined` when nothing must be sent (oneway request). No handler, or a handler returning `undefined`,
 * gives 3 REQUEST_CODE_NOT_SUPPORTED; a handler that throws, or a response that cannot be encoded, gives
 * 1 SYSTEM_ERROR with the error's message. Never rejects. Lines go to `lines`, throttled (default: the
 * connection's, {@link inboundLinesOf}).
 */
export async function answerInboundRequest(
  request: RemotingCommand,
  connection: Connection,
  handler: RequestHandler | undefined,
  logger: Logger,
  lines: ThrottledLog = inboundLinesOf(connection, logger),
): Promise<Buffer | undefined> {
  const reply = await replyCommand(request, connection, handler, lines);
  if (reply === undefined) return undefined;
  try {
    return encodeFrame(reply);
  } catch (error) {
    lines.warn(
      lineKey('reply not encodable', request.code),
      { address: connection.address, code: request.code, err: error },
      'reply not encodable',
    );
    return encodeFrame(
      replyTo(request, {
        code: ResponseCode.SYSTEM_ERROR,
        remark: errorMessage(error),
      }),
    );
  }
}

async function replyCommand(
  request: RemotingCommand,
  connection: Connection,
  handler: RequestHandler | undefined,
  lines: ThrottledLog,
): Promise<RemotingCommand | undefined> {
  const oneway = isOneway(request);
  let response: RemotingResponse | undefined;
  try {
    response = handler === undefined ? undefined : await handler(request, connection);
  } catch (error) {
    lines.warn(
      lineKey('request handler failed', request.code),
      { address: connection.address, code: request.code, opaque: request.opaque, err: error },
      'request handler failed',
    );
    if (oneway) return undefined;
    return replyTo(request, {
      code: ResponseCode.SYSTEM_ERROR,
      remark: errorMessage(error),
    });
  }
  if (oneway) return undefined;
  if (response === undefined) {
    lines.debug(
      lineKey('not supported', request.code),
      { address: connection.address, code: request.code },
      'request code not supported',
    );
    return replyTo(request, {
      code: ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
      remark: ` request type ${request.code} not supported`,
    });
  }
  return replyTo(request, response);
}

/**
 * The reply frame for `request`: same opaque, response flag, our language and version, JSON header.
 */
export function replyTo(request: RemotingCommand, response: RemotingResponse): RemotingCommand {
  return {
    code: response.code,
    language: CLIENT_LANGUAGE,
    version: CLIENT_VERSION,
    opaque: request.opaque,
    flag: FLAG_RESPONSE,
    remark: response.remark,
    extFields: response.extFields ?? {},
    body: response.body,
  };
}
