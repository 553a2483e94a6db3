/**
 * A mapping's `onFailure` destination: an SQS queue or SNS topic (named by its ARN) that receives a
 * {@link FailureRecord} whenever messages fail for good, in addition to RocketMQ's DLQ.
 */

import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageCommand, SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { isTransientAwsError } from '../util/aws-error-classification.js';
import { awsClientIdentity } from '../util/local-endpoint-credentials.js';
import { nameAndMessage } from '../util/name-and-message.js';
import { retry } from '../util/retry.js';
import { parseDestinationArn } from './failure-destination-arn.js';
import { FailureDestinationError } from './failure-destination-error.js';
import type { FailureRecord } from './failure-record.js';

const DEFAULT_SEND_ATTEMPTS = 3;

/**
 * Where failure records go.
 */
export interface FailureDestination {
  /** The destination's ARN. */
  readonly arn: string;
  /** Delivers one record; rejects with a {@link FailureDestinationError} when it could not. */
  send(record: FailureRecord): Promise<void>;
  close(): Promise<void>;
}

/**
 * Options of {@link createFailureDestination}.
 */
export interface FailureDestinationOptions {
  /** Another SQS/SNS endpoint (local emulators, tests). The region always comes from the ARN. */
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
 * record as the JSON message body. Transient AWS errors are retried a few times. Throws a
 * {@link FailureDestinationError} for any other ARN.
 */
export function createFailureDestination(
  arn: string,
  options: FailureDestinationOptions = {},
): FailureDestination {
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
        deliver(arn, attempts, async () => {
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
      deliver(arn, attempts, async () => {
        await client.send(new PublishCommand({ TopicArn: arn, Message: JSON.stringify(record) }));
      }),
    close: async () => client.destroy(),
  };
}

async function deliver(arn: string, maxAttempts: number, operation: () => Promise<void>): Promise<void> {
  try {
    await retry(operation, { maxAttempts, isRetriable: isTransientAwsError });
  } catch (cause) {
    const why = nameAndMessage(cause);
    throw new FailureDestinationError(`cannot deliver a failure record to ${arn}: ${why}`, {
      arn,
      cause,
      retriable: isTransientAwsError(cause),
    });
  }
}
