/**
 * A mapping's `onFailure` destination, named by its ARN, told whenever messages fail for good, in
 * addition to RocketMQ's DLQ: an SQS queue or SNS topic receives a {@link FailureRecord} (positions and
 * ids, no bodies), an S3 bucket one object per message with its whole record
 * (src/invoke/s3-failure-destination.ts).
 */

import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageCommand, SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import type { ConsumedMessage } from '../consumer/message-listener.js';
import { awsClientIdentity } from '../util/local-endpoint-credentials.js';
import { isS3Arn } from '../util/s3-bucket-arn.js';
import { deliverToDestination } from './failure-delivery.js';
import { parseDestinationArn } from './failure-destination-arn.js';
import type { FailureRecord } from './failure-record.js';
import { createS3FailureDestination } from './s3-failure-destination.js';

const DEFAULT_SEND_ATTEMPTS = 3;

/**
 * Where failure records go.
 */
export interface FailureDestination {
  /** The destination's ARN. */
  readonly arn: string;
  /**
   * Delivers the record of `messages` (the messages it was built from); rejects with a
   * {@link FailureDestinationError} when it could not.
   */
  send(record: FailureRecord, messages: readonly ConsumedMessage[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Options of {@link createFailureDestination}.
 */
export interface FailureDestinationOptions {
  /**
   * Another SQS/SNS/S3 endpoint (local emulators, tests). The region comes from the ARN (SQS, SNS) or
   * from the bucket (S3).
   */
  endpoint?: string | undefined;
  /** Credentials instead of the standard AWS chain (a loopback `endpoint` needs none). */
  credentials?: SQSClientConfig['credentials'];
  /** Attempts per record, transient errors only. @default 3 */
  maxAttempts?: number | undefined;
}

/**
 * The URL of the queue an SQS ARN names: on AWS `https://sqs.<region>.<domain>/<account>/<name>`, with an
 * endpoint override `<endpoint>/<account>/<name>`.
 */
export function sqsQueueUrl(arn: string, endpoint?: string): string {
  const { partition, region, accountId, name } = parseDestinationArn(arn);
  const base =
    endpoint?.replace(/\/+$/, '') ??
    `https://sqs.${region}.${partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
  return `${base}/${accountId}/${name}`;
}

/**
 * The destination an ARN names: SQS `SendMessage` for a queue ARN, SNS `Publish` for a topic ARN, the
 * record as the JSON message body; S3 `PutObject` of each message for a bucket ARN. Transient AWS errors
 * are retried a few times. Throws a {@link FailureDestinationError} for any other ARN.
 */
export function createFailureDestination(
  arn: string,
  options: FailureDestinationOptions = {},
): FailureDestination {
  if (isS3Arn(arn)) return createS3FailureDestination(arn, options);
  const { service, region } = parseDestinationArn(arn);
  const clientConfig = {
    maxAttempts: 1,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    // A loopback emulator works without AWS credentials (src/util/local-endpoint-credentials.ts).
    ...awsClientIdentity({ endpoint: options.endpoint, region, credentials: options.credentials }),
  };
  const attempts = options.maxAttempts ?? DEFAULT_SEND_ATTEMPTS;
  if (service === 'sqs') {
    const client = new SQSClient(clientConfig);
    const queueUrl = sqsQueueUrl(arn, options.endpoint);
    return {
      arn,
      send: (record) =>
        deliverToDestination(arn, attempts, async () => {
          await client.send(
            new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(record) }),
          );
        }),
      close: async () => client.destroy(),
    };
  }
  const client = new SNSClient(clientConfig);
  return {
    arn,
    send: (record) =>
      deliverToDestination(arn, attempts, async () => {
        await client.send(new PublishCommand({ TopicArn: arn, Message: JSON.stringify(record) }));
      }),
    close: async () => client.destroy(),
  };
}
