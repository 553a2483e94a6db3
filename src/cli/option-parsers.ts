/**
 * Parsers of option values shared by the commands: each turns the text into a value or throws
 * commander's InvalidArgumentError, which commander reports as "option '--x <n>' argument 'abc' is
 * invalid. <our reason>" and exit 2.
 */
import { InvalidArgumentError } from 'commander';

/**
 * A parser of whole numbers >= 1.
 */
export function positiveInteger(option: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < 1) {
      throw new InvalidArgumentError(`${option} must be a positive integer.`);
    }
    return parsed;
  };
}

/**
 * A parser of whole numbers >= 0.
 */
export function nonNegativeInteger(option: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed)) {
      throw new InvalidArgumentError(`${option} must be a whole number >= 0.`);
    }
    return parsed;
  };
}

/**
 * A parser of TCP port numbers 0..65535 (0: any free port).
 */
export function portNumber(option: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || parsed > 65535) {
      throw new InvalidArgumentError(`${option} must be a port number 0..65535 (0: any free port).`);
    }
    return parsed;
  };
}

/**
 * A parser of a repeatable `key=value` option (`--param stage=prod --param table=t`): each value joins
 * the list; a value without a key or `=` is refused.
 */
export function keyValues(option: string): (value: string, previous: readonly string[]) => string[] {
  return (value, previous) => {
    if (!/^[^=\s]+=/.test(value)) throw new InvalidArgumentError(`${option} must be key=value.`);
    return [...previous, value];
  };
}
