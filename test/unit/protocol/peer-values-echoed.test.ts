/**
 * Values a broker sends in headers are echoed in errors (and from there in throttled log lines) cut to
 * a bound with their length, never whole: a header may be up to 4 MiB (header-limits.ts).
 */
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import { parsePullMessageResponseHeader } from '../../../src/protocol/header-parsers.js';
import { parsePopReceipt, parseStartOffsetInfo } from '../../../src/protocol/pop-extra-info.js';

const MiB = 1024 * 1024;
/** An error message quoting a value of a few MiB stays under this many characters. */
const BOUND = 400;

function messageOf(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

const pullHeader = (nextBeginOffset: string) => ({
  suggestWhichBrokerId: '0',
  nextBeginOffset,
  minOffset: '0',
  maxOffset: '10',
});

describe('header values from a broker in errors', () => {
  it.each([
    ['not an integer', `x${'y'.repeat(3 * MiB)}`],
    ['digits beyond the safe range', '9'.repeat(3 * MiB)],
  ])('a PULL header value (%s) of 3 MiB is cut, with its length', (_what, value) => {
    const message = messageOf(() => parsePullMessageResponseHeader(pullHeader(value)));
    expect(message.length).toBeLessThan(BOUND);
    expect(message).toContain(`(${value.length} characters)`);
    expect(message).toMatch(/^PULL_MESSAGE response header nextBeginOffset=/);
  });

  it('a POP receipt or start offset info of 3 MiB is cut, with its length', () => {
    const junk = 'z'.repeat(3 * MiB);
    for (const message of [
      messageOf(() => parsePopReceipt(junk)),
      messageOf(() => parseStartOffsetInfo(junk)),
      messageOf(() => parseStartOffsetInfo(`0 0 ${'9'.repeat(3 * MiB)}`)),
    ]) {
      expect(message.length).toBeLessThan(BOUND);
      expect(message).toMatch(/\(\d{7} characters\)/);
    }
  });

  it('a short value is quoted whole', () => {
    expect(messageOf(() => parsePullMessageResponseHeader(pullHeader('12a')))).toBe(
      'PULL_MESSAGE response header nextBeginOffset="12a" is not an integer',
    );
  });
});
