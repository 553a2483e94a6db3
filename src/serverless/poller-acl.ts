/**
 * The ACL credentials of the poller as ECS secrets (`ROCKETMQ_ACCESS_KEY`, `ROCKETMQ_SECRET_KEY`, which the
 * run config reads): from one Secrets Manager secret's JSON keys `accessKey` and `secretKey`, or from two
 * SSM parameters. The values never appear in the template.
 */
import { RocketMQPluginError } from './plugin-error.js';
import {
  combinePollerSecrets,
  NO_POLLER_SECRETS,
  type PollerSecrets,
  parameterSecret,
  secretsManagerSecret,
} from './poller-secrets.js';
import type { RocketMQCustomOptions } from './rocketmq-custom-schema.js';
import { checkSecretArn } from './secret-arn.js';

/**
 * The ECS secrets of the ACL credentials and what the execution role must read: Secrets Manager
 * resources (a partial ARN as `<arn>-??????`, see {@link checkSecretArn}) or SSM parameter ARNs.
 */
export function aclSecrets(acl: RocketMQCustomOptions['acl']): PollerSecrets {
  if (acl === undefined) return NO_POLLER_SECRETS;
  if (acl.secretArn !== undefined) {
    const secret = checkSecretArn(acl.secretArn);
    // customRuleProblems refused a malformed ARN before compiling.
    if (!secret.ok) throw new RocketMQPluginError([`custom.rocketmq.acl.secretArn: ${secret.problem}`]);
    return combinePollerSecrets(
      secretsManagerSecret('ROCKETMQ_ACCESS_KEY', secret.valueFrom, secret.policyResources, 'accessKey'),
      secretsManagerSecret('ROCKETMQ_SECRET_KEY', secret.valueFrom, secret.policyResources, 'secretKey'),
    );
  }
  return combinePollerSecrets(
    ...[
      { name: 'ROCKETMQ_ACCESS_KEY', parameter: acl.accessKeyParameter },
      { name: 'ROCKETMQ_SECRET_KEY', parameter: acl.secretKeyParameter },
    ].flatMap(({ name, parameter }) => (parameter === undefined ? [] : [parameterSecret(name, parameter)])),
  );
}
