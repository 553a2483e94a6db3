/**
 * A mapping's `onFailure` destination: an SQS queue or SNS topic (named by its ARN) that receives a
 * {@link FailureRecord} whenever messages fail for good, in addition to RocketMQ's DLQ.
 */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageCommand, SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { RocketMQError } from '../protocol/errors.js';
import { isTransientAwsError } from '../util/aws-error-classification.js';
import { retry } from '../util/retry.js';
import type { FailureRecord } from './failure-record.js';

const ARN = /^arn:(aws[a-zA-Z-]*):(sqs|sns):([a-z0-9-]+):(\d{12}):([A-Za-z0-9_.-]{1,256})$/;
const DEFAULT_SEND_ATTEMPTS = 3;

/**
 * Where failure records go.
 *
 * @example
 * ```ts
 * const destination: FailureDestination = createFailureDestination('arn:aws:sqs:eu-west-1:123456789012:orders-failures');
 * await destination.send(record);
 * await destination.close();
 * ```
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
 *
 * @example
 * ```ts
 * const options: FailureDestinationOptions = { endpoint: 'http://127.0.0.1:4566' };
 * ```
 */
export interface FailureDestinationOptions {
  /** Another SQS/SNS endpoint (local emulators, tests). The region always comes from the ARN. */
  endpoint?: string | undefined;
  /** Credentials instead of the standard AWS chain. */
  credentials?: SQSClientConfig['credentials'];
  /** Attempts per record, transient errors only. @default 3 */
  maxAttempts?: number | undefined;
}

/**
 * A failure record could not be delivered, or the destination ARN is not an SQS queue or SNS topic ARN.
 *
 * @example
 * ```ts
 * try { await destination.send(record) } catch (err) {
 *   if (err instanceof FailureDestinationError) log.error({ err, arn: err.arn }, 'failure record lost');
 * }
 * ```
 */
export class FailureDestinationError extends RocketMQError {
  readonly arn: string;

  constructor(message: string, options: { arn: string; cause?: unknown; retriable?: boolean }) {
    super(message, { cause: options.cause, retriable: options.retriable ?? false });
    this.arn = options.arn;
  }
}

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

/**
 * The URL of the queue an SQS ARN names: on AWS `https://sqs.<region>.<domain>/<account>/<name>`, with an
 * endpoint override `<endpoint>/<account>/<name>`.
 *
 * @example
 * ```ts
 * sqsQueueUrl('arn:aws:sqs:eu-west-1:123456789012:failures');
 * // => 'https://sqs.eu-west-1.amazonaws.com/123456789012/failures'
 * ```
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
 *
 * @example
 * ```ts
 * const destination = createFailureDestination('arn:aws:sns:eu-west-1:123456789012:orders-failures');
 * await destination.send(buildFailureRecord({ condition: 'RecordAgeExceeded', reason, functionArn, consumerGroup, messages }));
 * ```
 */
export function createFailureDestination(
  arn: string,
  options: FailureDestinationOptions = {},
): FailureDestination {
  const { service, region } = parseDestinationArn(arn);
  const clientConfig = {
    region,
    maxAttempts: 1,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
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
    const why = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    throw new FailureDestinationError(`cannot deliver a failure record to ${arn}: ${why}`, {
      arn,
      cause,
      retriable: isTransientAwsError(cause),
    });
  }
}
