/**
 * Which AWS SDK v3 errors are worth retrying: throttling, server-side (5xx) and network failures.
 * Everything else (validation, access denied, missing table, a failed condition) fails the same way again.
 */

import { anyInCauseChain } from './cause-chain.js';

/** AWS error names that mean "too fast" or "our side is unwell", whatever the HTTP status. */
const TRANSIENT_ERROR_NAMES: ReadonlySet<string> = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'SlowDown',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'TransactionInProgressException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** Node.js socket error codes of a connection that failed or broke. */
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

interface AwsErrorShape {
  name?: unknown;
  code?: unknown;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  cause?: unknown;
}

/**
 * True when an AWS SDK v3 call failed in a way that may succeed if tried again later: a throttling error,
 * an HTTP 429 or 5xx answer, an SDK-marked retryable error, a timeout or a network error (also when
 * wrapped as the `cause` of another error).
 */
export function isTransientAwsError(error: unknown): boolean {
  return anyInCauseChain(error, (candidate) => {
    const shape = candidate as AwsErrorShape;
    if (typeof shape.name === 'string' && TRANSIENT_ERROR_NAMES.has(shape.name)) return true;
    if (typeof shape.code === 'string' && NETWORK_ERROR_CODES.has(shape.code)) return true;
    if (typeof shape.$retryable === 'object' && shape.$retryable !== null) return true;
    const status = shape.$metadata?.httpStatusCode;
    return typeof status === 'number' && (status === 429 || status >= 500);
  });
}

/**
 * True when a call failed because its connection could not be made or broke (a Node.js socket error code
 * such as `ECONNREFUSED` or `ECONNRESET`, also when wrapped as the `cause` of another error).
 */
export function isNetworkError(error: unknown): boolean {
  return anyInCauseChain(error, (candidate) => {
    const code = (candidate as AwsErrorShape).code;
    return typeof code === 'string' && NETWORK_ERROR_CODES.has(code);
  });
}

/**
 * AWS error names that do not heal by waiting: the resource does not exist, or this identity may not use
 * it. A poller that meets one cannot do its job until someone changes the deployment.
 */
const PERMANENT_ERROR_NAMES: ReadonlySet<string> = new Set([
  'ResourceNotFoundException',
  'AccessDeniedException',
  'AccessDenied',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
]);

/**
 * True when an AWS SDK v3 call failed in a way only a change of the deployment fixes: a missing resource
 * (table, function), access denied, an unknown access key (also when wrapped as the `cause`).
 */
export function isPermanentAwsError(error: unknown): boolean {
  return anyInCauseChain(error, (candidate) => {
    const name = (candidate as AwsErrorShape).name;
    return typeof name === 'string' && PERMANENT_ERROR_NAMES.has(name);
  });
}

/**
 * True when `error` is an AWS SDK error (or any Error) named `name`, e.g. `'ConditionalCheckFailedException'`.
 * Compares names rather than classes so clients from another copy of the SDK are recognised too.
 */
export function isAwsErrorNamed(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}
