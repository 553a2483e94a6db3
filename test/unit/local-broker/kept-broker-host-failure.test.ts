import { describe, expect, it } from 'vitest';
import { hostFailure } from '../../../src/local-broker/kept-broker.js';

describe('hostFailure', () => {
  it("gives the message of the host's last error log line", () => {
    const tail = [
      '{"level":30,"time":1,"msg":"starting"}',
      '{"level":50,"time":2,"msg":"Java is not on PATH"}',
      '{"level":30,"time":3,"msg":"after"}',
    ].join('\n');
    expect(hostFailure(tail)).toBe('Java is not on PATH');
  });

  it('gives the last lines as they are when none is an error log line, and says so when there is nothing', () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i}`);
    expect(hostFailure(`${lines.join('\n')}\n`)).toBe(lines.slice(-10).join('\n'));
    expect(hostFailure('{"level":30,"msg":"fine"}\nSegmentation fault')).toBe(
      '{"level":30,"msg":"fine"}\nSegmentation fault',
    );
    expect(hostFailure('')).toBe('it wrote nothing');
  });
});
