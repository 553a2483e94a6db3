import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import {
  checkJsonHeaderShape,
  MAX_HEADER_BYTES,
  MAX_HEADER_FIELDS,
} from '../../../src/protocol/header-limits.js';
import {
  decodeFrame,
  encodeFrame,
  FLAG_RESPONSE,
  type RemotingCommand,
  SerializeType,
} from '../../../src/protocol/remoting-command.js';
import { expectProtocolError } from '../../support/expect-protocol-error.js';

/** The members of an encoded JSON header besides extFields' own: code, language, version, opaque, flag, extFields. */
const JSON_OWN_FIELDS = 6;

const RESPONSE: RemotingCommand = {
  code: 0,
  language: 'JAVA',
  version: 479,
  opaque: 7,
  flag: FLAG_RESPONSE,
  extFields: {},
};

/** A frame without its length prefix (what decodeFrame takes). */
function encoded(command: RemotingCommand): Buffer {
  return encodeFrame(command).subarray(4);
}

/** `count` extFields `k0..`, each value `value`. */
function fields(count: number, value = 'v'): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) out[`k${i}`] = value;
  return out;
}

/** The header length a frame announces in its header word. */
function headerLength(frame: Buffer): number {
  return frame.readUInt32BE(0) & 0xffffff;
}

/** A response whose header is exactly `bytes` long: its remark fills what the rest leaves. */
function withHeaderBytes(serializeType: SerializeType, bytes: number, extFields = {}): Buffer {
  const without = headerLength(encoded({ ...RESPONSE, serializeType, extFields, remark: '' }));
  const frame = encoded({ ...RESPONSE, serializeType, extFields, remark: 'r'.repeat(bytes - without) });
  expect(headerLength(frame)).toBe(bytes);
  return frame;
}

const SERIALIZATIONS = [
  ['JSON', SerializeType.JSON],
  ['ROCKETMQ binary', SerializeType.ROCKETMQ],
] as const;

describe('header byte cap (MAX_HEADER_BYTES)', () => {
  for (const [name, serializeType] of SERIALIZATIONS) {
    it(`accepts a ${name} header of exactly the cap`, () => {
      const command = decodeFrame(withHeaderBytes(serializeType, MAX_HEADER_BYTES, { msgId: 'm' }));
      expect(command.remark?.length).toBeGreaterThan(MAX_HEADER_BYTES - 200);
      expect(command.extFields).toEqual({ msgId: 'm' });
    });

    it(`refuses a ${name} header one byte over the cap, naming both sizes`, () => {
      const error = expectProtocolError(() =>
        decodeFrame(withHeaderBytes(serializeType, MAX_HEADER_BYTES + 1)),
      );
      expect(error.message).toBe(
        `header of ${MAX_HEADER_BYTES + 1} bytes exceeds the cap of ${MAX_HEADER_BYTES} bytes on incoming headers`,
      );
    });
  }

  it('refuses an over-cap header before looking at it: its bytes need not even be valid', () => {
    const frame = Buffer.alloc(4 + MAX_HEADER_BYTES + 1, 0x5b); // '[' everywhere: no JSON at all
    frame.writeUInt32BE(MAX_HEADER_BYTES + 1, 0);
    expect(expectProtocolError(() => decodeFrame(frame)).message).toMatch(/exceeds the cap/);
  });
});

describe('header field cap (MAX_HEADER_FIELDS)', () => {
  it('accepts a JSON header of exactly the cap, its own fields counted', () => {
    const extFields = fields(MAX_HEADER_FIELDS - JSON_OWN_FIELDS);
    expect(decodeFrame(encoded({ ...RESPONSE, extFields })).extFields).toEqual(extFields);
  });

  it('refuses a JSON header with one field more, naming its size and the cap', () => {
    const frame = encoded({ ...RESPONSE, extFields: fields(MAX_HEADER_FIELDS - JSON_OWN_FIELDS + 1) });
    expect(expectProtocolError(() => decodeFrame(frame)).message).toBe(
      `JSON header of ${headerLength(frame)} bytes has more than ${MAX_HEADER_FIELDS} fields (the cap)`,
    );
  });

  it('accepts a binary header of exactly the cap of extFields', () => {
    const extFields = fields(MAX_HEADER_FIELDS);
    const frame = encoded({ ...RESPONSE, extFields, serializeType: SerializeType.ROCKETMQ });
    expect(decodeFrame(frame).extFields).toEqual(extFields);
  });

  it('refuses a binary header with one extField more, naming its size and the cap', () => {
    const frame = encoded({
      ...RESPONSE,
      extFields: fields(MAX_HEADER_FIELDS + 1),
      serializeType: SerializeType.ROCKETMQ,
    });
    expect(expectProtocolError(() => decodeFrame(frame)).message).toBe(
      `binary header of ${headerLength(frame)} bytes has more than ${MAX_HEADER_FIELDS} extFields (the cap)`,
    );
  });

  it('counts entries a binary header carries empty (dropped from extFields) too', () => {
    const frame = encoded({
      ...RESPONSE,
      extFields: fields(MAX_HEADER_FIELDS + 1, ''),
      serializeType: SerializeType.ROCKETMQ,
    });
    expect(expectProtocolError(() => decodeFrame(frame)).message).toMatch(/more than 1024 extFields/);
  });

  it('does not count what JSON strings hold: colons, brackets, braces, escaped quotes', () => {
    const tricky = '":[{\\"}]:\\\\'.repeat(3000);
    const command = decodeFrame(encoded({ ...RESPONSE, remark: tricky, extFields: { [tricky]: tricky } }));
    expect(command.remark).toBe(tricky);
    expect(command.extFields).toEqual({ [tricky]: tricky });
  });
});

describe('checkJsonHeaderShape', () => {
  it('refuses an array and an object nested inside extFields, saying where', () => {
    expect(expectProtocolError(() => checkJsonHeaderShape(Buffer.from('{"code":0,"x":[0,0]}'))).message).toBe(
      'JSON header of 20 bytes holds an array at byte 14; a remoting header holds none',
    );
    expect(
      expectProtocolError(() => checkJsonHeaderShape(Buffer.from('{"extFields":{"a":{}}}'))).message,
    ).toBe(
      'JSON header of 22 bytes nests an object inside extFields at byte 18; a remoting header holds none',
    );
  });

  it('leaves an unterminated string to JSON.parse', () => {
    expect(() => checkJsonHeaderShape(Buffer.from('{"code":"\\"'))).not.toThrow();
    expect(() => checkJsonHeaderShape(Buffer.from('{"code":"\\'))).not.toThrow();
    expect(() =>
      decodeFrame(Buffer.concat([Buffer.from([0, 0, 0, 10]), Buffer.from('{"code":"\\')])),
    ).toThrow(ProtocolError);
  });

  it('counts exactly the members of any two-level object, whatever its strings hold', () => {
    const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', ':', '[', '{', '}', ']', 'é', ' ') });
    const scalar = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null));
    const object = fc.dictionary(text, fc.oneof(scalar, fc.dictionary(text, scalar, { maxKeys: 6 })), {
      maxKeys: 8,
    });
    fc.assert(
      fc.property(object, (value) => {
        let members = 0;
        for (const inner of Object.values(value)) {
          members++;
          if (typeof inner === 'object' && inner !== null) members += Object.keys(inner).length;
        }
        const header = Buffer.from(JSON.stringify(value));
        checkJsonHeaderShape(header, members);
        if (members > 0) expect(() => checkJsonHeaderShape(header, members - 1)).toThrow(ProtocolError);
      }),
      { numRuns: 500 },
    );
  });
});
