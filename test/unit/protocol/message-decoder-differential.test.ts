/**
 * The decoder against a plain reference (reference-message-decoder.ts) on real PULL bodies from a
 * RocketMQ 5.3.3 broker and on generated bodies whose records repeat, vary and break each other's
 * property layouts: decodeProperties remembers the last layout it read (message-properties.ts), so the
 * order of the records must never change what a record decodes to.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findProperty, propertyOf, toPlainMessage } from '../../../src/protocol/decoded-message.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import { decodeMessages } from '../../../src/protocol/message-decoder.js';
import { encodeStoredMessage } from '../../../src/protocol/message-encoder.js';
import { decodeProperties } from '../../../src/protocol/message-properties.js';
import { referenceDecode, referenceProperties } from './reference-message-decoder.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/messages/${name}`, import.meta.url));
const REAL_BODIES = ['pull-64b.bin', 'pull-64b-20-properties.bin'].map(fixture);
/** Hundreds of generated bodies each: room for a machine shared with other test runs. */
const PROPERTY_TEST_TIMEOUT_MS = 60_000;

/** Everything a message holds as plain data; the property object's prototype and key order included. */
function comparable(message: MessageExt): Record<string, unknown> {
  return {
    ...toPlainMessage(message),
    body: message.body.toString('latin1'),
    properties: Object.entries(message.properties),
    propertiesPrototype: Object.getPrototypeOf(message.properties),
  };
}

function expectSameAsReference(body: Buffer): void {
  const { messages, error } = decodeMessages(body);
  expect(error).toBeUndefined();
  expect(messages.map(comparable)).toEqual(referenceDecode(body).map(comparable));
}

/** The records of a PULL body, each its own buffer. */
function records(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; at += body.readInt32BE(at)) {
    out.push(body.subarray(at, at + body.readInt32BE(at)));
  }
  return out;
}

/** A stored record with `propertiesText` as its PROPERTIES bytes, verbatim (malformed pieces included). */
function recordWithProperties(propertiesText: string, queueOffset: number, storeHost: string): Buffer {
  const plain = encodeStoredMessage({
    topic: 'DiffTopic',
    body: Buffer.from(`body ${queueOffset}`),
    queueOffset,
    physicalOffset: queueOffset * 100,
    storeHost,
  });
  const properties = Buffer.from(propertiesText, 'utf8');
  const length = Buffer.alloc(2);
  length.writeInt16BE(properties.length);
  const record = Buffer.concat([plain.subarray(0, plain.length - 2), length, properties]);
  record.writeInt32BE(record.length, 0);
  return record;
}

const S1 = '\u0001';
const S2 = '\u0002';
const KEY = fc.constantFrom(
  'UNIQ_KEY',
  'TAGS',
  'KEYS',
  'WAIT',
  'K',
  'KK',
  'KKK',
  '0',
  '__proto__',
  'constructor',
  'attribute1',
  'é',
);
const VALUE_UNIT = fc.constantFrom('x', 'y', ' ', 'order-1', 'é', '🚀', S1, '');
const VALUE = fc.array(VALUE_UNIT, { maxLength: 4 }).map((units) => units.join(''));
/** A piece that no well-formed layout has: empty, key-less, value-less, separator-less. */
const ODD_PIECE = fc.constantFrom('', 'K', `K${S1}`, `${S1}v`, 'Kv', `${S1}${S1}`);

/**
 * Property texts the way producers make them: a few layouts (key orders, duplicates allowed) filled with
 * varying values, now and then with an odd piece spliced in or the trailing U+0002 dropped.
 */
const PROPERTY_TEXTS = fc
  .array(fc.array(KEY, { minLength: 0, maxLength: 6 }), { minLength: 1, maxLength: 3 })
  .chain((layouts) =>
    fc
      .array(
        fc.record({
          layout: fc.nat(layouts.length - 1),
          values: fc.array(VALUE, { minLength: 6, maxLength: 6 }),
          odd: fc.option(fc.tuple(fc.nat(6), ODD_PIECE), { freq: 4 }),
          trailing: fc.boolean(),
        }),
        { minLength: 1, maxLength: 12 },
      )
      .map((specs) =>
        specs.map(({ layout, values, odd, trailing }) => {
          const pieces = (layouts[layout] ?? []).map((key, i) => `${key}${S1}${values[i] ?? ''}`);
          if (odd !== null) pieces.splice(Math.min(odd[0], pieces.length), 0, odd[1]);
          const text = pieces.join(S2);
          return trailing && text.length > 0 ? `${text}${S2}` : text;
        }),
      ),
  );

describe('decodeMessages against the reference decoder', () => {
  it('decodes real PULL bodies of a RocketMQ 5.3.3 broker exactly as the reference', () => {
    for (const body of REAL_BODIES) expectSameAsReference(body);
  });

  it(
    'decodes the records of real bodies the same in any order and mix',
    () => {
      const all = REAL_BODIES.flatMap(records);
      fc.assert(
        fc.property(fc.array(fc.nat(all.length - 1), { minLength: 1, maxLength: 40 }), (picks) => {
          expectSameAsReference(Buffer.concat(picks.map((i) => all[i] as Buffer)));
        }),
        { numRuns: 200 },
      );
    },
    PROPERTY_TEST_TIMEOUT_MS,
  );

  it(
    'decodes generated bodies exactly as the reference, whatever their property layouts',
    () => {
      const hosts = fc.constantFrom('127.0.0.1:10911', '10.0.0.7:10911', '[2001:db8::7]:10911');
      fc.assert(
        fc.property(
          PROPERTY_TEXTS,
          fc.array(hosts, { minLength: 12, maxLength: 12 }),
          (texts, storeHosts) => {
            const body = Buffer.concat(
              texts.map((text, i) => recordWithProperties(text, i, storeHosts[i] ?? '127.0.0.1:10911')),
            );
            expectSameAsReference(body);
          },
        ),
        { numRuns: 500 },
      );
    },
    PROPERTY_TEST_TIMEOUT_MS,
  );
});

describe('single properties of long texts', () => {
  /** A piece long enough to take a text past the length up to which a lookup decodes it whole. */
  const FILLER = fc.nat(700).map((length) => `filler${S1}${'f'.repeat(length)}`);
  const LOOKED_UP = ['UNIQ_KEY', 'TAGS', 'KEYS', 'K', 'KK', '0', '__proto__', 'é', 'filler'];

  it(
    'are found as the reference finds them, the key before, inside or after the first bytes searched',
    () => {
      fc.assert(
        fc.property(
          PROPERTY_TEXTS,
          fc.array(fc.tuple(FILLER, fc.nat(8)), { minLength: 12, maxLength: 12 }),
          fc.constantFrom(...LOOKED_UP),
          (texts, fillers, key) => {
            const long = texts.map((text, i) => {
              const [filler, at] = fillers[i] ?? ['', 0];
              const pieces = text.split(S2);
              pieces.splice(at % (pieces.length + 1), 0, filler);
              return pieces.join(S2);
            });
            const body = Buffer.concat(
              long.map((text, i) => recordWithProperties(text, i, '127.0.0.1:10911')),
            );
            // Each lookup on a fresh decode, before anything built the properties object.
            decodeMessages(body).messages.forEach((message, i) => {
              expect(propertyOf(message, key)).toBe(referenceProperties(long[i] ?? '')[key]);
            });
            expectSameAsReference(body);
          },
        ),
        { numRuns: 500 },
      );
    },
    PROPERTY_TEST_TIMEOUT_MS,
  );
});

describe('decodeProperties in sequence', () => {
  it(
    'gives each text what the reference rules give, whatever was decoded before it',
    () => {
      fc.assert(
        fc.property(PROPERTY_TEXTS, (texts) => {
          for (const text of texts) {
            const decoded = decodeProperties(text);
            expect(Object.getPrototypeOf(decoded)).toBeNull();
            expect(Object.entries(decoded)).toEqual(Object.entries(referenceProperties(text)));
          }
        }),
        { numRuns: 2000 },
      );
    },
    PROPERTY_TEST_TIMEOUT_MS,
  );

  it(
    'finds one property in a text as the reference rules give it (findProperty, what msgId, tags and keys use)',
    () => {
      const keys = [
        'UNIQ_KEY',
        'TAGS',
        'KEYS',
        'WAIT',
        'K',
        'KK',
        'KKK',
        '0',
        '__proto__',
        'constructor',
        'é',
      ];
      fc.assert(
        fc.property(PROPERTY_TEXTS, (texts) => {
          for (const text of texts) {
            const reference = referenceProperties(text);
            for (const key of keys) expect(findProperty(text, key)).toBe(reference[key]);
          }
        }),
        { numRuns: 1000 },
      );
    },
    PROPERTY_TEST_TIMEOUT_MS,
  );

  it('notices a changed key, an extra or missing piece, a duplicate and an empty value after a repeat', () => {
    const base = `UNIQ_KEY${S1}A${S2}TAGS${S1}t${S2}KEYS${S1}k1 k2${S2}`;
    const next = [
      base,
      `UNIQ_KEY${S1}B${S2}TAGS${S1}u${S2}KEYS${S1}k3${S2}`,
      `UNIQ_KEY${S1}C${S2}TAGSX${S1}u${S2}KEYS${S1}k3${S2}`,
      `UNIQ_KEY${S1}D${S2}TAG${S1}u${S2}KEYS${S1}k3${S2}`,
      `UNIQ_KEY${S1}E${S2}TAGS${S1}u${S2}`,
      `UNIQ_KEY${S1}F${S2}TAGS${S1}u${S2}KEYS${S1}k3${S2}WAIT${S1}true${S2}`,
      `UNIQ_KEY${S1}G${S2}TAGS${S1}u${S2}KEYS${S1}k3${S2}UNIQ_KEY${S1}batch${S2}`,
      `UNIQ_KEY${S1}H${S2}TAGS${S1}u${S2}KEYS${S1}k3${S2}UNIQ_KEY${S1}batch${S2}`,
      `UNIQ_KEY${S1}I${S2}TAGS${S1}${S2}KEYS${S1}k3${S2}UNIQ_KEY${S1}batch${S2}`,
      `UNIQ_KEY${S1}J${S2}TAGS${S1}u${S2}KEYS${S1}k3`,
      `UNIQ_KEY${S1}K${S2}TAGS${S1}u${S1}v${S2}KEYS${S1}k3`,
      `__proto__${S1}p${S2}TAGS${S1}u${S2}`,
      `__proto__${S1}q${S2}TAGS${S1}w${S2}`,
    ];
    for (const text of next) {
      expect(Object.entries(decodeProperties(text))).toEqual(Object.entries(referenceProperties(text)));
    }
  });
});
