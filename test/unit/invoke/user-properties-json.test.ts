import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { userPropertiesJson } from '../../../src/invoke/user-properties-json.js';
import { DecodedMessage, toPlainMessage } from '../../../src/protocol/decoded-message.js';
import { type MessageExt, userProperties } from '../../../src/protocol/message.js';
import { decodeProperties } from '../../../src/protocol/message-properties.js';
import { roundRobin, sameLayoutTexts } from '../protocol/same-layout-texts.js';

/** A decoded message holding `text` as its properties text, as the decoder makes one without a record. */
function decodedWithText(text: string): DecodedMessage {
  return new DecodedMessage(Buffer.from('body'), undefined, 0, 0, 0, text);
}

/**
 * Checks the JSON of a decoded message against the user properties of its properties object: equal
 * once parsed, and no key written twice (a duplicate makes the JSON longer than its parse re-written).
 */
function expectSameAsReference(text: string): void {
  const json = userPropertiesJson(decodedWithText(text));
  const parsed: unknown = JSON.parse(json);
  expect(parsed, JSON.stringify(text)).toStrictEqual({ ...userProperties(decodeProperties(text)) });
  expect(JSON.stringify(parsed).length).toBe(json.length);
}

const key = fc.constantFrom('a', 'b', '10', 'TAGS', 'UNIQ_KEY', 'KEYS', 'WAIT', 'k"é', 'x\\y', '__proto__');
const value = fc.constantFrom('', 'v', 'w', 'é"\\\n', '\u0000', '😀', '\u2028');
/** Texts of one layout (the same keys in the same order) with different values. */
const sameLayouts = sameLayoutTexts(key, value, 5);

describe('userPropertiesJson', () => {
  it('writes the user properties of any text, layouts repeating and interleaving (differential)', () => {
    fc.assert(
      fc.property(fc.array(sameLayouts, { minLength: 1, maxLength: 10 }), (groups) => {
        // Each group twice in a row (compiled), then round robin: the keys' JSON of one layout must never
        // be written with another's values.
        for (const texts of groups) for (const text of texts) expectSameAsReference(text);
        roundRobin(groups, expectSameAsReference);
      }),
      { numRuns: 500 },
    );
  });

  it('writes the same JSON from the properties object as from the text', () => {
    const text = 'TAGS\u0001t\u0002q"é\u0001line\nfeed\u0002UNIQ_KEY\u0001X\u0002__proto__\u0001p\u0002';
    const plain: MessageExt = toPlainMessage(decodedWithText(text));
    const fromObject = userPropertiesJson(plain);
    expect(JSON.parse(fromObject)).toStrictEqual(JSON.parse(userPropertiesJson(decodedWithText(text))));
    const parsed: unknown = JSON.parse(fromObject);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toBe('p');
    expect(userPropertiesJson({ ...plain, properties: { TAGS: 'a', UNIQ_KEY: 'X' } })).toBe('{}');
  });

  it('reads the id, tags and keys of a decoded message in the same pass', () => {
    const message = decodedWithText('KEYS\u0001k1  k2\u0002UNIQ_KEY\u0001ID\u0002TAGS\u0001t\u0002c\u00011');
    expect(userPropertiesJson(message)).toBe('{"c":"1"}');
    expect([message.msgId, message.tags, message.keys]).toStrictEqual(['ID', 't', ['k1', 'k2']]);
  });
});
