/**
 * What the poller reads from Secrets Manager and SSM, in one shape for every kind of secret (the ACL
 * credentials, poller-acl.ts; the TLS material, poller-tls-secrets.ts): the task definition's ECS
 * `Secrets` (environment variables ECS fills when the task starts; the values never appear in the
 * template) and the resources the execution role must read them from.
 */
import { type CfnString, isCfnIntrinsic, stackArn, uniqueByJson } from './cfn-intrinsic.js';
import type { ContainerSecret } from './poller-service.js';

/** ECS secrets and the execution role's read rights for them. */
export interface PollerSecrets {
  readonly secrets: readonly ContainerSecret[];
  /** Secrets Manager resources (full ARNs, or partial ones with `-??????`, see secret-arn.ts). */
  readonly secretArns: readonly CfnString[];
  /** SSM parameter ARNs. */
  readonly parameterArns: readonly CfnString[];
}

/** Nothing to read. */
export const NO_POLLER_SECRETS: PollerSecrets = { secrets: [], secretArns: [], parameterArns: [] };

/** Several sets as one; the same policy resource is listed once. */
export function combinePollerSecrets(...parts: readonly PollerSecrets[]): PollerSecrets {
  return {
    secrets: parts.flatMap((part) => part.secrets),
    secretArns: uniqueByJson(parts.flatMap((part) => part.secretArns)),
    parameterArns: uniqueByJson(parts.flatMap((part) => part.parameterArns)),
  };
}

/**
 * The variable `name` filled from a Secrets Manager secret: its whole value, or the value of `jsonKey`
 * in its JSON (ECS's `<arn>:<json-key>:<version-stage>:<version-id>`, stage and id left empty).
 * `policyResources` come from checkSecretArn (secret-arn.ts).
 */
export function secretsManagerSecret(
  name: string,
  arn: CfnString,
  policyResources: readonly CfnString[],
  jsonKey?: string | undefined,
): PollerSecrets {
  const valueFrom: CfnString =
    jsonKey === undefined
      ? arn
      : isCfnIntrinsic(arn)
        ? { 'Fn::Join': ['', [arn, `:${jsonKey}::`]] }
        : `${arn}:${jsonKey}::`;
  return {
    secrets: [{ Name: name, ValueFrom: valueFrom }],
    secretArns: [...policyResources],
    parameterArns: [],
  };
}

/** The variable `name` filled from an SSM parameter given by name (`/a/b` or `a`) or ARN. */
export function parameterSecret(name: string, parameter: string): PollerSecrets {
  return {
    secrets: [{ Name: name, ValueFrom: parameter }],
    secretArns: [],
    parameterArns: [parameterArn(parameter)],
  };
}

/** The ARN of an SSM parameter given by name (`/a/b` or `a`) or ARN. */
function parameterArn(parameter: string): CfnString {
  if (parameter.startsWith('arn:')) return parameter;
  return stackArn('ssm', `parameter${parameter.startsWith('/') ? '' : '/'}${parameter}`);
}
