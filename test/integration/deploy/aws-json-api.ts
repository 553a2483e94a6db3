/**
 * Calls to AWS JSON 1.1 APIs that have no SDK client among the checkout's dependencies (ECS, Application
 * Auto Scaling, Secrets Manager, CloudWatch Logs): one POST signed with Signature Version 4. moto's server reads the service from the
 * signature's credential scope, so the signature is a real one rather than a header it happens to accept.
 */
import { createHash, createHmac } from 'node:crypto';

/**
 * An AWS JSON 1.1 API: the signing name and the `X-Amz-Target` prefix of its operations.
 *
 * @example
 * ```ts
 * const api: JsonApi = { signingName: 'ecs', targetPrefix: 'AmazonEC2ContainerServiceV20141113' };
 * ```
 */
export interface JsonApi {
  readonly signingName: string;
  readonly targetPrefix: string;
}

/**
 * Amazon ECS.
 *
 * @example
 * ```ts
 * await callJsonApi(target, ECS_API, 'DescribeClusters', { clusters: [name] });
 * ```
 */
export const ECS_API: JsonApi = { signingName: 'ecs', targetPrefix: 'AmazonEC2ContainerServiceV20141113' };
/**
 * Application Auto Scaling.
 *
 * @example
 * ```ts
 * await callJsonApi(target, APPLICATION_AUTOSCALING_API, 'DescribeScalableTargets', { ServiceNamespace: 'ecs' });
 * ```
 */
export const APPLICATION_AUTOSCALING_API: JsonApi = {
  signingName: 'application-autoscaling',
  targetPrefix: 'AnyScaleFrontendService',
};
/**
 * AWS Secrets Manager.
 *
 * @example
 * ```ts
 * await callJsonApi(target, SECRETS_MANAGER_API, 'GetSecretValue', { SecretId: arn });
 * ```
 */
export const SECRETS_MANAGER_API: JsonApi = { signingName: 'secretsmanager', targetPrefix: 'secretsmanager' };
/**
 * Amazon CloudWatch Logs.
 *
 * @example
 * ```ts
 * await callJsonApi(target, LOGS_API, 'DescribeLogGroups', { logGroupNamePrefix: name });
 * ```
 */
export const LOGS_API: JsonApi = { signingName: 'logs', targetPrefix: 'Logs_20140328' };

/**
 * Where and as whom to call.
 *
 * @example
 * ```ts
 * const target: JsonApiTarget = { endpoint: moto.endpoint, ...MOTO_CLIENT_CONFIG };
 * ```
 */
export interface JsonApiTarget {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/**
 * An error answer of the API (`__type` and `message` of its JSON body).
 *
 * @example
 * ```ts
 * if (error instanceof JsonApiError && error.type.endsWith('ResourceNotFoundException')) { ... }
 * ```
 */
export class JsonApiError extends Error {
  override readonly name = 'JsonApiError';
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(`${operation}: HTTP ${status} ${type}: ${message}`);
  }
}

/**
 * Calls `operation` of `api` with `input`; resolves with the parsed JSON answer, rejects with
 * {@link JsonApiError} on an error answer.
 *
 * @example
 * ```ts
 * const answer = await callJsonApi(target, ECS_API, 'ListClusters', {}); // => { clusterArns: [...] }
 * ```
 */
export async function callJsonApi(
  target: JsonApiTarget,
  api: JsonApi,
  operation: string,
  input: Readonly<Record<string, unknown>>,
): Promise<unknown> {
  const url = new URL(target.endpoint);
  const body = JSON.stringify(input);
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.1',
    host: url.host,
    'x-amz-date': amzDate,
    'x-amz-target': `${api.targetPrefix}.${operation}`,
  };
  const { host: _host, ...sent } = headers;
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...sent, authorization: authorization(target, api.signingName, headers, body, amzDate) },
    body,
  });
  const text = await response.text();
  const answer: unknown = text === '' ? {} : JSON.parse(text);
  if (!response.ok) {
    const fields = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
    throw new JsonApiError(
      operation,
      response.status,
      String(fields.__type ?? 'UnknownError'),
      String(fields.message ?? fields.Message ?? text),
    );
  }
  return answer;
}

/** The SigV4 `Authorization` header of a POST to `/` with these headers (all of them signed). */
function authorization(
  target: JsonApiTarget,
  service: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  amzDate: string,
): string {
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    'POST',
    '/',
    '',
    ...names.map((name) => `${name}:${headers[name]?.trim()}`),
    '',
    signedHeaders,
    sha256Hex(body),
  ].join('\n');
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${target.region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  let key: Buffer = Buffer.from(`AWS4${target.credentials.secretAccessKey}`);
  for (const part of [day, target.region, service, 'aws4_request']) key = hmac(key, part);
  const signature = hmac(key, stringToSign).toString('hex');
  return `AWS4-HMAC-SHA256 Credential=${target.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function hmac(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest();
}
