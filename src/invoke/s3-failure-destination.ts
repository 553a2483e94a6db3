/**
 * An S3 bucket as a mapping's `onFailure` destination (`arn:<partition>:s3:::<bucket>[/<key prefix>]`):
 * every message that failed for good becomes one JSON object (src/invoke/s3-failure-object.ts) under the
 * key layout of src/invoke/s3-failure-key.ts, written with `PutObject` only (the one permission the
 * templates grant, on the prefix). The bucket's region is asked of S3 once (src/invoke/s3-bucket-region.ts)
 * and kept; until S3 has named it, puts go to the partition's home region with the SDK following S3's
 * region redirects.
 */
import { PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { ConsumedMessage } from '../consumer/message-listener.js';
import { forEachConcurrently } from '../util/for-each-concurrently.js';
import { awsClientIdentity } from '../util/local-endpoint-credentials.js';
import { s3BucketArnProblem, splitS3BucketArn } from '../util/s3-bucket-arn.js';
import { deliverToDestination } from './failure-delivery.js';
import type { FailureDestination } from './failure-destination.js';
import { FailureDestinationError } from './failure-destination-error.js';
import type { FailureRecord } from './failure-record.js';
import { askBucketRegion, partitionHomeRegion } from './s3-bucket-region.js';
import { s3FailureKey } from './s3-failure-key.js';
import { buildS3FailureObject } from './s3-failure-object.js';

const DEFAULT_PUT_ATTEMPTS = 3;
/**
 * How long one request may take to connect and to finish (a put of a body of several MB included): a
 * hung request would hold the offset of the message it reports (docs/operating.md, "Failures in S3").
 */
export const S3_CONNECTION_TIMEOUT_MS = 5_000;
export const S3_REQUEST_TIMEOUT_MS = 60_000;
/** Puts of one failure record in flight at a time (a record holds up to 500 messages). */
const PUT_CONCURRENCY = 4;

/**
 * Options of {@link createS3FailureDestination}.
 */
export interface S3FailureDestinationOptions {
  /** Another S3 endpoint (an emulator; addressed path-style). */
  endpoint?: string | undefined;
  /** Credentials instead of the standard AWS chain (a loopback `endpoint` needs none). */
  credentials?: S3ClientConfig['credentials'];
  /** Attempts per object, transient errors only. @default 3 */
  maxAttempts?: number | undefined;
}

/**
 * The destination of an S3 bucket ARN. Throws a {@link FailureDestinationError} naming what is wrong
 * with any other ARN.
 */
export function createS3FailureDestination(
  arn: string,
  options: S3FailureDestinationOptions = {},
): FailureDestination {
  const parts = splitS3BucketArn(arn);
  if (parts === undefined) {
    throw new FailureDestinationError(
      `onFailure ${JSON.stringify(arn)} is not an S3 bucket ARN: ${s3BucketArnProblem(arn)}`,
      { arn },
    );
  }
  const { bucket, prefix } = parts;
  const attempts = options.maxAttempts ?? DEFAULT_PUT_ATTEMPTS;
  const clientOf = (region: string | undefined): S3Client =>
    new S3Client({
      maxAttempts: 1,
      followRegionRedirects: true,
      requestHandler: { connectionTimeout: S3_CONNECTION_TIMEOUT_MS, requestTimeout: S3_REQUEST_TIMEOUT_MS },
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint, forcePathStyle: true }),
      // A loopback emulator works without AWS credentials (src/util/local-endpoint-credentials.ts).
      ...awsClientIdentity({ endpoint: options.endpoint, region, credentials: options.credentials }),
    });
  const home = clientOf(partitionHomeRegion(parts.partition));
  const clients = [home];
  let inBucketRegion: S3Client | undefined;

  /** The client of the bucket's region once S3 named it; the home region's until then. */
  const putClient = async (): Promise<S3Client> => {
    if (inBucketRegion !== undefined) return inBucketRegion;
    let region: string | undefined;
    try {
      region = await askBucketRegion(home, bucket);
    } catch {
      region = undefined; // no answer now: the put says what is wrong, the next record asks again
    }
    if (region === undefined) return home;
    if (region === (await home.config.region())) {
      inBucketRegion = home;
    } else {
      inBucketRegion = clientOf(region);
      clients.push(inBucketRegion);
    }
    return inBucketRegion;
  };

  const putOne = async (client: S3Client, record: FailureRecord, consumed: ConsumedMessage) => {
    const object = buildS3FailureObject(record, consumed);
    const key = s3FailureKey(prefix, object);
    const body = JSON.stringify(object);
    await deliverToDestination(
      arn,
      attempts,
      () =>
        client.send(
          new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/json' }),
        ),
      `the failure object ${key}`,
    );
  };

  return {
    arn,
    async send(record, messages) {
      const client = await putClient();
      const failures: FailureDestinationError[] = [];
      await forEachConcurrently(messages, PUT_CONCURRENCY, async (consumed) => {
        try {
          await putOne(client, record, consumed);
        } catch (error) {
          failures.push(error as FailureDestinationError);
        }
      });
      const [first] = failures;
      if (first === undefined) return;
      throw new FailureDestinationError(
        `${failures.length} of ${messages.length} failure object(s) not written; the first: ${first.message}`,
        { arn, cause: first, retriable: first.retriable },
      );
    },
    close: async () => {
      for (const client of clients) client.destroy();
    },
  };
}
