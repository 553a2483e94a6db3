/**
 * Secrets Manager secret ARNs as `custom.rocketmq.acl.secretArn` takes them. A secret's full ARN ends in
 * `-` and 6 random characters that Secrets Manager adds to its name; an ARN without them (a partial ARN)
 * still finds the secret, but IAM compares the policy with the full ARN, so the execution role would be
 * denied its own secret. AWS's advice for a partial ARN is the wildcard `<name>-??????`.
 */
import { type CfnString, isCfnIntrinsic } from './cfn-intrinsic.js';

/**
 * `arn:<partition>:secretsmanager:<region>:<account>:secret:<name>`; names are 1–512 of
 * `A-Z a-z 0-9 / _ + = . @ -`.
 */
const SECRET_ARN =
  /^arn:aws(?:-cn|-us-gov|-iso|-iso-b)?:secretsmanager:[a-z]{2}(?:-[a-z]+)+-\d:\d{12}:secret:([A-Za-z0-9/_+=.@-]{1,512})$/;
/** The random suffix of a full ARN. A name that itself ends like this is read as a full ARN, as AWS does. */
const RANDOM_SUFFIX = /-[A-Za-z0-9]{6}$/;

/**
 * A secret ARN checked: what the ECS secret's `valueFrom` names and what the policy must allow.
 */
export type CheckedSecretArn =
  | { readonly ok: true; readonly valueFrom: CfnString; readonly policyResources: readonly CfnString[] }
  | { readonly ok: false; readonly problem: string };

/**
 * Checks a secret ARN and derives the IAM resources that match the real secret:
 * - a full ARN (with its suffix): itself;
 * - a partial ARN: `<arn>-??????`;
 * - an intrinsic (unknown until deploy): both the value and `<value>-??????`.
 * `valueFrom` is the ARN as given (ECS accepts partial ARNs).
 */
export function checkSecretArn(arn: CfnString): CheckedSecretArn {
  if (isCfnIntrinsic(arn)) {
    return { ok: true, valueFrom: arn, policyResources: [arn, { 'Fn::Join': ['', [arn, '-??????']] }] };
  }
  const match = SECRET_ARN.exec(arn);
  const name = match?.[1];
  if (name === undefined) {
    return {
      ok: false,
      problem: `must be a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>, without a JSON key), got ${JSON.stringify(arn)}`,
    };
  }
  return { ok: true, valueFrom: arn, policyResources: [RANDOM_SUFFIX.test(name) ? arn : `${arn}-??????`] };
}
