import { encodeProperties } from '../../../src/protocol/message-properties.js';

/** Builds one v1 stored-message record (IPv4 hosts), as found in a PULL body. */
export function storedMessage(fields: {
  topic: string;
  queueId: number;
  queueOffset: number;
  physicalOffset: number;
  body: Buffer;
  properties: Record<string, string>;
  bornTimestamp?: number;
  storeTimestamp?: number;
}): Buffer {
  const topic = Buffer.from(fields.topic, 'utf8');
  const props = Buffer.from(encodeProperties(fields.properties), 'utf8');
  const size =
    4 +
    4 +
    4 +
    4 +
    4 +
    8 +
    8 +
    4 +
    8 +
    8 +
    8 +
    8 +
    4 +
    8 +
    4 +
    fields.body.length +
    1 +
    topic.length +
    2 +
    props.length;
  const out = Buffer.alloc(size);
  let pos = 0;
  pos = out.writeInt32BE(size, pos);
  pos = out.writeInt32BE(0xdaa320a7 | 0, pos);
  pos = out.writeInt32BE(0, pos); // body crc
  pos = out.writeInt32BE(fields.queueId, pos);
  pos = out.writeInt32BE(0, pos); // flag
  pos = out.writeBigInt64BE(BigInt(fields.queueOffset), pos);
  pos = out.writeBigInt64BE(BigInt(fields.physicalOffset), pos);
  pos = out.writeInt32BE(0, pos); // sysFlag
  pos = out.writeBigInt64BE(BigInt(fields.bornTimestamp ?? 1_700_000_000_000), pos);
  pos += Buffer.from([127, 0, 0, 1]).copy(out, pos);
  pos = out.writeInt32BE(40000, pos);
  pos = out.writeBigInt64BE(BigInt(fields.storeTimestamp ?? 1_700_000_000_001), pos);
  pos += Buffer.from([127, 0, 0, 1]).copy(out, pos);
  pos = out.writeInt32BE(10911, pos);
  pos = out.writeInt32BE(0, pos); // reconsume times
  pos = out.writeBigInt64BE(0n, pos);
  pos = out.writeInt32BE(fields.body.length, pos);
  pos += fields.body.copy(out, pos);
  pos = out.writeInt8(topic.length, pos);
  pos += topic.copy(out, pos);
  pos = out.writeInt16BE(props.length, pos);
  props.copy(out, pos);
  return out;
}
