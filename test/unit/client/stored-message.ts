import { encodeStoredMessage } from '../../../src/protocol/message-encoder.js';

/** Builds one v1 stored-message record (IPv4 hosts, BODYCRC 0), as found in a PULL body. */
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
  return encodeStoredMessage({
    ...fields,
    bornTimestamp: fields.bornTimestamp ?? 1_700_000_000_000,
    bornHost: '127.0.0.1:40000',
    storeTimestamp: fields.storeTimestamp ?? 1_700_000_000_001,
    storeHost: '127.0.0.1:10911',
    bodyCrc: 0,
    magic: 'v1',
  });
}
