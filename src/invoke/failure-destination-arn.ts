/**
 * The ARN of an `onFailure` destination (an SQS queue or SNS topic). A module of its own, without the
 * AWS SDK, so that config/ checks the option without loading the SQS and SNS clients.
 */
import { FailureDestinationError } from './failure-destination-error.js';

const ARN = /^arn:(aws[a-zA-Z-]*):(sqs|sns):([a-z0-9-]+):(\d{12}):([A-Za-z0-9_.-]{1,256})$/;

/**
 * The parts of an SQS queue or SNS topic ARN.
 *
 * @example
 * ```ts
 * parseDestinationArn('arn:aws:sqs:eu-west-1:123456789012:failures');
 * // => { partition: 'aws', service: 'sqs', region: 'eu-west-1', accountId: '123456789012', name: 'failures' }
 * ```
 */
export function parseDestinationArn(arn: string): {
  partition: string;
  service: 'sqs' | 'sns';
  region: string;
  accountId: string;
  name: string;
} {
  const match = ARN.exec(arn);
  if (match === null) {
    throw new FailureDestinationError(
      `onFailure ${JSON.stringify(arn)} is not an SQS queue ARN or SNS topic ARN (arn:aws:sqs|sns:<region>:<account>:<name>)`,
      { arn },
    );
  }
  const [, partition, service, region, accountId, name] = match as unknown as [
    string,
    string,
    'sqs' | 'sns',
    string,
    string,
    string,
  ];
  return { partition, service, region, accountId, name };
}
