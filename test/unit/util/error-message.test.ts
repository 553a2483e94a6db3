import { describe, expect, it } from 'vitest';
import { errorMessage } from '../../../src/util/error-message.js';

describe('errorMessage', () => {
  it("is an Error's own message, without its cause", () => {
    expect(errorMessage(new Error('outer', { cause: new Error('inner') }))).toBe('outer');
  });

  it('turns anything else into a string', () => {
    expect(errorMessage('boom')).toBe('boom');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});
