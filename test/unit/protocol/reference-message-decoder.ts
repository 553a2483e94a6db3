/**
 * A reference decoder of uncompressed PULL bodies for differential tests: the record grammar of
 * src/protocol/message-decoder.ts read field by field in the plainest way (BigInt int64s, a string per
 * field, properties by the rules of src/protocol/message-properties.ts with Object.create(null) and
 * Object.hasOwn, no remembered topics, hosts or property layouts). Expects well-formed records.
 */
import type { MessageExt } from '../../../src/protocol/message.js';
import { createOffsetMsgId, formatHostPort, formatIpAddress } from '../../../src/protocol/message-id.js';

const MAGIC_V2 = 0xdaa320ab | 0;
const BORNHOST_V6 = 0x1 << 4;
const STOREHOST_V6 = 0x1 << 5;
const INNER_BATCH = 0x1 << 8;
const NEED_UNWRAP = 0x1 << 9;

/** Properties by the documented rules: pieces split on U+0002, key before the first U+0001, first key wins. */
export function referenceProperties(text: string): Record<string, string> {
  const properties: Record<string, string> = Object.create(null);
  let index = 0;
  while (index < text.length) {
    let end = text.indexOf('\u0002', index);
    if (end < 0) end = text.length;
    const separator = text.indexOf('\u0001', index);
    if (end - index >= 3 && separator > index && separator < end - 1) {
      const key = text.slice(index, separator);
      if (!Object.hasOwn(properties, key)) properties[key] = text.slice(separator + 1, end);
    }
    index = end + 1;
  }
  return properties;
}

/** Every message of `body`, inner batches expanded. */
export function referenceDecode(body: Buffer): MessageExt[] {
  const messages: MessageExt[] = [];
  let offset = 0;
  while (offset < body.length) {
    const record = body.subarray(offset, offset + body.readInt32BE(offset));
    messages.push(...referenceRecord(record));
    offset += record.length;
  }
  return messages;
}

function referenceRecord(record: Buffer): MessageExt[] {
  const long = (at: number) => Number(record.readBigInt64BE(at));
  const sysFlag = record.readInt32BE(36);
  const bornHostBytes = sysFlag & BORNHOST_V6 ? 20 : 8;
  const storeHostBytes = sysFlag & STOREHOST_V6 ? 20 : 8;
  const host = (at: number, bytes: number) =>
    formatHostPort(formatIpAddress(record.subarray(at, at + bytes - 4)), record.readInt32BE(at + bytes - 4));
  const storeTimestampAt = 48 + bornHostBytes;
  const storeHostAt = storeTimestampAt + 8;
  const reconsumeAt = storeHostAt + storeHostBytes;
  const bodyLength = record.readInt32BE(reconsumeAt + 12);
  const bodyAt = reconsumeAt + 16;
  let p = bodyAt + bodyLength;
  const v2 = record.readInt32BE(4) === MAGIC_V2;
  const topicLength = v2 ? record.readInt16BE(p) : record.readInt8(p);
  p += v2 ? 2 : 1;
  const topic = record.toString('utf8', p, p + topicLength);
  p += topicLength + 2;
  const storeIpBytes = storeHostBytes - 4;
  const offsetMsgId = createOffsetMsgId(
    record.subarray(storeHostAt, storeHostAt + storeIpBytes),
    record.readInt32BE(storeHostAt + storeIpBytes),
    long(28),
  );
  const outer = withIds({
    topic,
    queueId: record.readInt32BE(12),
    queueOffset: long(20),
    physicalOffset: long(28),
    sysFlag,
    flag: record.readInt32BE(16),
    bornTimestamp: long(40),
    bornHost: host(48, bornHostBytes),
    storeTimestamp: long(storeTimestampAt),
    storeHost: host(storeHostAt, storeHostBytes),
    reconsumeTimes: record.readInt32BE(reconsumeAt),
    preparedTransactionOffset: long(reconsumeAt + 4),
    bodyCrc: record.readInt32BE(8),
    storeSize: record.length,
    body: record.subarray(bodyAt, bodyAt + bodyLength),
    properties: referenceProperties(record.toString('utf8', p)),
    offsetMsgId,
  });
  if ((sysFlag & INNER_BATCH) === 0 || (sysFlag & NEED_UNWRAP) === 0) return [outer];
  const entries: MessageExt[] = [];
  const batch = outer.body;
  for (let at = 0, index = 0; at < batch.length; index++) {
    const size = batch.readInt32BE(at);
    const entryBodyLength = batch.readInt32BE(at + 16);
    const entryBodyAt = at + 20;
    entries.push(
      withIds({
        ...outer,
        queueOffset: outer.queueOffset + index,
        flag: batch.readInt32BE(at + 12),
        reconsumeTimes: 0,
        preparedTransactionOffset: 0,
        bodyCrc: batch.readInt32BE(at + 8),
        storeSize: size,
        body: batch.subarray(entryBodyAt, entryBodyAt + entryBodyLength),
        properties: referenceProperties(batch.toString('utf8', entryBodyAt + entryBodyLength + 2, at + size)),
      }),
    );
    at += size;
  }
  return entries;
}

function withIds(fields: Omit<MessageExt, 'msgId' | 'tags' | 'keys'>): MessageExt {
  const { properties } = fields;
  return {
    ...fields,
    msgId: properties.UNIQ_KEY ?? fields.offsetMsgId,
    tags: properties.TAGS,
    keys: (properties.KEYS ?? '').split(' ').filter((key) => key.length > 0),
  };
}
