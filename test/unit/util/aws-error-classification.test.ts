import {
  ConditionalCheckFailedException,
  ProvisionedThroughputExceededException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { isNetworkError, isTransientAwsError } from '../../../src/util/aws-error-classification.js';

function awsError(name: string, status: number): Error {
  return Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
}

describe('isTransientAwsError', () => {
  it('accepts throttling, 429, 5xx and network errors', () => {
    expect(
      isTransientAwsError(
        new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }),
      ),
    ).toBe(true);
    expect(isTransientAwsError(awsError('ThrottlingException', 400))).toBe(true);
    expect(isTransientAwsError(awsError('Whatever', 429))).toBe(true);
    expect(isTransientAwsError(awsError('InternalServerError', 500))).toBe(true);
    expect(isTransientAwsError(awsError('Unknown', 503))).toBe(true);
    expect(isTransientAwsError(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(
      isTransientAwsError(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'EPIPE' }) })),
    ).toBe(true);
    expect(isTransientAwsError(Object.assign(new Error('timeout'), { name: 'TimeoutError' }))).toBe(true);
  });

  it('rejects client errors and non-errors', () => {
    expect(isTransientAwsError(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }))).toBe(
      false,
    );
    expect(isTransientAwsError(awsError('ResourceNotFoundException', 400))).toBe(false);
    expect(isTransientAwsError(awsError('AccessDeniedException', 400))).toBe(false);
    expect(isTransientAwsError('ECONNREFUSED')).toBe(false);
    expect(isTransientAwsError(undefined)).toBe(false);
  });
});

describe('isNetworkError', () => {
  it('recognises socket error codes, also as a cause, and nothing else', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(isNetworkError(reset)).toBe(true);
    expect(isNetworkError(new Error('wrapped', { cause: reset }))).toBe(true);
    expect(isNetworkError(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }))).toBe(
      false,
    );
    expect(isNetworkError(undefined)).toBe(false);
  });
});
