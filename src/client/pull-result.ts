/**
 * PULL_MESSAGE responses mapped to a discriminated union, the way Java's `PullAPIWrapper` does:
 * 0 FOUND, 19 NO_NEW_MSG, 20 NO_MATCHED_MSG, 21 OFFSET_ILLEGAL; any other code is a {@link BrokerError}.
 */
import type { ProtocolError } from '../protocol/errors.js';
import { parsePullMessageResponseHeader } from '../protocol/header-parsers.js';
import type { MessageExt } from '../protocol/message.js';
import {
  type DecodeOptions,
  type DecodeResult,
  decodeMessages,
  type TooLargeMessage,
} from '../protocol/message-decoder.js';
import type { RemotingCommand } from '../protocol/remoting-command.js';
import { RequestCode } from '../protocol/request-code.js';
import { ResponseCode } from '../protocol/response-code.js';
import { expectSuccess } from './broker-error.js';

/**
 * Offsets every pull result carries (from the response header).
 */
export interface PullOffsets {
  /** Where to pull next. */
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
  /** 0 (master) unless the broker has slaveReadEnable. */
  suggestWhichBrokerId: number;
}

/**
 * Messages were found.
 */
export interface PullFound extends PullOffsets {
  status: 'FOUND';
  messages: MessageExt[];
  /** Set when the body held a malformed record: `messages` are the records before it (Java drops the rest). */
  decodeError?: ProtocolError | undefined;
  /** Messages whose body would inflate past the decoder's `maxBodyBytes`: not in `messages`, body empty. */
  tooLarge?: TooLargeMessage[] | undefined;
  /**
   * Set when the body's messages would inflate past `maxInflatedBytes` together: `messages` end before
   * this queue offset, and the records from it on were not read (pull again from here).
   */
  deferredFrom?: number | undefined;
}

/**
 * Nothing to return: no new message (19), all filtered out (20), or the offset was illegal (21).
 */
export interface PullEmpty extends PullOffsets {
  status: 'NO_NEW_MSG' | 'NO_MATCHED_MSG' | 'OFFSET_ILLEGAL';
}

/**
 * The outcome of one PULL_MESSAGE.
 */
export type PullResult = PullFound | PullEmpty;

const EMPTY_STATUS = new Map<number, PullEmpty['status']>([
  [ResponseCode.PULL_NOT_FOUND, 'NO_NEW_MSG'],
  [ResponseCode.PULL_RETRY_IMMEDIATELY, 'NO_MATCHED_MSG'],
  [ResponseCode.PULL_OFFSET_MOVED, 'OFFSET_ILLEGAL'],
]);

const ALLOWED_CODES = [ResponseCode.SUCCESS, ...EMPTY_STATUS.keys()];

/**
 * Maps a PULL_MESSAGE response to a {@link PullResult}; throws {@link BrokerError} for other codes and
 * {@link ProtocolError} for a malformed header. With `offsetDelta` (static topics) every message's queue
 * offset is shifted, as Java does.
 */
export function toPullResult(
  response: RemotingCommand,
  address: string,
  decodeOptions?: DecodeOptions,
): PullResult {
  expectSuccess(response, { code: RequestCode.PULL_MESSAGE }, address, ALLOWED_CODES);
  const header = parsePullMessageResponseHeader(response.extFields);
  const offsets: PullOffsets = {
    nextBeginOffset: header.nextBeginOffset,
    minOffset: header.minOffset,
    maxOffset: header.maxOffset,
    suggestWhichBrokerId: header.suggestWhichBrokerId,
  };
  const emptyStatus = EMPTY_STATUS.get(response.code);
  if (emptyStatus !== undefined) return { status: emptyStatus, ...offsets };
  const decoded =
    response.body === undefined || response.body.length === 0
      ? ({ messages: [] as MessageExt[] } as DecodeResult)
      : decodeMessages(response.body, decodeOptions);
  const delta = header.offsetDelta ?? 0;
  // The messages were just decoded and belong to no one else: shift them in place, no copies.
  if (delta !== 0) {
    for (const m of decoded.messages) m.queueOffset += delta;
    for (const { message } of decoded.tooLarge ?? []) message.queueOffset += delta;
  }
  const found: PullFound = { status: 'FOUND', messages: decoded.messages, ...offsets };
  // The error's offset is a stored one too: the pull loop dead-letters by it and skips past it.
  if (decoded.error !== undefined) found.decodeError = decoded.error.withOffsetDelta(delta);
  if (decoded.tooLarge !== undefined) found.tooLarge = decoded.tooLarge;
  if (decoded.deferred !== undefined) found.deferredFrom = decoded.deferred.queueOffset + delta;
  return found;
}
