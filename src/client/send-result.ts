/**
 * SEND_MESSAGE(_V2) / SEND_BATCH_MESSAGE responses: codes 0, 10, 11 and 12 mean the message was stored
 * (with a weaker guarantee for 10-12); anything else is a {@link BrokerError}.
 */
import { parseSendMessageResponseHeader } from '../protocol/header-parsers.js';
import type { RemotingCommand } from '../protocol/remoting-command.js';
import { ResponseCode } from '../protocol/response-code.js';
import { expectSuccess } from './broker-error.js';

/**
 * How well a stored message is stored (Java `SendStatus`).
 */
export type SendStatus = 'SEND_OK' | 'FLUSH_DISK_TIMEOUT' | 'FLUSH_SLAVE_TIMEOUT' | 'SLAVE_NOT_AVAILABLE';

/**
 * What the broker says about a stored message (or batch).
 */
export interface BrokerSendResult {
  status: SendStatus;
  /** The broker's offset message id (store host + commit-log offset); a comma list for batches. */
  offsetMsgId: string;
  queueId: number;
  /** Queue offset of the (first) stored message. */
  queueOffset: number;
  transactionId?: string | undefined;
  batchUniqId?: string | undefined;
  regionId?: string | undefined;
}

const STATUS_BY_CODE = new Map<number, SendStatus>([
  [ResponseCode.SUCCESS, 'SEND_OK'],
  [ResponseCode.FLUSH_DISK_TIMEOUT, 'FLUSH_DISK_TIMEOUT'],
  [ResponseCode.FLUSH_SLAVE_TIMEOUT, 'FLUSH_SLAVE_TIMEOUT'],
  [ResponseCode.SLAVE_NOT_AVAILABLE, 'SLAVE_NOT_AVAILABLE'],
]);

/**
 * Maps a send response to a {@link BrokerSendResult}.
 */
export function toSendResult(
  response: RemotingCommand,
  request: { code: number },
  address: string,
): BrokerSendResult {
  expectSuccess(response, request, address, [...STATUS_BY_CODE.keys()]);
  const header = parseSendMessageResponseHeader(response.extFields);
  const result: BrokerSendResult = {
    status: STATUS_BY_CODE.get(response.code) ?? 'SEND_OK',
    offsetMsgId: header.msgId,
    queueId: header.queueId,
    queueOffset: header.queueOffset,
  };
  if (header.transactionId !== undefined) result.transactionId = header.transactionId;
  if (header.batchUniqId !== undefined) result.batchUniqId = header.batchUniqId;
  if (header.regionId !== undefined) result.regionId = header.regionId;
  return result;
}
