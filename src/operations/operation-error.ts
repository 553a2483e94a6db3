/**
 * Why an operation did not do what was asked, in three kinds a caller maps to its own answers (the CLI
 * to exit codes 1 and 2, an HTTP surface to 409, 400 and 502): the message is what the operator reads.
 */
import { RocketMQError } from '../errors.js';

/**
 * `refused`: the operation would be unsafe or cannot apply (a POP mapping's offsets, a store a running
 * poller owns); `invalid`: the request names something that does not exist (a queue); `failed`: a broker
 * or the offset store could not be read or written.
 */
export type OperationErrorKind = 'refused' | 'invalid' | 'failed';

/** An operation that did not happen (or, for `failed`, stopped), with the reason in its message. */
export class OperationError extends RocketMQError {
  readonly kind: OperationErrorKind;

  constructor(kind: OperationErrorKind, message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, permanent: kind !== 'failed' });
    this.name = 'OperationError';
    this.kind = kind;
  }
}
