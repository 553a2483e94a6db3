/**
 * The ACL credentials of the poller as ECS secrets (`ROCKETMQ_ACCESS_KEY`, `ROCKETMQ_SECRET_KEY`, which the
 * run config reads): from one Secrets Manager secret's JSON keys `accessKey` and `secretKey`, or from two
 * SSM parameters. The values never appear in the template.
 */
import { type CfnString, isCfnIntrinsic, stackArn } from './cfn-intrinsic.js';
import { RocketMQPluginError } from './plugin-error.js';
import type { ContainerSecret } from './poller-service.js';
import type { RocketMQCustomOptions } from './rocketmq-custom-schema.js';
import { checkSecretArn } from './secret-arn.js';

/**
 * The ECS secrets of the ACL credentials and what the execution role must read: Secrets Manager
 * resources (a partial ARN as `<arn>-??????`, see {@link checkSecretArn}) or SSM parameter ARNs.
 */
export function aclSecrets(acl: RocketMQCustomOptions['acl']): {
  secrets: ContainerSecret[];
  secretArns: CfnString[];
  parameterArns: CfnString[];
} {
  if (acl === undefined) return { secrets: [], secretArns: [], parameterArns: [] };
  if (acl.secretArn !== undefined) {
    const secret = checkSecretArn(acl.secretArn);
    // customRuleProblems refused a malformed ARN before compiling.
    if (!secret.ok) throw new RocketMQPluginError([`custom.rocketmq.acl.secretArn: ${secret.problem}`]);
    const arn = secret.valueFrom;
    const jsonKey = (key: string): CfnString =>
      isCfnIntrinsic(arn) ? { 'Fn::Join': ['', [arn, `:${key}::`]] } : `${arn}:${key}::`;
    return {
      secrets: [
        { Name: 'ROCKETMQ_ACCESS_KEY', ValueFrom: jsonKey('accessKey') },
        { Name: 'ROCKETMQ_SECRET_KEY', ValueFrom: jsonKey('secretKey') },
      ],
      secretArns: [...secret.policyResources],
      parameterArns: [],
    };
  }
  const parameters = [
    { Name: 'ROCKETMQ_ACCESS_KEY', parameter: acl.accessKeyParameter },
    { Name: 'ROCKETMQ_SECRET_KEY', parameter: acl.secretKeyParameter },
  ].flatMap(({ Name, parameter }) => (parameter === undefined ? [] : [{ Name, parameter }]));
  return {
    secrets: parameters.map(({ Name, parameter }) => ({ Name, ValueFrom: parameter })),
    secretArns: [],
    parameterArns: parameters.map(({ parameter }) => parameterArn(parameter)),
  };
}

/** The ARN of an SSM parameter given by name (`/a/b` or `a`) or ARN. */
function parameterArn(parameter: string): CfnString {
  if (parameter.startsWith('arn:')) return parameter;
  return stackArn('ssm', `parameter${parameter.startsWith('/') ? '' : '/'}${parameter}`);
}
