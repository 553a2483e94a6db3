import { RocketMQError } from '../errors.js';

/**
 * A failure record could not be delivered, or the destination ARN is not an SQS queue or SNS topic ARN.
 */
export class FailureDestinationError extends RocketMQError {
  readonly arn: string;

  constructor(message: string, options: { arn: string; cause?: unknown; retriable?: boolean }) {
    super(message, { cause: options.cause, retriable: options.retriable ?? false });
    this.arn = options.arn;
  }
}
