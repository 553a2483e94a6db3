import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import {
  BLANK_MAGIC_CODE,
  decodeMessage,
  decodeMessages,
  MESSAGE_MAGIC_CODE_V1,
  MESSAGE_MAGIC_CODE_V2,
  MessageDecodeError,
} from '../../../src/protocol/message-decoder.js';
import { MessageSysFlag } from '../../../src/protocol/message-sys-flag.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/messages/${name}`, import.meta.url));

function javaPayload(): Buffer {
  let text = '';
  for (let i = 0; i < 300; i++) text += `RocketMQ compressed body line ${i} 订单\n`;
  return Buffer.from(text, 'utf8');
}

const PHYSICAL_OFFSET = 0x100000abc;
const JAVA_PROPERTIES = {
  color: '红',
  KEYS: 'order-1 order-2',
  UNIQ_KEY: '7F00000100002A9F0000000000000001',
  WAIT: 'true',
  TAGS: 'TagA',
};

function only(buffer: Buffer): MessageExt {
  const { messages, error } = decodeMessages(buffer);
  expect(error).toBeUndefined();
  expect(messages).toHaveLength(1);
  const [message] = messages;
  if (message === undefined) throw new Error('no message');
  return message;
}

/** A v2 record written field by field from the layout of docs/protocol.md, "Stored messages". */
function handBuiltV2(topic: string, body: Buffer, properties: string): Buffer {
  const parts: Buffer[] = [];
  const int = (value: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(value);
    parts.push(b);
  };
  const long = (value: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(value);
    parts.push(b);
  };
  const topicBytes = Buffer.from(topic, 'utf8');
  const propertiesBytes = Buffer.from(properties, 'utf8');
  int(0); // TOTALSIZE, patched below
  int(0xdaa320ab | 0); // MAGICCODE v2
  int(123); // BODYCRC
  int(1); // QUEUEID
  int(0); // FLAG
  long(9n); // QUEUEOFFSET
  long(77n); // PHYSICALOFFSET
  int(0); // SYSFLAG
  long(1n); // BORNTIMESTAMP
  parts.push(Buffer.from([127, 0, 0, 1]));
  int(40000); // BORNHOST
  long(2n); // STORETIMESTAMP
  parts.push(Buffer.from([10, 1, 2, 3]));
  int(10911); // STOREHOST
  int(16); // RECONSUMETIMES
  long(0n); // PREPAREDTRANSACTIONOFFSET
  int(body.length);
  parts.push(body);
  const topicLength = Buffer.alloc(2);
  topicLength.writeInt16BE(topicBytes.length);
  parts.push(topicLength, topicBytes);
  const propertiesLength = Buffer.alloc(2);
  propertiesLength.writeInt16BE(propertiesBytes.length);
  parts.push(propertiesLength, propertiesBytes);
  const record = Buffer.concat(parts);
  record.writeInt32BE(record.length, 0);
  return record;
}

/** A decode error raised by the decoder's own checks, not a RangeError/TypeError it caught. */
function expectCleanError(error: MessageDecodeError): void {
  expect(error).toBeInstanceOf(MessageDecodeError);
  expect(error.message).not.toMatch(/unexpected decoder failure/);
  if (error.cause !== undefined) expect(error.cause).toBeInstanceOf(ProtocolError);
}

describe('magic codes (docs/protocol.md, test vectors)', () => {
  it('are daa320a7, daa320ab and cbd43194 as signed ints', () => {
    expect(MESSAGE_MAGIC_CODE_V1).toBe(-626843481);
    expect(MESSAGE_MAGIC_CODE_V2).toBe(-626843477);
    expect(BLANK_MAGIC_CODE).toBe(-875286124);
  });
});

describe('decodeMessages on records written by Java MessageDecoder.encode', () => {
  it('v1 record with IPv4 hosts, tags, keys and user properties', () => {
    const bytes = fixture('v1-ipv4.bin');
    expect(bytes.readInt32BE(4)).toBe(MESSAGE_MAGIC_CODE_V1);
    const m = only(bytes);
    expect(m).toMatchObject({
      topic: 'TopicTest',
      queueId: 3,
      flag: 7,
      queueOffset: 42,
      physicalOffset: PHYSICAL_OFFSET,
      sysFlag: 0,
      bornTimestamp: 1700000000123,
      bornHost: '192.0.2.10:54321',
      storeTimestamp: 1700000000456,
      storeHost: '198.51.100.7:10911',
      reconsumeTimes: 2,
      preparedTransactionOffset: 0,
      bodyCrc: 907060870,
      storeSize: 198,
      offsetMsgId: 'C633640700002A9F0000000100000ABC',
      msgId: JAVA_PROPERTIES.UNIQ_KEY,
      tags: 'TagA',
      keys: ['order-1', 'order-2'],
    });
    expect(m.properties).toEqual(JAVA_PROPERTIES);
    expect(m.body.toString()).toBe('hello');
  });

  it('uncompressed bodies are views of the pull buffer, not copies', () => {
    const bytes = fixture('v1-ipv4.bin');
    const m = only(bytes);
    expect(m.body.buffer).toBe(bytes.buffer);
  });

  it('IPv6 born and store hosts (SYSFLAG bits 4 and 5)', () => {
    const m = only(fixture('v1-ipv6.bin'));
    expect(m.sysFlag).toBe(MessageSysFlag.BORNHOST_V6 | MessageSysFlag.STOREHOST_V6);
    expect(m.bornHost).toBe('[2001:db8::1]:54321');
    expect(m.storeHost).toBe('[2001:db8::2:7]:10911');
    expect(m.offsetMsgId).toBe('20010DB8000000000000000000020007' + '00002A9F' + '0000000100000ABC');
    expect(m.storeTimestamp).toBe(1700000000456);
    expect(m.body.toString()).toBe('hello');
    expect(m.properties).toEqual(JAVA_PROPERTIES);
  });

  it.each([
    ['v1-zlib.bin', MessageSysFlag.COMPRESSION_ZLIB],
    ['v1-zlib-type0.bin', 0],
    ['v1-lz4.bin', MessageSysFlag.COMPRESSION_LZ4],
    ['v1-zstd.bin', MessageSysFlag.COMPRESSION_ZSTD],
  ])('%s: decompresses the body and clears COMPRESSED', (name, typeBits) => {
    const m = only(fixture(name));
    expect(m.body.equals(javaPayload())).toBe(true);
    expect(m.sysFlag).toBe(typeBits);
    expect(m.tags).toBe('TagA');
  });

  it('expands an inner batch into messages at queue offsets base + i', () => {
    const { messages, error } = decodeMessages(fixture('v1-inner-batch.bin'));
    expect(error).toBeUndefined();
    expect(messages.map((m) => m.queueOffset)).toEqual([100, 101, 102]);
    messages.forEach((m, i) => {
      expect(m.topic).toBe('TopicTest');
      expect(m.queueId).toBe(3);
      expect(m.flag).toBe(i);
      expect(m.body.toString()).toBe(`inner ${i}`);
      expect(m.tags).toBe('TagB');
      expect(m.keys).toEqual([`key-${i}`]);
      expect(m.properties.index).toBe(String(i));
      expect(m.msgId).toBe(`7F00000100002A9F00000000000000${10 + i}`);
      expect(m.physicalOffset).toBe(PHYSICAL_OFFSET);
      expect(m.storeHost).toBe('198.51.100.7:10911');
      expect(m.bornTimestamp).toBe(1700000000123);
      expect(m.offsetMsgId).toBe('C633640700002A9F0000000100000ABC');
    });
  });

  it('decodes concatenated records in order', () => {
    const body = Buffer.concat([
      fixture('v1-ipv4.bin'),
      fixture('v1-zstd.bin'),
      fixture('v1-inner-batch.bin'),
    ]);
    const { messages, error } = decodeMessages(body);
    expect(error).toBeUndefined();
    expect(messages).toHaveLength(5);
  });
});

describe('hand-built records', () => {
  it('v2 record with a topic longer than 127 chars (2-byte topic length)', () => {
    const topic = `%RETRY%${'g'.repeat(150)}`;
    const m = only(
      handBuiltV2(topic, Buffer.from('x'), 'UNIQ_KEY\u0001ABC\u0002RETRY_TOPIC\u0001orders\u0002'),
    );
    expect(m.topic).toBe(topic);
    expect(m.msgId).toBe('ABC');
    expect(m.reconsumeTimes).toBe(16);
    expect(m.bornHost).toBe('127.0.0.1:40000');
    expect(m.offsetMsgId).toBe('0A01020300002A9F000000000000004D');
    expect(m.tags).toBeUndefined();
    expect(m.keys).toEqual([]);
  });

  it('empty body, empty properties: msgId falls back to the offset msg id', () => {
    const m = only(handBuiltV2('t', Buffer.alloc(0), ''));
    expect(m.body).toHaveLength(0);
    expect(m.properties).toEqual({});
    expect(m.msgId).toBe(m.offsetMsgId);
  });
});

describe('bad records', () => {
  const good = Buffer.concat([fixture('v1-ipv4.bin'), fixture('v1-ipv6.bin'), fixture('v1-inner-batch.bin')]);
  const boundaries = [0, 198, 198 + 222, good.length];

  it('every truncation yields the complete records before the cut and an error, never a throw', () => {
    for (let length = 0; length <= good.length; length++) {
      const { messages, error } = decodeMessages(good.subarray(0, length));
      const complete = boundaries.filter((b) => b > 0 && b <= length).length;
      expect(messages).toHaveLength(complete === 3 ? 5 : complete);
      if (boundaries.includes(length)) expect(error).toBeUndefined();
      else expect(error).toBeInstanceOf(MessageDecodeError);
    }
  }, 30_000);

  it('names the byte offset of the bad record, and stops there', () => {
    const bad = Buffer.from(good);
    bad.writeInt32BE(BLANK_MAGIC_CODE, 198 + 4);
    const { messages, error } = decodeMessages(bad);
    expect(messages).toHaveLength(1);
    expect(error?.byteOffset).toBe(198);
    expect(error?.message).toMatch(/blank magic/);
  });

  it('a body that fails to decompress names its queue and physical offsets', () => {
    const broken = Buffer.from(fixture('v1-zlib.bin'));
    broken[200] = (broken[200] ?? 0) ^ 0xff; // inside the deflate stream
    broken[201] = (broken[201] ?? 0) ^ 0xff;
    const { messages, error } = decodeMessages(
      Buffer.concat([fixture('v1-ipv4.bin'), broken, fixture('v1-ipv6.bin')]),
    );
    expect(messages).toHaveLength(1);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error?.byteOffset).toBe(198);
    expect(error?.queueOffset).toBe(42);
    expect(error?.physicalOffset).toBe(PHYSICAL_OFFSET);
    expect(error?.cause).toBeInstanceOf(ProtocolError);
    expect(error?.message).toMatch(/queueOffset 42/);
  });

  it('a body above the size cap is reported as too large, with every field but the body', () => {
    const { messages, error, tooLarge } = decodeMessages(fixture('v1-zstd.bin'), { maxBodyBytes: 1000 });
    expect(error).toBeUndefined();
    expect(messages).toHaveLength(0);
    expect(tooLarge).toHaveLength(1);
    const [entry] = tooLarge ?? [];
    expect(entry?.message.queueOffset).toBe(42);
    expect(entry?.message.physicalOffset).toBe(PHYSICAL_OFFSET);
    expect(entry?.message.body).toHaveLength(0);
    expect(entry?.message.properties).toEqual(JAVA_PROPERTIES);
    expect(entry?.message.msgId).toBe(JAVA_PROPERTIES.UNIQ_KEY);
    expect((entry?.message.sysFlag ?? 0) & MessageSysFlag.COMPRESSED).toBe(MessageSysFlag.COMPRESSED);
    expect(entry?.reason).toMatch(/^body inflates past 1000 bytes \(\d+ bytes of zstd as stored\)$/);
    expect(() => decodeMessage(fixture('v1-zstd.bin'), 0, { maxBodyBytes: 1000 })).toThrow(
      /queueOffset 42.*inflates past 1000 bytes/,
    );
  });

  it('rejects offsets beyond 2^53', () => {
    const bad = Buffer.from(fixture('v1-ipv4.bin'));
    bad.writeBigInt64BE(2n ** 60n, 20);
    const { messages, error } = decodeMessages(bad);
    expect(messages).toHaveLength(0);
    expect(error?.message).toMatch(/QUEUEOFFSET/);
  });

  it('checks BODYCRC only when asked', () => {
    const bad = Buffer.from(fixture('v1-ipv4.bin'));
    bad[0x58] = 'j'.charCodeAt(0); // 'hello' -> 'jello'
    expect(decodeMessages(bad).error).toBeUndefined();
    expect(decodeMessages(bad, { checkBodyCrc: true }).error?.message).toMatch(/BODYCRC/);
    expect(decodeMessages(fixture('v1-ipv4.bin'), { checkBodyCrc: true }).error).toBeUndefined();
  });

  it('a malformed inner batch keeps the entries before the bad one and names the bad offset', () => {
    const bad = Buffer.from(fixture('v1-inner-batch.bin'));
    const batchStart = bad.indexOf(Buffer.from('inner 1')) - 20; // second entry's TOTALSIZE
    bad.writeInt32BE(9999, batchStart);
    const { messages, error } = decodeMessages(bad);
    expect(messages.map((m) => m.queueOffset)).toEqual([100]);
    expect(error?.queueOffset).toBe(101);
  });

  it('decodeMessage throws MessageDecodeError and decodeMessages never throws on random bytes', () => {
    expect(() => decodeMessage(Buffer.alloc(10), 0)).toThrow(MessageDecodeError);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const result = decodeMessages(Buffer.from(bytes));
        if (result.error !== undefined) expectCleanError(result.error);
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws on valid bodies with random bytes overwritten', () => {
    const all = Buffer.concat([good, fixture('v1-lz4.bin'), fixture('v1-zstd.bin'), fixture('v1-zlib.bin')]);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(all.length - 1), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 6,
        }),
        (edits) => {
          const bytes = Buffer.from(all);
          for (const [position, value] of edits) bytes[position] = value;
          const result = decodeMessages(bytes);
          if (result.error !== undefined) expectCleanError(result.error);
          for (const m of result.messages) expect(typeof m.msgId).toBe('string');
        },
      ),
      { numRuns: 300 },
    );
  }, 30_000);
});
