import { describe, expect, it } from 'vitest';
import { classifyLambdaError } from '../../../src/invoke/lambda-error-classification.js';

function awsError(name: string, status?: number): Error {
  return Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
}

describe('classifyLambdaError', () => {
  it.each([
    ['TooManyRequestsException', 429],
    ['EC2ThrottledException', 502],
    ['ENILimitReachedException', 502],
    ['SubnetIPAddressLimitReachedException', 502],
    ['ResourceNotReadyException', 502],
    ['SomethingNew', 429],
  ])('waits out %s (HTTP %s)', (name, status) => {
    expect(classifyLambdaError(awsError(name, status))).toEqual({ action: 'throttle' });
  });

  it.each([
    ['ResourceNotFoundException', 404],
    ['AccessDeniedException', 403],
    ['KMSAccessDeniedException', 502],
    ['EC2AccessDeniedException', 502],
    ['InvalidSubnetIDException', 502],
    ['UnrecognizedClientException', 403],
    ['SomethingForbidden', 403],
  ])('stops the mapping for %s (HTTP %s)', (name, status) => {
    expect(classifyLambdaError(awsError(name, status))).toEqual({ action: 'fatal' });
  });

  it.each([
    ['RequestEntityTooLargeException', 413, 'payload-too-large'],
    ['RequestTooLargeException', 413, 'payload-too-large'],
    ['TimeoutError', undefined, 'timeout'],
    ['ServiceException', 500, 'server-error'],
    ['EFSIOException', 410, 'rejected'],
    ['InvalidRequestContentException', 400, 'rejected'],
  ])('fails the batch for %s (HTTP %s) as %s', (name, status, failureKind) => {
    expect(classifyLambdaError(awsError(name, status))).toEqual({ action: 'failure', failureKind });
  });

  it('recognises network errors, also as a cause', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(classifyLambdaError(refused)).toEqual({ action: 'failure', failureKind: 'network' });
    expect(classifyLambdaError(new Error('wrapped', { cause: refused }))).toEqual({
      action: 'failure',
      failureKind: 'network',
    });
    expect(classifyLambdaError('odd')).toEqual({ action: 'failure', failureKind: 'network' });
  });
});
