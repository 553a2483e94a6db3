/**
 * The broker calls of POP consumption, one method per request code, over any {@link RemotingTransport}
 * (a `RocketMQClient`'s pool). Kept apart from {@link BrokerClient}: a POP consumer needs these and the
 * send-back only.
 */
import { RocketMQError } from '../errors.js';
import type { DecodeOptions } from '../protocol/message-decoder.js';
import { type PopReceipt, parsePopReceipt } from '../protocol/pop-extra-info.js';
import {
  type AckMessageRequestHeader,
  type ChangeInvisibleTimeRequestHeader,
  type PopMessageRequestHeader,
  parseChangeInvisibleTimeResponseHeader,
} from '../protocol/pop-headers.js';
import { toExtFields } from '../protocol/remoting-command.js';
import { RequestCode } from '../protocol/request-code.js';
import { ResponseCode } from '../protocol/response-code.js';
import { expectSuccess } from './broker-error.js';
import { type PopResult, toPopResult } from './pop-result.js';
import type { RemotingTransport } from './transport.js';

/**
 * How long the RPC of a long poll may take beyond the poll itself (Java adds 10 s): the broker answers
 * at `pollTime`, and a busy broker later.
 */
export const POP_RPC_MARGIN_MS = 10_000;

/** ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME timeout (Java's `ASYNC_TIMEOUT`). */
export const POP_ACK_TIMEOUT_MS = 3000;

/**
 * What an ack or a change of invisible time found: OK, or GONE when the broker says the offset is no
 * longer in the queue (NO_MESSAGE: the queue was truncated; nothing is left to ack).
 */
export type PopAckStatus = 'OK' | 'GONE';

/**
 * The outcome of CHANGE_MESSAGE_INVISIBLETIME: the new receipt (what a later ack of the same delivery
 * must send), or GONE.
 */
export type ChangeInvisibleTimeResult = { status: 'OK'; receipt: PopReceipt } | { status: 'GONE' };

/**
 * Options of {@link PopClient}.
 */
export interface PopClientOptions {
  transport: RemotingTransport;
  /** @default {@link POP_ACK_TIMEOUT_MS} */
  ackTimeoutMs?: number | undefined;
}

/**
 * POP_MESSAGE, ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME against one broker address per call.
 */
export class PopClient {
  private readonly transport: RemotingTransport;
  private readonly ackTimeoutMs: number;

  constructor(options: PopClientOptions) {
    this.transport = options.transport;
    this.ackTimeoutMs = options.ackTimeoutMs ?? POP_ACK_TIMEOUT_MS;
  }

  /**
   * POP_MESSAGE (200050). The broker holds the request up to `header.pollTime` while nothing is there;
   * the RPC timeout defaults to `pollTime + POP_RPC_MARGIN_MS`. `brokerName` goes into the receipts.
   * Sent as a long poll: its timeout closes the shared connection only when that looks stuck
   * (`ConnectionOptions.closeOnTimeout`).
   */
  async popMessage(
    address: string,
    brokerName: string,
    header: PopMessageRequestHeader,
    options: {
      timeoutMs?: number | undefined;
      /** Inflation limits of the body's messages (message-decoder.ts). @default the decoder's */
      decode?: DecodeOptions | undefined;
    } = {},
  ): Promise<PopResult> {
    const timeoutMs = options.timeoutMs ?? header.pollTime + POP_RPC_MARGIN_MS;
    if (timeoutMs <= header.pollTime) {
      throw new RocketMQError(`pop timeoutMs ${timeoutMs} must exceed pollTime ${header.pollTime}`);
    }
    const response = await this.transport.request(
      address,
      {
        code: RequestCode.POP_MESSAGE,
        extFields: toExtFields({ bname: brokerName, ...header }),
        // A broker that holds the poll is silent until it answers: a late answer is no reason to close
        // the connection the group's other calls share (Java's popAsync keeps the channel too).
        longPoll: header.pollTime > 0,
      },
      timeoutMs,
    );
    return toPopResult(response, address, brokerName, options.decode);
  }

  /** ACK_MESSAGE (200051): the message is consumed; the broker will not redeliver it. */
  async ackMessage(address: string, header: AckMessageRequestHeader): Promise<PopAckStatus> {
    const request = { code: RequestCode.ACK_MESSAGE, extFields: toExtFields(header) };
    const response = expectSuccess(
      await this.transport.request(address, request, this.ackTimeoutMs),
      request,
      address,
      [ResponseCode.SUCCESS, ResponseCode.NO_MESSAGE],
    );
    return response.code === ResponseCode.NO_MESSAGE ? 'GONE' : 'OK';
  }

  /**
   * CHANGE_MESSAGE_INVISIBLETIME (200053): the message becomes visible again `header.invisibleTime` ms
   * from now, through the POP retry topic with `reconsumeTimes + 1`. The result carries the delivery's
   * new receipt.
   */
  async changeInvisibleTime(
    address: string,
    header: ChangeInvisibleTimeRequestHeader,
  ): Promise<ChangeInvisibleTimeResult> {
    const receipt = parsePopReceipt(header.extraInfo);
    const request = { code: RequestCode.CHANGE_MESSAGE_INVISIBLETIME, extFields: toExtFields(header) };
    const response = expectSuccess(
      await this.transport.request(address, request, this.ackTimeoutMs),
      request,
      address,
      [ResponseCode.SUCCESS, ResponseCode.NO_MESSAGE],
    );
    if (response.code === ResponseCode.NO_MESSAGE) return { status: 'GONE' };
    const changed = parseChangeInvisibleTimeResponseHeader(response.extFields);
    // The new checkpoint starts at the message itself (Java `changeInvisibleTimeAsync`).
    return {
      status: 'OK',
      receipt: {
        ...receipt,
        ckQueueOffset: header.offset,
        popTime: changed.popTime,
        invisibleTime: changed.invisibleTime,
        reviveQid: changed.reviveQid,
      },
    };
  }
}
