/**
 * For codec tests: runs `run` and returns the ProtocolError it throws, failing the test when it
 * throws anything else or nothing.
 */
import { expect } from 'vitest';
import { ProtocolError } from '../../src/protocol/errors.js';

/**
 * The ProtocolError `run` throws.
 *
 * @example
 * ```ts
 * expect(expectProtocolError(() => decompress(9, data)).message).toMatch(/compression type/);
 * ```
 */
export function expectProtocolError(run: () => unknown): ProtocolError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ProtocolError);
    return err as ProtocolError;
  }
  throw new Error('expected a ProtocolError');
}
