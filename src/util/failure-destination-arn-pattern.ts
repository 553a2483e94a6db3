/**
 * The shape of an `onFailure` destination's ARN (an SQS queue or an SNS topic), declared once for the run
 * config's rules, the serverless event's schema and the parser that sends to it. Groups: partition,
 * service (`sqs` or `sns`), region, account id, name.
 */
export const FAILURE_DESTINATION_ARN =
  /^arn:(aws[a-zA-Z-]*):(sqs|sns):([a-z0-9-]+):(\d{12}):([A-Za-z0-9_.-]{1,256})$/;
