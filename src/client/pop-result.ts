/**
 * POP_MESSAGE responses mapped to a discriminated union, the way Java's `MQClientAPIImpl.processPopResponse`
 * reads them: SUCCESS is FOUND (the body is the PULL body format, each message then gets its receipt);
 * POLLING_TIMEOUT (210) and PULL_NOT_FOUND (19) are NO_NEW_MSG; POLLING_FULL (209) is POLLING_FULL; any
 * other code is a {@link BrokerError}.
 */
import type { ProtocolError } from '../protocol/errors.js';
import type { MessageExt } from '../protocol/message.js';
import { type DecodeOptions, type DecodeResult, decodeMessages } from '../protocol/message-decoder.js';
import { assignPopReceipts, type PopReceipt } from '../protocol/pop-extra-info.js';
import { parsePopMessageResponseHeader } from '../protocol/pop-headers.js';
import type { RemotingCommand } from '../protocol/remoting-command.js';
import { RequestCode } from '../protocol/request-code.js';
import { ResponseCode } from '../protocol/response-code.js';
import { expectSuccess } from './broker-error.js';

/**
 * A popped message with the receipt that acks it or changes its invisible time.
 */
export interface PoppedMessage {
  readonly message: MessageExt;
  readonly receipt: PopReceipt;
}

/**
 * Messages were popped: they stay invisible to other pops of the group until `popTime + invisibleTime`
 * (broker clock) unless acked or given another invisible time.
 */
export interface PopFound {
  status: 'FOUND';
  messages: PoppedMessage[];
  popTime: number;
  invisibleTime: number;
  /** Messages left in the queues the broker looked at (a hint). */
  restNum: number;
  /**
   * Set when the body held a malformed record: `messages` are the records before it. The others were
   * popped too; they come back once their invisible time is over.
   */
  decodeError?: ProtocolError | undefined;
  /**
   * Popped messages whose body would inflate past the decoder's `maxBodyBytes`, with their receipts: not
   * in `messages`, body empty. They must be dead-lettered (or they come back after their invisible time).
   */
  tooLarge?: { popped: PoppedMessage; reason: string }[] | undefined;
  /**
   * Set when the body's messages would inflate past `maxInflatedBytes` together: the records after
   * `messages` were popped but not read; they come back once their invisible time is over.
   */
  deferred?: boolean | undefined;
}

/**
 * Nothing popped: the long poll ended empty (NO_NEW_MSG), or the broker holds too many long polls
 * already (POLLING_FULL: ask again after a pause).
 */
export interface PopEmpty {
  status: 'NO_NEW_MSG' | 'POLLING_FULL';
  restNum: number;
}

/**
 * The outcome of one POP_MESSAGE.
 */
export type PopResult = PopFound | PopEmpty;

const EMPTY_STATUS = new Map<number, PopEmpty['status']>([
  [ResponseCode.POLLING_TIMEOUT, 'NO_NEW_MSG'],
  [ResponseCode.PULL_NOT_FOUND, 'NO_NEW_MSG'],
  [ResponseCode.POLLING_FULL, 'POLLING_FULL'],
]);

const ALLOWED_CODES = [ResponseCode.SUCCESS, ...EMPTY_STATUS.keys()];

/**
 * Maps a POP_MESSAGE response to a {@link PopResult}; `brokerName` goes into the receipts of first
 * deliveries. Throws {@link BrokerError} for other codes and {@link ProtocolError} for a malformed header.
 */
export function toPopResult(
  response: RemotingCommand,
  address: string,
  brokerName: string,
  decodeOptions?: DecodeOptions,
): PopResult {
  expectSuccess(response, { code: RequestCode.POP_MESSAGE }, address, ALLOWED_CODES);
  const header = parsePopMessageResponseHeader(response.extFields);
  const emptyStatus = EMPTY_STATUS.get(response.code);
  if (emptyStatus !== undefined) return { status: emptyStatus, restNum: header.restNum };
  const decoded: DecodeResult =
    response.body === undefined || response.body.length === 0
      ? { messages: [] }
      : decodeMessages(response.body, decodeOptions);
  // Receipts follow the body's order per queue: messages too large to inflate take their places in it.
  const inOrder = withTooLarge(decoded);
  const receipts = assignPopReceipts(inOrder, header, brokerName);
  const found: PopFound = {
    status: 'FOUND',
    messages: [],
    popTime: header.popTime,
    invisibleTime: header.invisibleTime,
    restNum: header.restNum,
  };
  const reasons = new Map((decoded.tooLarge ?? []).map(({ message, reason }) => [message, reason]));
  const tooLarge: { popped: PoppedMessage; reason: string }[] = [];
  inOrder.forEach((message, i) => {
    const popped = { message, receipt: receipts[i] as PopReceipt };
    const reason = reasons.get(message);
    if (reason === undefined) found.messages.push(popped);
    else tooLarge.push({ popped, reason });
  });
  if (tooLarge.length > 0) found.tooLarge = tooLarge;
  if (decoded.error !== undefined) found.decodeError = decoded.error;
  if (decoded.deferred !== undefined) found.deferred = true;
  return found;
}

/** The decoded messages with the ones too large to inflate back in their places, in body order. */
function withTooLarge(decoded: DecodeResult): MessageExt[] {
  const tooLarge = decoded.tooLarge;
  if (tooLarge === undefined) return decoded.messages;
  const all: MessageExt[] = [];
  let next = 0;
  for (const { message, index } of tooLarge) {
    while (next < index) all.push(decoded.messages[next++] as MessageExt);
    all.push(message);
  }
  while (next < decoded.messages.length) all.push(decoded.messages[next++] as MessageExt);
  return all;
}
