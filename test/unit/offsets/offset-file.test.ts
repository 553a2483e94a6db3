import { describe, expect, it } from 'vitest';
import { parseOffsetFile } from '../../../src/offsets/offset-file.js';

describe('parseOffsetFile', () => {
  it('parses the offsets map', () => {
    const read = parseOffsetFile('{"version":1,"offsets":{"T@broker-a@0":42,"%RETRY%g@broker-b@1":0}}');
    expect(read).toEqual({
      kind: 'ok',
      offsets: new Map([
        ['T@broker-a@0', 42],
        ['%RETRY%g@broker-b@1', 0],
      ]),
    });
  });

  it.each([
    ['', 'empty file'],
    ['{"offsets":', 'not valid JSON'],
    ['[]', 'no "offsets" object'],
    ['{"offsets":[1]}', 'no "offsets" object'],
    ['{"offsets":{"nope":1}}', 'bad queue key'],
    ['{"offsets":{"T@b@0":-1}}', 'bad offset'],
    ['{"offsets":{"T@b@0":"5"}}', 'bad offset'],
    ['{"offsets":{"T@b@0":1.5}}', 'bad offset'],
  ])('calls %j corrupt (%s)', (text, reason) => {
    const read = parseOffsetFile(text);
    expect(read.kind).toBe('corrupt');
    expect(read.kind === 'corrupt' && read.reason).toContain(reason);
  });
});
