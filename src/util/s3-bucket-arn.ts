/**
 * An S3 bucket ARN as an `onFailure` destination: `arn:<partition>:s3:::<bucket>`, optionally followed by a
 * key prefix (`arn:aws:s3:::failures/orders/prod`: objects under `orders/prod/`). Such an ARN names no
 * region and no account (the bucket's region is asked of S3: src/invoke/s3-bucket-region.ts). Declared
 * once for the run config's rules, the serverless event's schema, the IAM statements and the destination.
 */

/** The longest key prefix we accept (S3 keys are at most 1024 bytes; the rest is our key layout). */
export const MAX_S3_PREFIX_LENGTH = 512;

/**
 * The shape of an S3 destination ARN. Groups: partition, bucket, prefix (with its leading `/`, or empty).
 * Bucket names as S3 names them (3–63 of `a-z 0-9 . -`, a letter or digit at each end); prefix segments of
 * S3's safe key characters (letters, digits, `! - _ . * ' ( )`) and `=`, `+`, no empty segment, no `/` at
 * the end, at most {@link MAX_S3_PREFIX_LENGTH} characters.
 */
export const S3_BUCKET_ARN =
  /^arn:(aws[a-zA-Z-]*):s3:::([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?=.{0,513}$)((?:\/[A-Za-z0-9!_.*'()=+-]+)*)$/;

/** The parts of an S3 destination ARN. */
export interface S3BucketArnParts {
  readonly partition: string;
  readonly bucket: string;
  /** The key prefix without leading or trailing `/` (`orders/prod`), or `''`. */
  readonly prefix: string;
}

/** True when `arn` names the S3 service (`arn:<partition>:s3:`), well formed or not. */
export function isS3Arn(arn: string): boolean {
  return /^arn:aws[a-zA-Z-]*:s3:/.test(arn);
}

/**
 * What is wrong with `arn` as an S3 destination ARN, in words, or `undefined` when it is one.
 */
export function s3BucketArnProblem(arn: string): string | undefined {
  if (S3_BUCKET_ARN.test(arn)) return undefined;
  const match = /^arn:(aws[a-zA-Z-]*):s3:([^:]*):([^:]*):(.*)$/.exec(arn);
  if (match === null) return 'an S3 bucket ARN is arn:<partition>:s3:::<bucket>[/<key prefix>]';
  const [, , region, account, resource] = match as unknown as [string, string, string, string, string];
  if (region !== '' || account !== '') {
    return 'an S3 bucket ARN has no region and no account (arn:aws:s3:::<bucket>): the region is asked of S3';
  }
  const slash = resource.indexOf('/');
  const bucket = slash < 0 ? resource : resource.slice(0, slash);
  const prefix = slash < 0 ? '' : resource.slice(slash + 1);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    return `${JSON.stringify(bucket)} is not a bucket name (3-63 of a-z 0-9 . -, a letter or digit at each end)`;
  }
  if (prefix.length > MAX_S3_PREFIX_LENGTH) {
    return `its key prefix is ${prefix.length} characters, at most ${MAX_S3_PREFIX_LENGTH}`;
  }
  if (prefix === '' || prefix.endsWith('/') || prefix.includes('//')) {
    return 'the key prefix after the bucket must not be empty, end with "/" or hold "//" (a "/" is added after it)';
  }
  return "the key prefix may hold only letters, digits, / and ! - _ . * ' ( ) = +";
}

/**
 * The parts of a well-formed S3 destination ARN, or `undefined` when `arn` is not one
 * ({@link s3BucketArnProblem} says why).
 */
export function splitS3BucketArn(arn: string): S3BucketArnParts | undefined {
  if (s3BucketArnProblem(arn) !== undefined) return undefined;
  const [, partition, bucket, prefix] = S3_BUCKET_ARN.exec(arn) as unknown as [
    string,
    string,
    string,
    string,
  ];
  return { partition, bucket, prefix: prefix.replace(/^\//, '') };
}
