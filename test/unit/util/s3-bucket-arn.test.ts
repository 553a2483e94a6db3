import { describe, expect, it } from 'vitest';
import { ANY_FAILURE_DESTINATION_ARN } from '../../../src/util/failure-destination-arn-pattern.js';
import {
  isS3Arn,
  MAX_S3_PREFIX_LENGTH,
  s3BucketArnProblem,
  splitS3BucketArn,
} from '../../../src/util/s3-bucket-arn.js';

describe('S3 bucket ARNs as onFailure destinations', () => {
  it('splits a bucket ARN into partition, bucket and key prefix', () => {
    expect(splitS3BucketArn('arn:aws:s3:::orders-failures')).toEqual({
      partition: 'aws',
      bucket: 'orders-failures',
      prefix: '',
    });
    expect(splitS3BucketArn('arn:aws-cn:s3:::orders.failures/rocketmq/prod')).toEqual({
      partition: 'aws-cn',
      bucket: 'orders.failures',
      prefix: 'rocketmq/prod',
    });
    expect(splitS3BucketArn("arn:aws-us-gov:s3:::abc/a=1/b+c/(x)!_.*'-")?.prefix).toBe("a=1/b+c/(x)!_.*'-");
  });

  it.each([
    [
      'arn:aws:s3:eu-west-1::orders',
      'an S3 bucket ARN has no region and no account (arn:aws:s3:::<bucket>): the region is asked of S3',
    ],
    [
      'arn:aws:s3::123456789012:orders',
      'an S3 bucket ARN has no region and no account (arn:aws:s3:::<bucket>): the region is asked of S3',
    ],
    [
      'arn:aws:s3:::Orders',
      '"Orders" is not a bucket name (3-63 of a-z 0-9 . -, a letter or digit at each end)',
    ],
    ['arn:aws:s3:::ab', '"ab" is not a bucket name (3-63 of a-z 0-9 . -, a letter or digit at each end)'],
    [
      `arn:aws:s3:::${'b'.repeat(64)}`,
      `"${'b'.repeat(64)}" is not a bucket name (3-63 of a-z 0-9 . -, a letter or digit at each end)`,
    ],
    [
      'arn:aws:s3:::-orders',
      '"-orders" is not a bucket name (3-63 of a-z 0-9 . -, a letter or digit at each end)',
    ],
    [
      'arn:aws:s3:::orders/',
      'the key prefix after the bucket must not be empty, end with "/" or hold "//" (a "/" is added after it)',
    ],
    [
      'arn:aws:s3:::orders/a//b',
      'the key prefix after the bucket must not be empty, end with "/" or hold "//" (a "/" is added after it)',
    ],
    ['arn:aws:s3:::orders/a b', "the key prefix may hold only letters, digits, / and ! - _ . * ' ( ) = +"],
    ['arn:aws:s3:::orders/a%2Fb', "the key prefix may hold only letters, digits, / and ! - _ . * ' ( ) = +"],
    [
      `arn:aws:s3:::orders/${'p'.repeat(MAX_S3_PREFIX_LENGTH + 1)}`,
      `its key prefix is ${MAX_S3_PREFIX_LENGTH + 1} characters, at most ${MAX_S3_PREFIX_LENGTH}`,
    ],
    ['arn:aws:s3', 'an S3 bucket ARN is arn:<partition>:s3:::<bucket>[/<key prefix>]'],
  ])('refuses %s, saying what is wrong', (arn, problem) => {
    expect(s3BucketArnProblem(arn)).toBe(problem);
    expect(splitS3BucketArn(arn)).toBeUndefined();
  });

  it('a prefix of exactly the bound is accepted', () => {
    const prefix = 'p'.repeat(MAX_S3_PREFIX_LENGTH);
    expect(splitS3BucketArn(`arn:aws:s3:::orders/${prefix}`)?.prefix).toBe(prefix);
  });

  it('tells S3 ARNs from others, and the schema pattern takes all three services', () => {
    expect(isS3Arn('arn:aws:s3:::orders')).toBe(true);
    expect(isS3Arn('arn:aws:s3:eu-west-1:1:x')).toBe(true);
    expect(isS3Arn('arn:aws:sqs:eu-west-1:123456789012:q')).toBe(false);
    for (const arn of [
      'arn:aws:sqs:eu-west-1:123456789012:q',
      'arn:aws:sns:eu-west-1:123456789012:t',
      'arn:aws:s3:::orders',
      'arn:aws:s3:::orders/rocketmq',
    ]) {
      expect(ANY_FAILURE_DESTINATION_ARN.test(arn)).toBe(true);
    }
    expect(ANY_FAILURE_DESTINATION_ARN.test(`arn:aws:s3:::orders/${'p'.repeat(MAX_S3_PREFIX_LENGTH)}`)).toBe(
      true,
    );
    const overLong = `arn:aws:s3:::orders/${'p'.repeat(MAX_S3_PREFIX_LENGTH + 1)}`;
    expect(ANY_FAILURE_DESTINATION_ARN.test(overLong)).toBe(false);
    for (const arn of [
      'arn:aws:s3:::orders/',
      'arn:aws:s3:eu-west-1::orders',
      'arn:aws:lambda:eu-west-1:1:function:f',
    ]) {
      expect(ANY_FAILURE_DESTINATION_ARN.test(arn)).toBe(false);
    }
  });
});
