/**
 * Parsers of received headers (string extFields): the response headers of the requests this client
 * sends, and the field readers for requests the broker sends us. Each throws {@link ProtocolError}
 * naming a missing or malformed field. Field names are the Java header classes' field names.
 */
import { echoedText, echoedValue } from '../util/echoed-value.js';
import { ProtocolError } from './errors.js';

/**
 * Reads a required string extField, throwing {@link ProtocolError} when it is absent.
 */
export function requireStringField(fields: Record<string, string>, name: string, context: string): string {
  const value = fields[name];
  if (value === undefined) throw new ProtocolError(`${context} header has no ${name}`);
  return value;
}

/**
 * Reads a required integer extField (a Java int or long) as a safe JS number.
 */
export function requireIntegerField(fields: Record<string, string>, name: string, context: string): number {
  const value = fields[name];
  if (value === undefined) throw new ProtocolError(`${context} header has no ${name}`);
  return parseIntegerField(value, name, context);
}

/**
 * Reads an optional integer extField; `undefined` when absent.
 */
export function optionalIntegerField(
  fields: Record<string, string>,
  name: string,
  context: string,
): number | undefined {
  const value = fields[name];
  return value === undefined ? undefined : parseIntegerField(value, name, context);
}

function parseIntegerField(value: string, name: string, context: string): number {
  if (!/^-?\d+$/.test(value)) {
    throw new ProtocolError(`${context} header ${name}=${echoedValue(value)} is not an integer`);
  }
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) {
    throw new ProtocolError(
      `${context} header ${name}=${echoedText(value)} is outside the safe integer range`,
    );
  }
  return parsed;
}

/**
 * Parsed `PullMessageResponseHeader`.
 */
export interface PullMessageResponseHeader {
  suggestWhichBrokerId: number;
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
  /** Static (logical-queue) topics only: add to every message's queue offset. */
  offsetDelta?: number | undefined;
  topicSysFlag?: number | undefined;
  groupSysFlag?: number | undefined;
  forbiddenType?: number | undefined;
}

/**
 * Parses a PULL_MESSAGE response header.
 */
export function parsePullMessageResponseHeader(fields: Record<string, string>): PullMessageResponseHeader {
  const context = 'PULL_MESSAGE response';
  const header: PullMessageResponseHeader = {
    suggestWhichBrokerId: requireIntegerField(fields, 'suggestWhichBrokerId', context),
    nextBeginOffset: requireIntegerField(fields, 'nextBeginOffset', context),
    minOffset: requireIntegerField(fields, 'minOffset', context),
    maxOffset: requireIntegerField(fields, 'maxOffset', context),
  };
  const offsetDelta = optionalIntegerField(fields, 'offsetDelta', context);
  if (offsetDelta !== undefined) header.offsetDelta = offsetDelta;
  const topicSysFlag = optionalIntegerField(fields, 'topicSysFlag', context);
  if (topicSysFlag !== undefined) header.topicSysFlag = topicSysFlag;
  const groupSysFlag = optionalIntegerField(fields, 'groupSysFlag', context);
  if (groupSysFlag !== undefined) header.groupSysFlag = groupSysFlag;
  const forbiddenType = optionalIntegerField(fields, 'forbiddenType', context);
  if (forbiddenType !== undefined) header.forbiddenType = forbiddenType;
  return header;
}

/**
 * Parsed `SendMessageResponseHeader`.
 */
export interface SendMessageResponseHeader {
  /** The broker's offset message id (store host + physical offset). */
  msgId: string;
  queueId: number;
  queueOffset: number;
  transactionId?: string | undefined;
  batchUniqId?: string | undefined;
  /** `MSG_REGION` extField. */
  regionId?: string | undefined;
  /** `TRACE_ON` extField. */
  traceOn?: boolean | undefined;
}

/**
 * Parses a SEND_MESSAGE(_V2) / SEND_BATCH_MESSAGE response header.
 */
export function parseSendMessageResponseHeader(fields: Record<string, string>): SendMessageResponseHeader {
  const context = 'SEND_MESSAGE response';
  const header: SendMessageResponseHeader = {
    msgId: requireStringField(fields, 'msgId', context),
    queueId: requireIntegerField(fields, 'queueId', context),
    queueOffset: requireIntegerField(fields, 'queueOffset', context),
  };
  if (fields.transactionId !== undefined) header.transactionId = fields.transactionId;
  if (fields.batchUniqId !== undefined) header.batchUniqId = fields.batchUniqId;
  if (fields.MSG_REGION !== undefined) header.regionId = fields.MSG_REGION;
  if (fields.TRACE_ON !== undefined) header.traceOn = fields.TRACE_ON === 'true';
  return header;
}

/**
 * Parses the `offset` header of GET_MAX_OFFSET, GET_MIN_OFFSET, SEARCH_OFFSET_BY_TIMESTAMP and
 * QUERY_CONSUMER_OFFSET responses.
 */
export function parseOffsetResponseHeader(
  fields: Record<string, string>,
  requestName = 'offset query',
): { offset: number } {
  return { offset: requireIntegerField(fields, 'offset', `${requestName} response`) };
}
