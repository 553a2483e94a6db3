/**
 * Errors of the consumer layer, and the one check for a listener error that must stop a mapping.
 */
import { RocketMQError } from '../errors.js';

/**
 * A consumer option is out of range or inconsistent. Names the option path; never retriable.
 */
export class ConsumerOptionsError extends RocketMQError {
  /** The option's key path, e.g. `filter.expression`. */
  readonly option: string;

  constructor(option: string, problem: string) {
    super(`consumer option ${option} ${problem}`, { retriable: false });
    this.option = option;
  }
}

/**
 * True for a listener error that says "stop this mapping" (e.g. the function does not exist): an object
 * with `fatal: true`. Such an error leaves its batch unconsumed and stops pulling.
 */
export function isFatalListenerError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { fatal?: unknown }).fatal === true;
}
