import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import {
  createOffsetMsgId,
  createUniqueId,
  createUniqueIdGenerator,
  decodeOffsetMsgId,
  formatHostPort,
  formatIpAddress,
  parseHostPort,
  parseIpAddress,
} from '../../../src/protocol/message-id.js';

describe('offset msg id', () => {
  it('matches the id Java computes for the v1-ipv4 fixture', () => {
    expect(createOffsetMsgId(parseIpAddress('198.51.100.7'), 10911, 0x100000abc)).toBe(
      'C633640700002A9F0000000100000ABC',
    );
    expect(decodeOffsetMsgId('C633640700002A9F0000000100000ABC')).toEqual({
      address: '198.51.100.7:10911',
      ip: '198.51.100.7',
      port: 10911,
      physicalOffset: 0x100000abc,
    });
  });

  it('is 56 hex chars for IPv6 and decodes to a bracketed address', () => {
    const id = createOffsetMsgId(parseIpAddress('2001:db8::2:7'), 10911, 5);
    expect(id).toHaveLength(56);
    expect(decodeOffsetMsgId(id.toLowerCase()).address).toBe('[2001:db8::2:7]:10911');
  });

  it('round-trips any address and offset', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.ipV4(), fc.ipV6()),
        fc.integer({ min: 0, max: 65535 }),
        fc.maxSafeNat(),
        (ip, port, offset) => {
          const id = createOffsetMsgId(parseIpAddress(ip), port, offset);
          expect(id).toMatch(/^[0-9A-F]+$/);
          const decoded = decodeOffsetMsgId(id);
          expect(decoded.physicalOffset).toBe(offset);
          expect(decoded.port).toBe(port);
          expect(parseIpAddress(decoded.ip)).toEqual(parseIpAddress(ip));
        },
      ),
    );
  });

  it('rejects malformed ids and offsets', () => {
    expect(() => decodeOffsetMsgId('XYZ')).toThrow(ProtocolError);
    expect(() => decodeOffsetMsgId('G'.repeat(32))).toThrow(ProtocolError);
    expect(() => decodeOffsetMsgId(`0A00000100002A9F${'F'.repeat(16)}`)).not.toThrow(); // -1 is a safe integer
    expect(() => decodeOffsetMsgId(`0A00000100002A9F7${'F'.repeat(15)}`)).toThrow(/2\^53/);
    expect(() => createOffsetMsgId(new Uint8Array(5), 1, 1)).toThrow(ProtocolError);
    expect(() => createOffsetMsgId(new Uint8Array(4), 1, -1)).toThrow(ProtocolError);
  });
});

describe('IP addresses', () => {
  it('formats IPv6 in RFC 5952 form', () => {
    expect(formatIpAddress(parseIpAddress('0:0:0:0:0:0:0:1'))).toBe('::1');
    expect(formatIpAddress(parseIpAddress('::'))).toBe('::');
    expect(formatIpAddress(parseIpAddress('2001:db8:0:1:0:0:0:1'))).toBe('2001:db8:0:1::1');
    expect(formatIpAddress(parseIpAddress('2001:0:0:1:0:0:0:1'))).toBe('2001:0:0:1::1');
    expect(formatIpAddress(parseIpAddress('1:0:2:0:3:0:4:0'))).toBe('1:0:2:0:3:0:4:0');
    expect(formatIpAddress(parseIpAddress('fe80::1%eth0'))).toBe('fe80::1');
  });

  it('parses and formats back any address', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (ip) => {
        const bytes = parseIpAddress(ip);
        expect(parseIpAddress(formatIpAddress(bytes))).toEqual(bytes);
      }),
    );
  });

  it('rejects what is not an IP address', () => {
    for (const bad of [
      '',
      'localhost',
      '1.2.3',
      '1.2.3.256',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      ':::',
    ]) {
      expect(() => parseIpAddress(bad), bad).toThrow(ProtocolError);
    }
  });

  it('parses host:port, bracketed or not', () => {
    expect(parseHostPort('[::1]:10911').port).toBe(10911);
    expect(parseHostPort('::1:10911').ip).toEqual(parseIpAddress('::1'));
    expect(formatHostPort('::1', 9)).toBe('[::1]:9');
    expect(formatHostPort('10.0.0.1', 9)).toBe('10.0.0.1:9');
    expect(() => parseHostPort('10.0.0.1')).toThrow(ProtocolError);
    expect(() => parseHostPort('10.0.0.1:70000')).toThrow(ProtocolError);
  });
});

describe('createUniqueId', () => {
  it('is 32 uppercase hex chars and unique over many calls', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 200_000; i++) ids.add(createUniqueId());
    expect(ids.size).toBe(200_000);
    for (const id of [...ids].slice(0, 10)) expect(id).toMatch(/^[0-9A-F]{32}$/);
  });

  it("follows MessageClientIDSetter's layout: ip, pid, random, ms since month start, counter", () => {
    const now = new Date(2026, 10, 3, 4, 5, 6, 7).getTime();
    const next = createUniqueIdGenerator({ ip: Uint8Array.of(10, 0, 0, 1), pid: 0x12345, now: () => now });
    const first = Buffer.from(next(), 'hex');
    const second = Buffer.from(next(), 'hex');
    expect([...first.subarray(0, 4)]).toEqual([10, 0, 0, 1]);
    expect(first.readUInt16BE(4)).toBe(0x2345);
    expect(first.readUInt32BE(10)).toBe(now - new Date(2026, 10, 1).getTime());
    expect(first.readUInt16BE(14)).toBe(0);
    expect(second.readUInt16BE(14)).toBe(1);
    expect(second.subarray(0, 14)).toEqual(first.subarray(0, 14));
  });

  it('differs between processes with the same ip and pid (random word)', () => {
    const options = { ip: Uint8Array.of(10, 0, 0, 1), pid: 7, now: () => 1_700_000_000_000 };
    expect(createUniqueIdGenerator(options)()).not.toBe(createUniqueIdGenerator(options)());
  });

  it('does not repeat when the clock steps back', () => {
    let time = 1_700_000_000_000;
    const next = createUniqueIdGenerator({ ip: Uint8Array.of(1, 2, 3, 4), now: () => time });
    const ids = new Set<string>();
    for (let i = 0; i < 70_000; i++) {
      ids.add(next());
      if (i === 1000) time -= 5000;
      if (i % 3000 === 0) time += 1;
    }
    expect(ids.size).toBe(70_000);
  });

  it('rolls over at the start of a month', () => {
    let time = new Date(2026, 0, 31, 23, 59, 59, 999).getTime();
    const next = createUniqueIdGenerator({ ip: Uint8Array.of(1, 2, 3, 4), now: () => time });
    expect(Buffer.from(next(), 'hex').readUInt32BE(10)).toBe(31 * 86_400_000 - 1);
    time += 1;
    expect(Buffer.from(next(), 'hex').readUInt32BE(10)).toBe(0);
  });
});
