import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  escapedUtf8Length,
  jsonString,
  jsonStringArray,
  writeEscapedUtf8,
} from '../../../src/invoke/json-string.js';

describe('json-string', () => {
  it('writes any string as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary-ascii' })), (text) => {
        expect(jsonString(text)).toBe(JSON.stringify(text));
        const body = Buffer.from(text, 'utf8');
        const out = Buffer.alloc(escapedUtf8Length(body));
        expect(writeEscapedUtf8(body, out, 0)).toBe(out.length);
        expect(`"${out.toString('utf8')}"`).toBe(JSON.stringify(text));
      }),
    );
  });

  it('writes string arrays as JSON.stringify does', () => {
    expect(jsonStringArray([])).toBe('[]');
    expect(jsonStringArray(['k1', 'a"b', '\u0001'])).toBe(JSON.stringify(['k1', 'a"b', '\u0001']));
  });
});
