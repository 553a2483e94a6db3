/**
 * A reference to a secret value as the `*Secret` keys of `custom.rocketmq.tls` take it: a Secrets Manager
 * secret (its ARN, with or without the random suffix, optionally `:<jsonKey>` to take one key of its JSON
 * value), an SSM parameter (its ARN, or its name), or an intrinsic that yields a Secrets Manager secret ARN
 * (`Ref` of an `AWS::SecretsManager::Secret`). ECS reads it when the task starts.
 */
import { echoedValue } from '../util/echoed-value.js';
import { type CfnString, isCfnIntrinsic } from './cfn-intrinsic.js';
import { checkSecretArn } from './secret-arn.js';

/** A reference, checked. */
export type SecretRef =
  | {
      readonly kind: 'secretsmanager';
      /** The secret's ARN (as given: ECS takes partial ARNs). */
      readonly arn: CfnString;
      /** What the execution role must be allowed to read (secret-arn.ts). */
      readonly policyResources: readonly CfnString[];
      readonly jsonKey: string | undefined;
    }
  | { readonly kind: 'ssm'; readonly parameter: string };

/** `arn:<partition>:secretsmanager:...:secret:` and the rest (name, then `:jsonKey`). */
const SECRET_PREFIX = /^(arn:aws(?:-cn|-us-gov|-iso|-iso-b)?:secretsmanager:[^:]+:[^:]+:secret:)(.*)$/;
/** An SSM parameter ARN: `arn:<partition>:ssm:<region>:<account>:parameter/<name>`. */
const PARAMETER_ARN =
  /^arn:aws(?:-cn|-us-gov|-iso|-iso-b)?:ssm:[a-z]{2}(?:-[a-z]+)+-\d:\d{12}:parameter\/[A-Za-z0-9_.\-/]{1,2048}$/;
/** An SSM parameter name: `a`, `/a/b`; letters, digits, `_ . -`, levels separated by `/` (AWS's rule). */
const PARAMETER_NAME = /^\/?[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*$/;
/** The longest SSM parameter name AWS accepts. */
export const MAX_PARAMETER_NAME_CHARS = 1011;
/** A JSON key as ECS can name it: no `:` (its separator). */
const JSON_KEY = /^[^:\s]{1,256}$/;

const EXPECTED =
  'must be a Secrets Manager secret ARN (optionally :<jsonKey>), an SSM parameter ARN or an SSM parameter name';

/**
 * Checks a reference; `problem` quotes at most the reference itself (an ARN or a name), never text that
 * looks like PEM material.
 */
export function parseSecretRef(
  value: CfnString,
): { ok: true; ref: SecretRef } | { ok: false; problem: string } {
  if (isCfnIntrinsic(value)) {
    const checked = checkSecretArn(value);
    if (!checked.ok) return { ok: false, problem: checked.problem };
    return {
      ok: true,
      ref: {
        kind: 'secretsmanager',
        arn: value,
        policyResources: checked.policyResources,
        jsonKey: undefined,
      },
    };
  }
  // PEM text pasted where its reference belongs is the secret itself: it is never echoed.
  if (/-----BEGIN|\n/.test(value)) {
    return {
      ok: false,
      problem: `${EXPECTED}; this looks like PEM text (not shown): store it in a secret and name that`,
    };
  }
  const got = `, got ${echoedValue(value)}`;
  const secret = SECRET_PREFIX.exec(value);
  if (secret !== null) {
    const [name = '', jsonKey, ...more] = (secret[2] ?? '').split(':');
    if (more.length > 0 || (jsonKey !== undefined && !JSON_KEY.test(jsonKey))) {
      return {
        ok: false,
        problem: `takes <secret ARN> or <secret ARN>:<jsonKey> (no version stage or id)${got}`,
      };
    }
    const arn = `${secret[1]}${name}`;
    const checked = checkSecretArn(arn);
    if (!checked.ok) return { ok: false, problem: `${EXPECTED}${got}` };
    return {
      ok: true,
      ref: { kind: 'secretsmanager', arn, policyResources: checked.policyResources, jsonKey },
    };
  }
  if (value.startsWith('arn:')) {
    return PARAMETER_ARN.test(value)
      ? { ok: true, ref: { kind: 'ssm', parameter: value } }
      : { ok: false, problem: `${EXPECTED}${got}` };
  }
  if (value.length <= MAX_PARAMETER_NAME_CHARS && PARAMETER_NAME.test(value)) {
    return { ok: true, ref: { kind: 'ssm', parameter: value } };
  }
  return { ok: false, problem: `${EXPECTED}${got}` };
}
