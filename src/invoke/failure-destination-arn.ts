/**
 * The ARN of an `onFailure` destination (an SQS queue or SNS topic), parsed into its parts.
 */
import { FAILURE_DESTINATION_ARN } from '../util/failure-destination-arn-pattern.js';
import { FailureDestinationError } from './failure-destination-error.js';

/**
 * The parts of an SQS queue or SNS topic ARN.
 */
export function parseDestinationArn(arn: string): {
  partition: string;
  service: 'sqs' | 'sns';
  region: string;
  accountId: string;
  name: string;
} {
  const match = FAILURE_DESTINATION_ARN.exec(arn);
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
