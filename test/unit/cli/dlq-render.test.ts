import picocolors from 'picocolors';
import { describe, expect, it } from 'vitest';
import { bodyPreview, deadLetterJsonLine, renderDeadLetter } from '../../../src/cli/dlq-render.js';
import { describeDeadLetter } from '../../../src/operations/dead-letter.js';
import { deadLetter, deadLetterIdentity } from './dlq-fixtures.js';

const plain = picocolors.createColors(false);

describe('bodyPreview', () => {
  it('shows printable UTF-8 on one line', () => {
    expect(bodyPreview(Buffer.from('{"a":"é"}\n\tnext'))).toBe('{"a":"é"}\\n\\tnext');
  });

  it('calls bytes that are not UTF-8, or that hold control characters, binary', () => {
    expect(bodyPreview(Buffer.from([0xff, 0xfe, 0x00]))).toBe('<3 bytes binary>');
    expect(bodyPreview(Buffer.from('a\u0000b'))).toBe('<3 bytes binary>');
    expect(bodyPreview(Buffer.alloc(0))).toBe('<empty>');
  });

  it('cuts long text and says how long the body is', () => {
    expect(bodyPreview(Buffer.from('x'.repeat(500)), 10)).toBe('xxxxxxxxxx… (500 bytes)');
  });
});

describe('renderDeadLetter', () => {
  it('prints offset, ids, origin, reconsume times, tags, keys, properties and body', () => {
    const message = deadLetter(3);
    expect(renderDeadLetter(describeDeadLetter(message), plain)).toBe(
      `#3  msgId ${message.msgId}  dead-lettered 2025-12-01T10:01:00.003Z  reconsume times 1\n` +
        `    original topic Orders  original msgId ${message.properties.ORIGIN_MESSAGE_ID}\n` +
        '    tags created  keys order-3 x\n' +
        '    properties tenant=t1\n' +
        '    body {"order":3}\n',
    );
  });

  it('says when the origin was not recorded', () => {
    const message = deadLetter(0, { tags: undefined, keys: [] });
    message.properties = {};
    const text = renderDeadLetter(describeDeadLetter(message), plain);
    expect(text).toContain('original topic (not recorded)  original msgId (not recorded)');
    expect(text).toContain('tags -  keys -');
    expect(text).not.toContain('properties');
  });
});

describe('deadLetterJsonLine', () => {
  it('is one JSON object with every field and the body in base64', () => {
    const message = deadLetter(5, { body: Buffer.from([0, 1, 2]) });
    const line = deadLetterJsonLine(
      { topic: '%DLQ%G', brokerName: 'broker-a', queueId: 0 },
      describeDeadLetter(message),
    );
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trim()).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      dlqTopic: '%DLQ%G',
      brokerName: 'broker-a',
      queueId: 0,
      dlqOffset: 5,
      ...deadLetterIdentity(message),
      storeTime: new Date(message.storeTimestamp).toISOString(),
      bornTimestamp: message.bornTimestamp,
      tags: 'created',
      keys: ['order-5', 'x'],
      properties: { tenant: 't1' },
      flag: 0,
      bodyBytes: 3,
      body: 'AAEC',
    });
  });
});
