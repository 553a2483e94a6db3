/**
 * What an error of Lambda's Invoke API means for the mapping: wait and try again (throttles and functions
 * not ready yet), stop the mapping (the function cannot be invoked by us at all), or fail this batch.
 */
import { isNetworkError } from '../util/aws-error-classification.js';
import type { InvokeFailureKind } from './invoker.js';

/** Too many invokes, or capacity the function needs is not ready yet: retried without counting. */
const THROTTLE_ERROR_NAMES: ReadonlySet<string> = new Set([
  'TooManyRequestsException',
  'EC2ThrottledException',
  'ENILimitReachedException',
  'ENINotReadyException',
  'SubnetIPAddressLimitReachedException',
  'ResourceNotReadyException',
  'ResourceConflictException',
  'SnapStartNotReadyException',
  'ThrottlingException',
]);

/** The function cannot be invoked by this poller until someone fixes its name, code or permissions. */
const FATAL_ERROR_NAMES: ReadonlySet<string> = new Set([
  'ResourceNotFoundException',
  'AccessDeniedException',
  'AccessDenied',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'InvalidClientTokenId',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'InvalidParameterValueException',
  'KMSAccessDeniedException',
  'KMSDisabledException',
  'KMSInvalidStateException',
  'KMSNotFoundException',
  'EC2AccessDeniedException',
  'InvalidSecurityGroupIDException',
  'InvalidSubnetIDException',
  'InvalidRuntimeException',
  'InvalidZipFileException',
  'InvalidCodeSignatureException',
  'CodeVerificationFailedException',
  'CodeArtifactUserDeletedException',
  'CodeArtifactUserFailedException',
  'RecursiveInvocationException',
]);

const PAYLOAD_TOO_LARGE_ERROR_NAMES: ReadonlySet<string> = new Set([
  'RequestTooLargeException',
  'RequestEntityTooLargeException',
]);

const TIMEOUT_ERROR_NAMES: ReadonlySet<string> = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

const HTTP_FORBIDDEN = 403;
const HTTP_UNAUTHORIZED = 401;
const HTTP_PAYLOAD_TOO_LARGE = 413;
const HTTP_TOO_MANY_REQUESTS = 429;

/**
 * How to treat an error of an invoke:
 * - `throttle`: wait with backoff and invoke again; never a consume failure.
 * - `fatal`: stop the mapping (missing function, no permission, broken function configuration).
 * - `failure`: this invoke failed; `failureKind` says how.
 */
export type LambdaErrorVerdict =
  | { readonly action: 'throttle' }
  | { readonly action: 'fatal' }
  | { readonly action: 'failure'; readonly failureKind: InvokeFailureKind };

interface SdkErrorShape {
  name?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/**
 * Classifies an error thrown by `LambdaClient.send(new InvokeCommand(...))` by its name (the
 * `x-amzn-ErrorType` of the answer) and HTTP status. Aborts are the caller's business (it knows which
 * signal fired); this function sees them as network failures.
 */
export function classifyLambdaError(error: unknown): LambdaErrorVerdict {
  const shape = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorShape;
  const name = typeof shape.name === 'string' ? shape.name : '';
  const rawStatus = shape.$metadata?.httpStatusCode;
  const status = typeof rawStatus === 'number' ? rawStatus : undefined;
  if (THROTTLE_ERROR_NAMES.has(name) || status === HTTP_TOO_MANY_REQUESTS) return { action: 'throttle' };
  if (FATAL_ERROR_NAMES.has(name) || status === HTTP_FORBIDDEN || status === HTTP_UNAUTHORIZED) {
    return { action: 'fatal' };
  }
  if (PAYLOAD_TOO_LARGE_ERROR_NAMES.has(name) || status === HTTP_PAYLOAD_TOO_LARGE) {
    return { action: 'failure', failureKind: 'payload-too-large' };
  }
  if (TIMEOUT_ERROR_NAMES.has(name)) return { action: 'failure', failureKind: 'timeout' };
  if (isNetworkError(error)) return { action: 'failure', failureKind: 'network' };
  if (status !== undefined && status >= 500) return { action: 'failure', failureKind: 'server-error' };
  if (status !== undefined && status >= 400) return { action: 'failure', failureKind: 'rejected' };
  return { action: 'failure', failureKind: 'network' };
}
