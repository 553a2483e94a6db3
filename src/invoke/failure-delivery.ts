/**
 * One delivery to an `onFailure` destination (a message, a publish, an object put): transient AWS errors
 * retried a few times, any failure turned into a {@link FailureDestinationError} that names the
 * destination's ARN (never credentials, which the SDK's errors do not carry).
 */
import { isTransientAwsError } from '../util/aws-error-classification.js';
import { nameAndMessage } from '../util/name-and-message.js';
import { retry } from '../util/retry.js';
import { FailureDestinationError } from './failure-destination-error.js';

/** Runs `operation` up to `maxAttempts` times while it fails transiently; `what` is what it delivers. */
export async function deliverToDestination(
  arn: string,
  maxAttempts: number,
  operation: () => Promise<unknown>,
  what = 'a failure record',
): Promise<void> {
  try {
    await retry(operation, { maxAttempts, isRetriable: isTransientAwsError });
  } catch (cause) {
    const why = nameAndMessage(cause);
    throw new FailureDestinationError(`cannot deliver ${what} to ${arn}: ${why}`, {
      arn,
      cause,
      retriable: isTransientAwsError(cause),
    });
  }
}
