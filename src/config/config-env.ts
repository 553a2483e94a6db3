/**
 * Environment variables that fill keys a config file leaves out (the file always wins): the name
 * servers, the ACL credentials and the TLS material (secrets belong in the environment, e.g. ECS
 * secrets; for TLS material the config and the environment must not both give a piece), the DynamoDB
 * endpoint and region of the offsets table, and the Lambda endpoint and region.
 */

import { isPlainRecord } from '../util/plain-record.js';
import type { ConfigProblem } from './config-problem.js';
import { classifyFunctionRef } from './function-ref.js';
import {
  applyTlsEnvironment,
  TLS_KEY_PASSPHRASE,
  TLS_MATERIAL,
  tlsEnvironmentProblems,
} from './tls-material-sources.js';

/** Environment variables read by {@link applyEnvironment}, first match wins within each key. */
export const CONFIG_ENV = {
  nameServer: ['ROCKETMQ_NAME_SERVER', 'NAMESRV_ADDR'],
  accessKey: ['ROCKETMQ_ACCESS_KEY'],
  secretKey: ['ROCKETMQ_SECRET_KEY'],
  securityToken: ['ROCKETMQ_SECURITY_TOKEN'],
  tlsKeyPassphrase: [TLS_KEY_PASSPHRASE.env],
  /** PEM text of `tls.ca`, `tls.cert`, `tls.key` (ECS secrets from Secrets Manager or SSM). */
  tlsCa: [TLS_MATERIAL.ca.env],
  tlsCert: [TLS_MATERIAL.cert.env],
  tlsKey: [TLS_MATERIAL.key.env],
  /** The poller's zone (on ECS it could come from the task metadata endpoint's AvailabilityZone). */
  zone: ['ROCKETMQ_LAMBDA_ZONE'],
  dynamoDbEndpoint: ['ROCKETMQ_LAMBDA_DYNAMODB_ENDPOINT', 'AWS_ENDPOINT_URL_DYNAMODB'],
  region: ['AWS_REGION'],
  lambdaEndpoint: ['AWS_ENDPOINT_URL_LAMBDA'],
  sqsEndpoint: ['AWS_ENDPOINT_URL_SQS'],
  snsEndpoint: ['AWS_ENDPOINT_URL_SNS'],
  s3Endpoint: ['AWS_ENDPOINT_URL_S3'],
  cloudwatchEndpoint: ['AWS_ENDPOINT_URL_CLOUDWATCH'],
  /** The whole config as JSON, when `rocketmq-lambda run` gets no `--config`. */
  config: ['ROCKETMQ_LAMBDA_CONFIG'],
} as const;

type Env = Readonly<Record<string, string | undefined>>;

/** Fills `tls.keyPassphrase` (read when the TLS settings are resolved). */
export const TLS_KEY_PASSPHRASE_ENV = CONFIG_ENV.tlsKeyPassphrase[0];

/**
 * Problems of the environment itself: half of the ACL credentials (signing would silently be off, and
 * every request refused by an ACL broker), a security token without keys (only when the config file has
 * no `acl`: it wins over the environment); TLS material the config contradicts (`tls: false`) or also
 * gives (see tls-material-sources.ts). Never names a value.
 */
export function environmentProblems(raw: unknown, env: Env = process.env): ConfigProblem[] {
  const tls = isPlainRecord(raw) ? tlsEnvironmentProblems(raw.tls, env) : [];
  return [...tls, ...aclEnvironmentProblems(raw, env)];
}

function aclEnvironmentProblems(raw: unknown, env: Env): ConfigProblem[] {
  if (isPlainRecord(raw) && raw.acl !== undefined) return [];
  const [accessName] = CONFIG_ENV.accessKey;
  const [secretName] = CONFIG_ENV.secretKey;
  const [tokenName] = CONFIG_ENV.securityToken;
  const access = firstSet(env, CONFIG_ENV.accessKey) !== undefined;
  const secret = firstSet(env, CONFIG_ENV.secretKey) !== undefined;
  const token = firstSet(env, CONFIG_ENV.securityToken) !== undefined;
  if (access && !secret) {
    return [
      { path: ['acl'], message: `${accessName} is set but ${secretName} is not: set both, or neither` },
    ];
  }
  if (secret && !access) {
    return [
      { path: ['acl'], message: `${secretName} is set but ${accessName} is not: set both, or neither` },
    ];
  }
  if (token && !access) {
    return [{ path: ['acl'], message: `${tokenName} is set without ${accessName} and ${secretName}` }];
  }
  return [];
}

/**
 * A copy of `raw` with absent keys filled from `env`:
 * - `nameServer` from `ROCKETMQ_NAME_SERVER`, else `NAMESRV_ADDR`;
 * - `acl` from `ROCKETMQ_ACCESS_KEY` + `ROCKETMQ_SECRET_KEY` (+ `ROCKETMQ_SECURITY_TOKEN`), both needed;
 * - `tls.ca`, `tls.cert`, `tls.key` from `ROCKETMQ_TLS_CA`, `ROCKETMQ_TLS_CERT`, `ROCKETMQ_TLS_KEY` (PEM
 *   text; absent `tls` or `tls: true` becomes the settings form);
 * - with `offsets.store: dynamodb`: `offsets.endpoint` from `ROCKETMQ_LAMBDA_DYNAMODB_ENDPOINT`, else
 *   `AWS_ENDPOINT_URL_DYNAMODB`; `offsets.region` from `AWS_REGION`;
 * - with a mapping whose `function` is a Lambda function: `lambda.endpoint` from
 *   `AWS_ENDPOINT_URL_LAMBDA`, `lambda.region` from `AWS_REGION`;
 * - with `metrics.cloudwatch`: its `endpoint` from `AWS_ENDPOINT_URL_CLOUDWATCH`, `region` from `AWS_REGION`.
 * Blank variables count as unset. Anything that is not an object is returned as is (the schema reports it).
 */
export function applyEnvironment(raw: unknown, env: Env = process.env): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const config: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const nameServer = firstSet(env, CONFIG_ENV.nameServer);
  if (config.nameServer === undefined && nameServer !== undefined) config.nameServer = nameServer;
  const zone = firstSet(env, CONFIG_ENV.zone);
  if (config.zone === undefined && zone !== undefined) config.zone = zone;

  const accessKey = firstSet(env, CONFIG_ENV.accessKey);
  const secretKey = firstSet(env, CONFIG_ENV.secretKey);
  if (config.acl === undefined && accessKey !== undefined && secretKey !== undefined) {
    const securityToken = firstSet(env, CONFIG_ENV.securityToken);
    config.acl = { accessKey, secretKey, ...(securityToken === undefined ? {} : { securityToken }) };
  }
  const tls = applyTlsEnvironment(config.tls, env);
  if (tls !== undefined) config.tls = tls;

  const offsets = config.offsets;
  if (typeof offsets === 'object' && offsets !== null && !Array.isArray(offsets)) {
    const filled: Record<string, unknown> = { ...(offsets as Record<string, unknown>) };
    if (filled.store === 'dynamodb') {
      const endpoint = firstSet(env, CONFIG_ENV.dynamoDbEndpoint);
      if (filled.endpoint === undefined && endpoint !== undefined) filled.endpoint = endpoint;
      const region = firstSet(env, CONFIG_ENV.region);
      if (filled.region === undefined && region !== undefined) filled.region = region;
    }
    config.offsets = filled;
  }

  if (hasLambdaMapping(config.mappings)) {
    const lambda = config.lambda ?? {};
    if (typeof lambda === 'object' && lambda !== null && !Array.isArray(lambda)) {
      const filled: Record<string, unknown> = { ...(lambda as Record<string, unknown>) };
      const endpoint = firstSet(env, CONFIG_ENV.lambdaEndpoint);
      if (filled.endpoint === undefined && endpoint !== undefined) filled.endpoint = endpoint;
      const region = firstSet(env, CONFIG_ENV.region);
      if (filled.region === undefined && region !== undefined) filled.region = region;
      if (Object.keys(filled).length > 0 || config.lambda !== undefined) config.lambda = filled;
    }
  }
  const metrics = config.metrics;
  if (isPlainRecord(metrics) && isPlainRecord(metrics.cloudwatch)) {
    const filled: Record<string, unknown> = { ...metrics.cloudwatch };
    const endpoint = firstSet(env, CONFIG_ENV.cloudwatchEndpoint);
    if (filled.endpoint === undefined && endpoint !== undefined) filled.endpoint = endpoint;
    const region = firstSet(env, CONFIG_ENV.region);
    if (filled.region === undefined && region !== undefined) filled.region = region;
    config.metrics = { ...metrics, cloudwatch: filled };
  }
  return config;
}

/**
 * The endpoints of `onFailure` destinations from the environment: `AWS_ENDPOINT_URL_SQS`,
 * `AWS_ENDPOINT_URL_SNS` and `AWS_ENDPOINT_URL_S3` (the SDK reads them too, but an SQS client must also be
 * told its endpoint explicitly, or it sends to the queue URL's host; an S3 emulator is addressed
 * path-style).
 */
export function destinationEndpointsOf(env: Env = process.env): {
  sqs: string | undefined;
  sns: string | undefined;
  s3: string | undefined;
} {
  return {
    sqs: firstSet(env, CONFIG_ENV.sqsEndpoint),
    sns: firstSet(env, CONFIG_ENV.snsEndpoint),
    s3: firstSet(env, CONFIG_ENV.s3Endpoint),
  };
}

function hasLambdaMapping(mappings: unknown): boolean {
  if (!Array.isArray(mappings)) return false;
  return mappings.some((mapping: unknown) => {
    const ref = (mapping as { function?: unknown } | null)?.function;
    return typeof ref === 'string' && classifyFunctionRef(ref).kind === 'lambda';
  });
}

function firstSet(env: Env, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}
