/**
 * The error the invoke layer throws (as opposed to the failures it reports as an {@link InvokeOutcome}).
 */
import { RocketMQError } from '../errors.js';

/**
 * Construction options of {@link InvokeError}.
 */
export interface InvokeErrorOptions {
  /** The function reference the error is about. */
  functionRef: string;
  /** The mapping cannot go on: stop pulling instead of sending messages towards the DLQ. */
  fatal?: boolean;
  retriable?: boolean;
  cause?: unknown;
}

/**
 * A function could not be invoked at all: an unusable function reference, a missing handler module or
 * export, a closed invoker. With `fatal: true` the consumer runtime stops the mapping and leaves the batch
 * unconsumed (see `MessageListener`), because every later batch would fail the same way.
 */
export class InvokeError extends RocketMQError {
  /** The function reference the error is about. */
  readonly functionRef: string;
  /** The mapping cannot go on. */
  readonly fatal: boolean;

  constructor(message: string, options: InvokeErrorOptions) {
    super(message, { cause: options.cause, retriable: options.retriable ?? false });
    this.functionRef = options.functionRef;
    this.fatal = options.fatal ?? false;
  }
}
