/**
 * Whether a Lambda function exists and may be invoked with the credentials at hand, found without running
 * it: an Invoke with `InvocationType: DryRun`, which Lambda answers (204) after the checks of a real invoke
 * (the function and qualifier exist, lambda:InvokeFunction is allowed) and before the function would run.
 * It needs no permission beyond the poller's own (GetFunction would need lambda:GetFunction). For
 * `rocketmq-lambda validate --connect`.
 */

import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { isAwsErrorNamed, isNetworkError } from '../util/aws-error-classification.js';
import { awsClientIdentity } from '../util/local-endpoint-credentials.js';
import { InvokeError } from './invoke-error.js';
import { describeLambdaError } from './lambda-error-text.js';
import { parseLambdaFunctionRef } from './lambda-function-ref.js';

/** How long connecting to the Invoke API may take during a dry run. */
export const DRY_RUN_CONNECTION_TIMEOUT_MS = 5_000;
/** How long a dry run waits for Lambda's answer (it runs no code: seconds are plenty). */
export const DRY_RUN_REQUEST_TIMEOUT_MS = 10_000;

/** Options of {@link dryRunInvoke}: the `lambda` keys of a config. */
export interface LambdaDryRunOptions {
  /** The region of a function not named by a full ARN (a full ARN's region wins). */
  readonly region?: string | undefined;
  /** Another Invoke API; one on loopback needs no credentials (src/util/local-endpoint-credentials.ts). */
  readonly endpoint?: string | undefined;
}

/**
 * Resolves when Lambda would invoke `functionRef`; rejects with an {@link InvokeError} whose message says
 * which function and why not: it does not exist, it may not be invoked with these credentials, or Lambda
 * could not be asked.
 */
export async function dryRunInvoke(functionRef: string, options: LambdaDryRunOptions = {}): Promise<void> {
  const ref = parseLambdaFunctionRef(functionRef);
  const client = new LambdaClient({
    maxAttempts: 1,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...awsClientIdentity({ endpoint: options.endpoint, region: ref.region ?? options.region }),
    requestHandler: {
      connectionTimeout: DRY_RUN_CONNECTION_TIMEOUT_MS,
      requestTimeout: DRY_RUN_REQUEST_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
  });
  try {
    await client.send(
      new InvokeCommand({
        FunctionName: ref.functionName,
        Qualifier: ref.qualifier,
        InvocationType: 'DryRun',
        // Lambda takes a DryRun without a payload; an Invoke API that reads one (serverless-offline)
        // finds an empty event.
        Payload: Buffer.from('{}'),
      }),
    );
  } catch (error) {
    throw new InvokeError(
      `Lambda function ${JSON.stringify(ref.ref)} ${whyNot(error)}: ${describeLambdaError(error)}`,
      {
        functionRef,
        cause: error,
      },
    );
  } finally {
    client.destroy();
  }
}

/** What a failed dry run means, in words. */
function whyNot(error: unknown): string {
  if (isAwsErrorNamed(error, 'ResourceNotFoundException')) return 'does not exist';
  const status = (error as { $metadata?: { httpStatusCode?: unknown } } | undefined)?.$metadata
    ?.httpStatusCode;
  if (status === 401 || status === 403) return 'may not be invoked with the credentials at hand';
  if (isNetworkError(error)) return 'cannot be checked: the Invoke API is unreachable';
  return 'cannot be invoked';
}
