/**
 * The TLS material of the poller as ECS secrets: `custom.rocketmq.tls.caSecret`, `certSecret`, `keySecret`
 * and `keyPassphraseSecret` (secret-ref.ts) become the variables the run config reads
 * (`ROCKETMQ_TLS_CA`, `ROCKETMQ_TLS_CERT`, `ROCKETMQ_TLS_KEY`, `ROCKETMQ_TLS_KEY_PASSPHRASE`, see
 * src/config/tls-material-sources.ts), so the poller loads a private CA or a client certificate at start
 * from the stock image. The `*Secret` keys themselves stay out of the run config
 * (poller-config-template.ts); the values never appear in the template.
 */
import { TLS_KEY_PASSPHRASE, TLS_MATERIAL } from '../config/tls-material-sources.js';
import { RocketMQPluginError } from './plugin-error.js';
import {
  combinePollerSecrets,
  NO_POLLER_SECRETS,
  type PollerSecrets,
  parameterSecret,
  secretsManagerSecret,
} from './poller-secrets.js';
import type { RocketMQCustomOptions } from './rocketmq-custom-schema.js';
import { parseSecretRef } from './secret-ref.js';

/** Each `*Secret` key of `custom.rocketmq.tls` and the variable ECS fills from it. */
export const TLS_SECRET_VARIABLES = [
  { key: TLS_MATERIAL.ca.secret, env: TLS_MATERIAL.ca.env },
  { key: TLS_MATERIAL.cert.secret, env: TLS_MATERIAL.cert.env },
  { key: TLS_MATERIAL.key.secret, env: TLS_MATERIAL.key.env },
  { key: TLS_KEY_PASSPHRASE.secret, env: TLS_KEY_PASSPHRASE.env },
] as const;

/**
 * The ECS secrets of the TLS material in `custom.rocketmq.tls` and what the execution role must read.
 */
export function tlsSecrets(tls: RocketMQCustomOptions['tls']): PollerSecrets {
  if (typeof tls !== 'object') return NO_POLLER_SECRETS;
  return combinePollerSecrets(
    ...TLS_SECRET_VARIABLES.flatMap(({ key, env }) => {
      const value = tls[key];
      if (value === undefined) return [];
      const checked = parseSecretRef(value);
      // The schema refused a malformed reference before compiling.
      if (!checked.ok) throw new RocketMQPluginError([`custom.rocketmq.tls.${key}: ${checked.problem}`]);
      const { ref } = checked;
      return [
        ref.kind === 'ssm'
          ? parameterSecret(env, ref.parameter)
          : secretsManagerSecret(env, ref.arn, ref.policyResources, ref.jsonKey),
      ];
    }),
  );
}
