/**
 * The shape of an `onFailure` destination's ARN (an SQS queue or an SNS topic), declared once for the run
 * config's rules, the serverless event's schema and the parser that sends to it. Groups: partition,
 * service (`sqs` or `sns`), region, account id, name. An S3 bucket is the third kind of destination: its
 * ARN's shape is in src/util/s3-bucket-arn.ts.
 */
import { S3_BUCKET_ARN } from './s3-bucket-arn.js';

export const FAILURE_DESTINATION_ARN =
  /^arn:(aws[a-zA-Z-]*):(sqs|sns):([a-z0-9-]+):(\d{12}):([A-Za-z0-9_.-]{1,256})$/;

/** Any `onFailure` ARN: an SQS queue, an SNS topic or an S3 bucket (with an optional key prefix). */
export const ANY_FAILURE_DESTINATION_ARN = new RegExp(
  `${FAILURE_DESTINATION_ARN.source}|${S3_BUCKET_ARN.source}`,
);
