import { describe, expect, it } from 'vitest';
import { propertiesTextOf, propertyOf, toPlainMessage } from '../../../src/protocol/decoded-message.js';
import { MessageConst, type MessageExt } from '../../../src/protocol/message.js';
import { decodeMessages } from '../../../src/protocol/message-decoder.js';
import { encodeStoredMessages } from '../../../src/protocol/message-encoder.js';

function decodedOne(): MessageExt {
  const { messages } = decodeMessages(
    encodeStoredMessages([
      {
        topic: 'T',
        body: Buffer.from('hello'),
        properties: { [MessageConst.UNIQ_KEY]: 'ID1', [MessageConst.TAGS]: 'a', color: 'blue' },
      },
    ]),
  );
  const message = messages[0];
  if (message === undefined) throw new Error('no message decoded');
  return message;
}

describe('DecodedMessage', () => {
  it('gives its stored properties text until the properties object is built, then nothing', () => {
    const message = decodedOne();
    const text = propertiesTextOf(message);
    expect(
      text
        ?.split('\u0002')
        .filter((piece) => piece.length > 0)
        .sort(),
    ).toEqual(['UNIQ_KEY\u0001ID1', 'TAGS\u0001a', 'color\u0001blue'].sort());
    expect(propertyOf(message, 'color')).toBe('blue');
    expect(propertiesTextOf(message), 'a single lookup does not build the object').toBe(text);
    message.properties.color = 'red';
    expect(propertiesTextOf(message), 'the object exists (and may differ from the text)').toBeUndefined();
    expect(propertyOf(message, 'color')).toBe('red');
  });

  it('has no properties text for a plain message', () => {
    expect(propertiesTextOf(toPlainMessage(decodedOne()))).toBeUndefined();
  });

  it('spreading keeps only the eagerly read fields; toPlainMessage keeps every one', () => {
    const message = decodedOne();
    expect({ ...message }.msgId).toBeUndefined();
    expect({ ...toPlainMessage(message) }).toMatchObject({ msgId: 'ID1', tags: 'a', topic: 'T' });
  });
});
