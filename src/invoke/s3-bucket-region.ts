/**
 * The region of an S3 bucket, which its ARN does not carry (`arn:aws:s3:::<bucket>`): asked of S3 with
 * one `HeadBucket` sent to the partition's home region. S3 names the bucket's region in the
 * `x-amz-bucket-region` header of every answer about an existing bucket: 200, the 301 of another region,
 * and the 403 of a caller without `s3:ListBucket` too, so the question needs no permission beyond the
 * destination's `s3:PutObject`.
 */
import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';

/** Where a partition's buckets are asked about (its first region); other partitions use the SDK's region. */
const PARTITION_HOME_REGIONS: Readonly<Record<string, string>> = {
  aws: 'us-east-1',
  'aws-cn': 'cn-north-1',
  'aws-us-gov': 'us-gov-west-1',
};

/** The region to ask about buckets of `partition` in, or `undefined` for the SDK's own region chain. */
export function partitionHomeRegion(partition: string): string | undefined {
  return PARTITION_HOME_REGIONS[partition];
}

/**
 * The region `bucket` is in, as S3 tells `client` (any region of the bucket's partition), or `undefined`
 * when S3's answer names none (the bucket does not exist, an endpoint that does not say). Rejects only
 * when there was no answer at all (network, 5xx): the caller may ask again.
 */
export async function askBucketRegion(client: S3Client, bucket: string): Promise<string | undefined> {
  try {
    const output = await client.send(new HeadBucketCommand({ Bucket: bucket }));
    return nonEmpty(output.BucketRegion) ?? nonEmpty(regionHeader(output.$metadata));
  } catch (error) {
    const fromHeader = nonEmpty(regionHeader((error as { $response?: unknown }).$response));
    if (fromHeader !== undefined) return fromHeader;
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status !== undefined && status < 500) return undefined;
    throw error;
  }
}

function regionHeader(response: unknown): string | undefined {
  const headers = (response as { headers?: Record<string, unknown> } | undefined)?.headers;
  const value = headers?.['x-amz-bucket-region'];
  return typeof value === 'string' ? value : undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
