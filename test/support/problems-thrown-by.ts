/**
 * For tests of validation: the problem lines of the error a call throws (a ConfigError by default, or
 * another error class with `problems`), failing the test when it throws anything else or nothing.
 */
import { ConfigError } from '../../src/config/config-error.js';

/** An error class whose instances list their problems one line each. */
export type ProblemsErrorClass = abstract new (
  ...args: never[]
) => Error & { readonly problems: readonly string[] };

/** The problems of the `kind` error `run` throws. */
export function problemsThrownBy(
  run: () => unknown,
  kind: ProblemsErrorClass = ConfigError,
): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof kind) return error.problems;
    throw error;
  }
  throw new Error(`expected a ${kind.name}, nothing was thrown`);
}

/** {@link problemsThrownBy} for a call that rejects. */
export async function problemsRejectedBy(
  run: () => Promise<unknown>,
  kind: ProblemsErrorClass = ConfigError,
): Promise<readonly string[]> {
  try {
    await run();
  } catch (error) {
    if (error instanceof kind) return error.problems;
    throw error;
  }
  throw new Error(`expected a ${kind.name}, nothing was thrown`);
}
