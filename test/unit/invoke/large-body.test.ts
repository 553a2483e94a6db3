/**
 * Large bodies against the payload limit: a UTF-8 body too large as base64 travels as its text, alone in
 * its invoke, and reaches the handler kit byte for byte; what fits in neither encoding is dead-lettered.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConsumedMessage } from '../../../src/consumer/message-listener.js';
import { parseEvent } from '../../../src/handler/parse-event.js';
import { recordBody, recordJson, recordText } from '../../../src/handler/record-body.js';
import {
  estimateEventOverheadBytes,
  estimateRecordBytes,
  serializeEvent,
} from '../../../src/invoke/event-builder.js';
import { LAMBDA_MAX_PAYLOAD_BYTES, planPayloads } from '../../../src/invoke/payload-splitter.js';
import { consumed } from './consumed-message.js';

function message(i: number, body: Buffer): ConsumedMessage {
  return consumed({ msgId: `id-${i}`, queueOffset: 100 + i, body, properties: { UNIQ_KEY: `id-${i}` } });
}

/**
 * Exactly `byteLength` bytes of UTF-8 text, mostly ASCII, with multibyte characters and characters that
 * JSON escapes (quotes, backslashes, tabs, newlines, a NUL), as a JSON array of strings.
 */
function textBody(byteLength: number): Buffer {
  const line = (n: number) => `"line ${n}: \\"quoted\\" back\\\\slash\\ttab é ✓ 😀 \\u0000 end",\n`;
  const parts: string[] = ['['];
  let bytes = 1;
  for (let n = 0; ; n++) {
    const next = line(n);
    const nextBytes = Buffer.byteLength(next, 'utf8');
    if (bytes + nextBytes + 3 > byteLength) break;
    parts.push(next);
    bytes += nextBytes;
  }
  // `"x…x"]`: the rest, filled with an ASCII string.
  parts.push(`"${'x'.repeat(byteLength - bytes - 3)}"]`);
  const body = Buffer.from(parts.join(''), 'utf8');
  if (body.length !== byteLength) throw new Error(`textBody made ${body.length} bytes`);
  return body;
}

describe('a 5,000,000-byte UTF-8 body', () => {
  const body = textBody(5_000_000);
  const batch = [message(0, Buffer.from('a')), message(1, body), message(2, Buffer.from('b'))];

  it('is planned alone and serialized as text within 6,291,456 bytes', () => {
    expect(body.toString('utf8')).toMatch(/é ✓ 😀/);
    expect(body.includes('\\"quoted\\"')).toBe(true);
    const plan = planPayloads('orders-consumer', batch, [0, 1, 2], LAMBDA_MAX_PAYLOAD_BYTES);
    expect(plan).toEqual({ chunks: [[0], [1], [2]], oversize: [] });
    const payload = serializeEvent('orders-consumer', [message(1, body)], {
      maxPayloadBytes: LAMBDA_MAX_PAYLOAD_BYTES,
    });
    expect(payload.length).toBeLessThanOrEqual(6_291_456);
    expect(payload.length).toBe(
      estimateEventOverheadBytes('orders-consumer') + estimateRecordBytes(message(1, body), 'utf8') - 1,
    );
    // As base64 it would not have fitted.
    expect(serializeEvent('orders-consumer', [message(1, body)]).length).toBeGreaterThan(6_291_456);
  });

  it('reaches the handler kit byte for byte after a JSON round trip', () => {
    const payload = serializeEvent('orders-consumer', [message(1, body)], {
      maxPayloadBytes: LAMBDA_MAX_PAYLOAD_BYTES,
    });
    const event = parseEvent(JSON.parse(payload.toString('utf8')));
    const record = event.Records[0];
    if (record === undefined) throw new Error('no record');
    expect(record.bodyEncoding).toBe('utf8');
    expect(recordBody(record).equals(body)).toBe(true);
    expect(recordText(record)).toBe(body.toString('utf8'));
    expect((recordJson(record) as string[])[1]).toBe('line 1: "quoted" back\\slash\ttab é ✓ 😀 \u0000 end');
  });
});

describe('bodies that fit no invoke', () => {
  it('dead-letters a 5 MB binary body, saying it is binary', () => {
    const binary = Buffer.alloc(5_000_000, 0xfe);
    const plan = planPayloads('g', [message(0, binary)], [0], LAMBDA_MAX_PAYLOAD_BYTES);
    expect(plan.chunks).toEqual([]);
    expect(plan.oversize).toEqual([
      {
        index: 0,
        eventBytes: expect.any(Number),
        textEventBytes: undefined,
        reason: expect.stringMatching(
          /^record too large: its body is 5000000 bytes of binary data \(not valid UTF-8\), which travel as base64 in an event of 66\d{5} bytes, over the 6291456-byte payload limit$/,
        ),
      },
    ]);
  });

  it('dead-letters an 8 MB text body, whose text alone is over the limit', () => {
    const text = textBody(8 * 1024 * 1024);
    const plan = planPayloads('g', [message(0, text)], [0], LAMBDA_MAX_PAYLOAD_BYTES);
    expect(plan.chunks).toEqual([]);
    expect(plan.oversize[0]?.textEventBytes).toBeGreaterThan(8 * 1024 * 1024);
    expect(plan.oversize[0]?.reason).toMatch(
      /^record too large: its body is 8388608 bytes of UTF-8 text, in an event of \d+ bytes as text \(\d+ as base64\), over the 6291456-byte payload limit$/,
    );
  });
});

describe('any body near the limit', () => {
  const char = fc.oneof(
    { weight: 30, arbitrary: fc.constantFrom('a', 'b', ' ', '0', '{', '}') },
    { weight: 2, arbitrary: fc.constantFrom('"', '\\', '\n', '\t', '\u0000', '\u001f') },
    { weight: 2, arbitrary: fc.constantFrom('é', '✓', '😀', '\u2028', '\uFEFF') },
  );
  const textBytes = fc
    .string({ unit: char, minLength: 100, maxLength: 1_500, size: 'max' })
    .map((text) => Buffer.from(text, 'utf8'));
  const binaryBytes = fc
    .uint8Array({ minLength: 100, maxLength: 1_500, size: 'max' })
    .map((bytes) => Buffer.from(bytes));
  const anyBody = fc.oneof(textBytes, binaryBytes);

  it('is delivered and decodes to its exact bytes, or dead-lettered: never an oversize request', () => {
    fc.assert(
      fc.property(
        fc.array(anyBody, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: -100, max: 500 }),
        (bodies, below) => {
          const batch = bodies.map((body, i) => message(i, body));
          // A limit a little below or above the first record's event as base64, so that all cases occur.
          const first = batch[0] as ConsumedMessage;
          const maxPayloadBytes = estimateEventOverheadBytes('g') + estimateRecordBytes(first) - 1 - below;
          const indexes = batch.map((_, i) => i);
          const { chunks, oversize } = planPayloads('g', batch, indexes, maxPayloadBytes);
          for (const chunk of chunks) {
            const payload = serializeEvent(
              'g',
              chunk.map((i) => batch[i] as ConsumedMessage),
              { maxPayloadBytes },
            );
            expect(payload.length).toBeLessThanOrEqual(maxPayloadBytes);
            const event = parseEvent(JSON.parse(payload.toString('utf8')));
            event.Records.forEach((record, j) => {
              expect(recordBody(record).equals(bodies[chunk[j] as number] as Buffer)).toBe(true);
              if (record.bodyEncoding === 'utf8') expect(chunk).toHaveLength(1);
            });
          }
          const envelopeBytes = estimateEventOverheadBytes('g');
          for (const { index, textEventBytes } of oversize) {
            const m = batch[index] as ConsumedMessage;
            expect(envelopeBytes + estimateRecordBytes(m) - 1).toBeGreaterThan(maxPayloadBytes);
            if (textEventBytes === undefined) expect(() => estimateRecordBytes(m, 'utf8')).toThrow();
            else expect(textEventBytes).toBeGreaterThan(maxPayloadBytes);
          }
          const covered = [...chunks.flat(), ...oversize.map((o) => o.index)].sort((a, b) => a - b);
          expect(covered).toEqual(indexes);
        },
      ),
      { numRuns: 300 },
    );
  });
});
