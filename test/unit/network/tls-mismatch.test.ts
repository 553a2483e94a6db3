import { describe, expect, it } from 'vitest';
import { looksLikeTlsRecord } from '../../../src/network/tls-mismatch.js';
import { encodeFrame, MAX_FRAME_LENGTH } from '../../../src/protocol/remoting-command.js';

describe('looksLikeTlsRecord', () => {
  it('recognises TLS alerts and handshakes of SSL 3.0 to TLS 1.3', () => {
    for (const type of [0x15, 0x16]) {
      for (let minor = 0; minor <= 4; minor++) {
        expect(looksLikeTlsRecord(Buffer.from([type, 0x03, minor, 0x00, 0x02]))).toBe(true);
      }
    }
  });

  it('waits for three bytes while they still could be TLS', () => {
    expect(looksLikeTlsRecord(Buffer.alloc(0))).toBeUndefined();
    expect(looksLikeTlsRecord(Buffer.from([0x15]))).toBeUndefined();
    expect(looksLikeTlsRecord(Buffer.from([0x16, 0x03]))).toBeUndefined();
  });

  it('never mistakes a RocketMQ frame (its first byte is 0) or other bytes for TLS', () => {
    const frame = encodeFrame({ code: 0, language: 'JAVA', version: 401, opaque: 1, flag: 1, extFields: {} });
    expect(looksLikeTlsRecord(frame)).toBe(false);
    const largest = Buffer.alloc(4);
    largest.writeInt32BE(MAX_FRAME_LENGTH, 0);
    expect(looksLikeTlsRecord(largest)).toBe(false);
    expect(looksLikeTlsRecord(Buffer.from([0x17, 0x03, 0x03]))).toBe(false);
    expect(looksLikeTlsRecord(Buffer.from([0x16, 0x02, 0x00]))).toBe(false);
    expect(looksLikeTlsRecord(Buffer.from([0x16, 0x03, 0x05]))).toBe(false);
    expect(looksLikeTlsRecord(Buffer.from('HTTP/1.1 400'))).toBe(false);
  });
});
