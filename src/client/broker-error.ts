/**
 * The error of a request the server answered with a non-success code. Its flags come from the one
 * response-code table ({@link responseCodeInfo}); callers branch on them, never on codes' names or remarks.
 */
import { RocketMQError } from '../errors.js';
import type { RemotingCommand } from '../protocol/remoting-command.js';
import { requestCodeName } from '../protocol/request-code.js';
import { ResponseCode, responseCodeInfo } from '../protocol/response-code.js';

/**
 * Construction options of {@link BrokerError}.
 */
export interface BrokerErrorOptions {
  code: number;
  remark?: string | undefined;
  requestCode: number;
  address: string;
  /** Overrides the table's `retriable` flag (e.g. TOPIC_NOT_EXIST from a name server). */
  retriable?: boolean | undefined;
  cause?: unknown;
}

/**
 * A server (name server or broker) answered a request with an error code.
 *
 * @example
 * ```ts
 * try { await broker.pullMessage(address, header) } catch (err) {
 *   if (err instanceof BrokerError && err.staleRoute) await nameServer.getRoute(topic, { refresh: true });
 *   if (err instanceof BrokerError && err.needsRebalance) await heartbeatNow();
 * }
 * ```
 */
export class BrokerError extends RocketMQError {
  /** The response code. */
  readonly code: number;
  /** The server's remark, if any. */
  readonly remark: string | undefined;
  /** The request code that failed. */
  readonly requestCode: number;
  /** The server's address. */
  readonly address: string;
  /** Our route or broker address may be out of date. */
  readonly staleRoute: boolean;
  /** The broker does not (yet) know our membership or subscription. */
  readonly needsRebalance: boolean;

  constructor(options: BrokerErrorOptions) {
    const info = responseCodeInfo(options.code);
    const remark = options.remark === undefined || options.remark === '' ? '' : `: ${options.remark}`;
    super(
      `${requestCodeName(options.requestCode)} to ${options.address} failed with ${info.name} (${options.code})${remark}`,
      { cause: options.cause, retriable: options.retriable ?? info.retriable, permanent: info.permanent },
    );
    this.code = options.code;
    this.remark = options.remark;
    this.requestCode = options.requestCode;
    this.address = options.address;
    this.staleRoute = info.staleRoute;
    this.needsRebalance = info.needsRebalance;
  }
}

/**
 * The one status check every call uses: returns the response when its code is allowed (SUCCESS by
 * default), else throws {@link BrokerError}.
 */
export function expectSuccess(
  response: RemotingCommand,
  request: { code: number },
  address: string,
  allowedCodes: readonly number[] = [ResponseCode.SUCCESS],
): RemotingCommand {
  if (allowedCodes.includes(response.code)) return response;
  throw new BrokerError({ code: response.code, remark: response.remark, requestCode: request.code, address });
}
