import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import {
  CLIENT_LANGUAGE,
  CLIENT_VERSION,
  decodeFrame,
  encodeFrame,
  FrameSplitter,
  isOneway,
  isResponse,
  MAX_FRAME_LENGTH,
  type RemotingCommand,
  SerializeType,
  toExtFields,
} from '../../../src/protocol/remoting-command.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

/** A whole frame (length prefix included) with the given JSON header and body. */
function jsonFrame(header: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.from(header, 'utf8');
  const prefix = Buffer.alloc(8);
  prefix.writeInt32BE(4 + h.length + body.length, 0);
  prefix.writeInt32BE(h.length, 4);
  return Buffer.concat([prefix, h, body]);
}

const withoutPrefix = (frame: Buffer): Buffer => frame.subarray(4);

function expectProtocolErrorOrValue(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ProtocolError);
  }
}

// The test vectors of docs/protocol.md: GET_ROUTEINFO_BY_TOPIC for TopicTest, as fastjson writes it.
const DOC_JSON_HEADER =
  '{"code":105,"extFields":{"topic":"TopicTest"},"flag":0,"language":"JAVA","opaque":1,"version":401}';
// The same request with the ROCKETMQ binary header.
const DOC_BINARY_FRAME = hex(
  '0000002d 01000029 0069 00 0191 00000001 00000000 00000000 00000014 0005 746f706963 00000009 546f70696354657374',
);
const ROUTE_REQUEST: RemotingCommand = {
  code: 105,
  language: 'JAVA',
  version: 401,
  opaque: 1,
  flag: 0,
  extFields: { topic: 'TopicTest' },
};

describe('encodeFrame / decodeFrame: JSON header (docs/protocol.md test vector)', () => {
  it('encodes the doc example with the documented prefix and an equivalent header', () => {
    const frame = encodeFrame(ROUTE_REQUEST);
    expect(frame.subarray(0, 8).toString('hex')).toBe('0000006600000062');
    expect(frame.length).toBe(4 + 0x66);
    expect(JSON.parse(frame.subarray(8).toString('utf8'))).toEqual(JSON.parse(DOC_JSON_HEADER));
  });

  it('decodes the doc bytes (alphabetical field order)', () => {
    const frame = jsonFrame(DOC_JSON_HEADER);
    expect(frame.subarray(0, 8).toString('hex')).toBe('0000006600000062');
    expect(decodeFrame(withoutPrefix(frame))).toEqual({
      ...ROUTE_REQUEST,
      serializeType: SerializeType.JSON,
    });
  });

  it('decodes a Java broker success response (serializeTypeCurrentRPC, no remark, body)', () => {
    // fastjson output of a 5.3.3 broker's SEND_MESSAGE response: alphabetical keys, null fields omitted,
    // extFields in HashMap order, transient body outside the header.
    const header =
      '{"code":0,"extFields":{"queueId":"1","TRAN_MSG":"false","MSG_REGION":"DefaultRegion",' +
      '"msgId":"7F00000100002A9F0000000000000000","queueOffset":"12"},"flag":1,"language":"JAVA",' +
      '"opaque":7,"serializeTypeCurrentRPC":"JSON","version":479}';
    const body = Buffer.from([0, 1, 2, 255]);
    const command = decodeFrame(withoutPrefix(jsonFrame(header, body)));
    expect(command).toMatchObject({ code: 0, flag: 1, opaque: 7, version: 479, language: 'JAVA' });
    expect(command.remark).toBeUndefined();
    expect(command.extFields).toEqual({
      queueId: '1',
      TRAN_MSG: 'false',
      MSG_REGION: 'DefaultRegion',
      msgId: '7F00000100002A9F0000000000000000',
      queueOffset: '12',
    });
    expect(command.body).toEqual(body);
    expect(isResponse(command)).toBe(true);
    expect(isOneway(command)).toBe(false);
  });

  it('decodes a Java name server error response with remark and no extFields', () => {
    const header =
      '{"code":17,"flag":1,"language":"JAVA","opaque":3,"remark":"No topic route info in name server for ' +
      'the topic: Nope\\nSee http://rocketmq.apache.org/docs/faq/ for further details.",' +
      '"serializeTypeCurrentRPC":"JSON","version":479}';
    const command = decodeFrame(withoutPrefix(jsonFrame(header)));
    expect(command.code).toBe(17);
    expect(command.remark).toBe(
      'No topic route info in name server for the topic: Nope\nSee http://rocketmq.apache.org/docs/faq/ for further details.',
    );
    expect(command.extFields).toEqual({});
    expect(command.body).toBeUndefined();
  });

  it('treats null extFields and null remark as absent, and stringifies scalar extFields', () => {
    const command = decodeFrame(
      withoutPrefix(jsonFrame('{"code":0,"extFields":null,"flag":1,"opaque":2,"remark":null}')),
    );
    expect(command.extFields).toEqual({});
    expect(command.remark).toBeUndefined();
    expect(command.version).toBe(0);
    const numeric = decodeFrame(
      withoutPrefix(jsonFrame('{"code":0,"extFields":{"n":5,"b":true,"z":null},"opaque":2}')),
    );
    expect(numeric.extFields).toEqual({ n: '5', b: 'true' });
  });

  it('keeps non-ASCII text as UTF-8 and counts bytes, not characters, in the header length', () => {
    const frame = encodeFrame({ ...ROUTE_REQUEST, remark: '订单 ✓', extFields: { tag: '订单' } });
    expect(frame.readInt32BE(4)).toBe(frame.length - 8);
    const decoded = decodeFrame(withoutPrefix(frame));
    expect(decoded.remark).toBe('订单 ✓');
    expect(decoded.extFields).toEqual({ tag: '订单' });
  });

  it('keeps an extFields key named __proto__ as an own field (both codecs, and toExtFields)', () => {
    const extFields = JSON.parse('{"__proto__":"x","a":"b"}') as Record<string, string>;
    for (const serializeType of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
      const decoded = decodeFrame(withoutPrefix(encodeFrame({ ...ROUTE_REQUEST, extFields, serializeType })));
      expect(Object.keys(decoded.extFields).sort()).toEqual(['__proto__', 'a']);
      expect(Object.getPrototypeOf(decoded.extFields)).toBe(Object.prototype);
    }
    expect(Object.keys(toExtFields(extFields)).sort()).toEqual(['__proto__', 'a']);
  });

  it('rejects malformed JSON headers with ProtocolError', () => {
    for (const header of [
      'not json',
      '[]',
      'null',
      '{"code":"105","opaque":1}',
      '{"code":105}',
      '{"code":1.5,"opaque":1}',
      '{"code":1,"opaque":1,"remark":5}',
      '{"code":1,"opaque":1,"extFields":[]}',
      '{"code":1,"opaque":1,"extFields":{"a":{"b":"c"}}}',
    ]) {
      expect(() => decodeFrame(withoutPrefix(jsonFrame(header))), header).toThrow(ProtocolError);
    }
  });
});

describe('encodeFrame / decodeFrame: ROCKETMQ binary header (docs/protocol.md test vector)', () => {
  it('encodes the doc example byte for byte', () => {
    expect(encodeFrame({ ...ROUTE_REQUEST, serializeType: SerializeType.ROCKETMQ })).toEqual(
      DOC_BINARY_FRAME,
    );
  });

  it('decodes the doc example', () => {
    expect(decodeFrame(withoutPrefix(DOC_BINARY_FRAME))).toEqual({
      ...ROUTE_REQUEST,
      serializeType: SerializeType.ROCKETMQ,
    });
  });

  it('decodes a binary response with remark, body and a zero-length (null) value', () => {
    const entries = hex('0001 61 00000001 62   0001 63 00000000');
    const extLength = Buffer.alloc(4);
    extLength.writeInt32BE(entries.length, 0);
    const header = Buffer.concat([
      hex('0011 00 01df 00000009 00000001'),
      hex('00000004'),
      Buffer.from('busy', 'utf8'),
      extLength,
      entries,
    ]);
    const body = Buffer.from('payload');
    const word = Buffer.alloc(4);
    word.writeUInt32BE((0x01000000 | header.length) >>> 0, 0);
    const command = decodeFrame(Buffer.concat([word, header, body]));
    expect(command).toMatchObject({ code: 17, language: 'JAVA', version: 479, opaque: 9, flag: 1 });
    expect(command.remark).toBe('busy');
    expect(command.extFields).toEqual({ a: 'b' });
    expect(command.body?.toString()).toBe('payload');
  });

  it('maps an unknown language byte to OTHER and a NODE_JS byte to NODE_JS', () => {
    const frame = withoutPrefix(Buffer.from(DOC_BINARY_FRAME));
    frame[6] = 13;
    expect(decodeFrame(frame).language).toBe('NODE_JS');
    frame[6] = 99;
    expect(decodeFrame(frame).language).toBe('OTHER');
  });

  it('rejects out-of-range remark and extFields lengths', () => {
    const base = withoutPrefix(DOC_BINARY_FRAME);
    const badRemark = Buffer.from(base);
    badRemark.writeInt32BE(1000, 4 + 13);
    expect(() => decodeFrame(badRemark)).toThrow(ProtocolError);
    const negativeRemark = Buffer.from(base);
    negativeRemark.writeInt32BE(-1, 4 + 13);
    expect(() => decodeFrame(negativeRemark)).toThrow(ProtocolError);
    const badExt = Buffer.from(base);
    badExt.writeInt32BE(1000, 4 + 17);
    expect(() => decodeFrame(badExt)).toThrow(ProtocolError);
    const badKey = Buffer.from(base);
    badKey.writeInt16BE(100, 4 + 21);
    expect(() => decodeFrame(badKey)).toThrow(ProtocolError);
  });

  it('refuses to encode what the binary header cannot hold', () => {
    expect(() =>
      encodeFrame({ ...ROUTE_REQUEST, code: 200050, serializeType: SerializeType.ROCKETMQ }),
    ).toThrow(ProtocolError);
    expect(() =>
      encodeFrame({ ...ROUTE_REQUEST, language: 'COBOL', serializeType: SerializeType.ROCKETMQ }),
    ).toThrow(ProtocolError);
    expect(() =>
      encodeFrame({ ...ROUTE_REQUEST, version: 40000, serializeType: SerializeType.ROCKETMQ }),
    ).toThrow(ProtocolError);
  });
});

describe('encodeFrame / decodeFrame: limits and frame structure', () => {
  it('rejects unknown serialize types and header lengths beyond the frame', () => {
    const frame = withoutPrefix(jsonFrame(DOC_JSON_HEADER));
    const unknownType = Buffer.from(frame);
    unknownType[0] = 2;
    expect(() => decodeFrame(unknownType)).toThrow(ProtocolError);
    const longHeader = Buffer.from(frame);
    longHeader.writeUInt32BE(frame.length, 0);
    expect(() => decodeFrame(longHeader)).toThrow(ProtocolError);
    expect(() => decodeFrame(Buffer.from([0, 0]))).toThrow(ProtocolError);
  });

  it('refuses to encode a frame above the 16 MiB cap', () => {
    const body = Buffer.alloc(MAX_FRAME_LENGTH);
    expect(() => encodeFrame({ ...ROUTE_REQUEST, body })).toThrow(ProtocolError);
  });

  it('refuses to encode header integers that do not fit a Java int', () => {
    expect(() => encodeFrame({ ...ROUTE_REQUEST, opaque: 2 ** 31 })).toThrow(ProtocolError);
    expect(() => encodeFrame({ ...ROUTE_REQUEST, code: 1.5 })).toThrow(ProtocolError);
    expect(() =>
      encodeFrame({ ...ROUTE_REQUEST, opaque: 2 ** 31, serializeType: SerializeType.ROCKETMQ }),
    ).toThrow(ProtocolError);
  });

  it('omits an empty body and empty extFields', () => {
    const frame = encodeFrame({ ...ROUTE_REQUEST, extFields: {}, body: Buffer.alloc(0) });
    const header = JSON.parse(frame.subarray(8).toString('utf8')) as Record<string, unknown>;
    expect(header.extFields).toBeUndefined();
    expect(frame.readInt32BE(0)).toBe(4 + frame.readInt32BE(4));
  });

  it('exposes the client identity constants', () => {
    expect(CLIENT_VERSION).toBe(401);
    expect(CLIENT_LANGUAGE).toBe('JAVA');
  });

  it('toExtFields stringifies values and drops null/undefined', () => {
    expect(toExtFields({ topic: 'T', queueId: 0, commit: true, skip: undefined, none: null })).toEqual({
      topic: 'T',
      queueId: '0',
      commit: 'true',
    });
  });
});

describe('FrameSplitter', () => {
  const frames = [
    encodeFrame(ROUTE_REQUEST),
    DOC_BINARY_FRAME,
    encodeFrame({
      ...ROUTE_REQUEST,
      opaque: 2,
      flag: 1,
      body: Buffer.from('a body with bytes \u0000\u00ff'),
    }),
  ];
  const stream = Buffer.concat(frames);

  it('yields every frame when the stream is split at every possible pair of boundaries', () => {
    for (let a = 0; a <= stream.length; a++) {
      for (let b = a; b <= stream.length; b += 7) {
        const splitter = new FrameSplitter();
        const out = [
          ...splitter.push(stream.subarray(0, a)),
          ...splitter.push(stream.subarray(a, b)),
          ...splitter.push(stream.subarray(b)),
        ];
        expect(out.map((f) => f.toString('hex'))).toEqual(
          frames.map((f) => withoutPrefix(f).toString('hex')),
        );
        expect(splitter.pendingBytes).toBe(0);
      }
    }
  });

  it('handles one-byte chunks and several frames in one chunk', () => {
    const splitter = new FrameSplitter();
    const out: Buffer[] = [];
    for (const byte of stream) out.push(...splitter.push(Buffer.from([byte])));
    expect(out).toHaveLength(3);
    const all = new FrameSplitter().push(Buffer.concat([stream, stream]));
    expect(all).toHaveLength(6);
    expect(decodeFrame(all[4] as Buffer).opaque).toBe(1);
  });

  it('keeps a partial frame pending', () => {
    const splitter = new FrameSplitter();
    expect(splitter.push(stream.subarray(0, 10))).toEqual([]);
    expect(splitter.pendingBytes).toBe(10);
    expect(splitter.push(Buffer.alloc(0))).toEqual([]);
  });

  it('rejects negative, too small and over-cap lengths', () => {
    for (const length of [-1, -0x7fffffff, 0, 3, MAX_FRAME_LENGTH + 1, 0x7fffffff]) {
      const prefix = Buffer.alloc(4);
      prefix.writeInt32BE(length, 0);
      expect(() => new FrameSplitter().push(prefix), String(length)).toThrow(ProtocolError);
    }
    const small = new FrameSplitter(100);
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(101, 0);
    expect(() => small.push(prefix)).toThrow(ProtocolError);
  });

  it('accepts exactly the cap', () => {
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(MAX_FRAME_LENGTH, 0);
    const splitter = new FrameSplitter();
    expect(splitter.push(prefix)).toEqual([]);
  });

  it('append + next hand out one frame at a time and keep the rest buffered', () => {
    const splitter = new FrameSplitter();
    splitter.append(stream);
    expect(splitter.pendingBytes).toBe(stream.length);
    const first = splitter.next();
    expect(first?.toString('hex')).toBe(withoutPrefix(frames[0] as Buffer).toString('hex'));
    expect(splitter.pendingBytes).toBe(stream.length - (frames[0] as Buffer).length);
    expect(splitter.next()).toBeDefined();
    expect(splitter.next()).toBeDefined();
    expect(splitter.next()).toBeUndefined();
    expect(splitter.pendingBytes).toBe(0);
  });

  it('expectedBytes tells the size of the frame being assembled once its prefix is in', () => {
    const splitter = new FrameSplitter();
    const frame = frames[2] as Buffer;
    expect(splitter.expectedBytes).toBeUndefined();
    splitter.append(frame.subarray(0, 2));
    expect(splitter.expectedBytes).toBeUndefined();
    splitter.append(frame.subarray(2, 9));
    expect(splitter.next()).toBeUndefined();
    expect(splitter).toMatchObject({ pendingBytes: 9, expectedBytes: frame.length });
    splitter.append(frame.subarray(9));
    expect(splitter.next()).toBeDefined();
    expect(splitter.expectedBytes).toBeUndefined();
  });

  it('next() throws ProtocolError on a bad prefix, like push()', () => {
    const splitter = new FrameSplitter();
    splitter.append(Buffer.from([0x16, 0x03, 0x01, 0x00]));
    expect(() => splitter.next()).toThrow(ProtocolError);
  });

  it('hands out the frames before a bad prefix, then throws', () => {
    const splitter = new FrameSplitter();
    splitter.append(Buffer.concat([stream, Buffer.from([0xff, 0xff, 0xff, 0xff]), stream]));
    expect(splitter.next()?.toString('hex')).toBe(withoutPrefix(frames[0] as Buffer).toString('hex'));
    expect(splitter.next()).toBeDefined();
    expect(splitter.next()).toBeDefined();
    expect(() => splitter.next()).toThrow(/frame length -1/);
  });

  it('keeps nothing of a chunk: every chunk may be read into one reused buffer', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 300 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 20 }),
        (bodies, readSizes) => {
          const sent = bodies.map((body, opaque) =>
            encodeFrame({ ...ROUTE_REQUEST, opaque, body: Buffer.from(body) }),
          );
          const wire = Buffer.concat(sent);
          // One read buffer, as a plaintext socket link has; filled with garbage before every read.
          const readBuffer = Buffer.alloc(97);
          const splitter = new FrameSplitter();
          const received: Buffer[] = [];
          for (let position = 0, read = 0; position < wire.length; read++) {
            const size = Math.min(readSizes[read % readSizes.length] as number, wire.length - position);
            readBuffer.fill(0xa5);
            wire.copy(readBuffer, 0, position, position + size);
            position += size;
            splitter.append(readBuffer, size);
            for (let frame = splitter.next(); frame !== undefined; frame = splitter.next())
              received.push(frame);
          }
          readBuffer.fill(0x5a);
          expect(received.map((frame) => frame.toString('hex'))).toEqual(
            sent.map((frame) => withoutPrefix(frame).toString('hex')),
          );
          for (const frame of received) expect(frame.buffer).not.toBe(readBuffer.buffer);
          expect(splitter.pendingBytes).toBe(0);
        },
      ),
    );
  });

  it('counts the frames not yet taken and a partial one in pendingBytes, and knows the head frame size', () => {
    const splitter = new FrameSplitter();
    const first = frames[0] as Buffer;
    splitter.append(Buffer.concat([first, (frames[1] as Buffer).subarray(0, 6)]));
    expect(splitter.pendingBytes).toBe(first.length + 6);
    expect(splitter.expectedBytes).toBe(first.length);
    expect(splitter.next()).toBeDefined();
    expect(splitter.pendingBytes).toBe(6);
    expect(splitter.expectedBytes).toBe((frames[1] as Buffer).length);
    expect(splitter.next()).toBeUndefined();
  });
});

// Keys and values the binary codec can carry: it decodes zero-length strings as null (Java does too),
// so those do not round-trip there.
const extFieldsArb = (nonEmpty: boolean) =>
  fc.dictionary(
    fc.string({ unit: 'grapheme', minLength: nonEmpty ? 1 : 0 }),
    fc.string({ unit: 'grapheme', minLength: nonEmpty ? 1 : 0 }),
    {
      maxKeys: 8,
    },
  );

const commandArb = (binary: boolean) =>
  fc.record({
    code: binary
      ? fc.integer({ min: -0x8000, max: 0x7fff })
      : fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    language: fc.constantFrom('JAVA', 'GO', 'OTHER', 'NODE_JS'),
    version: binary
      ? fc.integer({ min: -0x8000, max: 0x7fff })
      : fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    opaque: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    flag: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    remark: fc.option(fc.string({ unit: 'grapheme', minLength: binary ? 1 : 0 }), { nil: undefined }),
    extFields: extFieldsArb(binary),
    body: fc.option(
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((a) => Buffer.from(a)),
      { nil: undefined },
    ),
  });

describe('properties', () => {
  for (const [name, serializeType] of [
    ['JSON', SerializeType.JSON],
    ['ROCKETMQ', SerializeType.ROCKETMQ],
  ] as const) {
    it(`encodeFrame/decodeFrame round-trip (${name})`, () => {
      fc.assert(
        fc.property(commandArb(serializeType === SerializeType.ROCKETMQ), (command) => {
          const frame = encodeFrame({ ...command, serializeType });
          const [only, ...rest] = new FrameSplitter().push(frame);
          expect(rest).toEqual([]);
          const decoded = decodeFrame(only as Buffer);
          expect(decoded.code).toBe(command.code);
          expect(decoded.language).toBe(command.language);
          expect(decoded.version).toBe(command.version);
          expect(decoded.opaque).toBe(command.opaque);
          expect(decoded.flag).toBe(command.flag);
          expect(decoded.remark).toBe(command.remark);
          expect(decoded.extFields).toEqual({ ...command.extFields });
          expect(Object.keys(decoded.extFields).sort()).toEqual(Object.keys(command.extFields).sort());
          expect(decoded.body).toEqual(command.body);
          expect(decoded.serializeType).toBe(serializeType);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('decodeFrame throws only ProtocolError on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expectProtocolErrorOrValue(() => decodeFrame(Buffer.from(bytes)));
      }),
      { numRuns: 2000 },
    );
  });

  it('decodeFrame throws only ProtocolError on random bytes behind a valid header word', () => {
    fc.assert(
      fc.property(fc.constantFrom(0, 1), fc.uint8Array({ maxLength: 120 }), (type, bytes) => {
        const frame = Buffer.alloc(4 + bytes.length);
        frame.writeUInt32BE(((type << 24) | bytes.length) >>> 0, 0);
        Buffer.from(bytes).copy(frame, 4);
        expectProtocolErrorOrValue(() => decodeFrame(frame));
      }),
      { numRuns: 2000 },
    );
  });

  it('every truncation and every single-byte corruption of valid frames gives a value or ProtocolError', () => {
    const samples = [
      withoutPrefix(DOC_BINARY_FRAME),
      withoutPrefix(encodeFrame({ ...ROUTE_REQUEST, remark: 'r', body: Buffer.from('xyz') })),
      withoutPrefix(
        encodeFrame({
          ...ROUTE_REQUEST,
          remark: 'r',
          body: Buffer.from('xyz'),
          serializeType: SerializeType.ROCKETMQ,
        }),
      ),
    ];
    for (const sample of samples) {
      for (let n = 0; n <= sample.length; n++)
        expectProtocolErrorOrValue(() => decodeFrame(sample.subarray(0, n)));
      for (let i = 0; i < sample.length; i++) {
        for (const value of [0x00, 0x7f, 0x80, 0xff]) {
          const corrupted = Buffer.from(sample);
          corrupted[i] = value;
          expectProtocolErrorOrValue(() => decodeFrame(corrupted));
        }
      }
    }
  });

  it('FrameSplitter throws only ProtocolError on random chunks and never loops', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 8 }), (chunks) => {
        const splitter = new FrameSplitter(1024);
        try {
          for (const chunk of chunks) {
            for (const frame of splitter.push(Buffer.from(chunk)))
              expectProtocolErrorOrValue(() => decodeFrame(frame));
          }
        } catch (err) {
          expect(err).toBeInstanceOf(ProtocolError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
