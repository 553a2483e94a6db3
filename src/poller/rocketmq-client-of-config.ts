/**
 * The {@link RocketMQClient} a config asks for: its name servers, ACL credentials, TLS settings and zone. The
 * poller's and the CLI's tools (`send`, `validate --connect`) connect the same way.
 */
import { createClientId } from '../client/client-id.js';
import { RocketMQClient } from '../client/rocketmq-client.js';
import { TLS_KEY_PASSPHRASE_ENV } from '../config/config-env.js';
import type { RunConfig } from '../config/run-config.js';
import type { ResolvedTlsSettings } from '../config/tls-material.js';
import { clientIdInZone } from '../consumer/rebalance/zone-conventions.js';
import { secureTlsConnectionOptions, type TlsSettingNames } from '../network/tls-options.js';
import type { Logger } from '../util/logger.js';

/**
 * The connection keys of a run config.
 */
export type ClientConnectionConfig = Pick<RunConfig, 'nameServerAddresses' | 'acl' | 'tls'> & {
  /** The poller's zone, carried as the third `@` part of the client id (zone-conventions.ts). */
  readonly zone?: string | undefined;
};

/**
 * The config keys of the TLS key material, as errors about it name them, when the settings do not say
 * where their material came from (`tls.ca (or ROCKETMQ_TLS_CA)` for PEM text, see tls-material-sources.ts).
 */
export const CONFIG_TLS_SETTING_NAMES: TlsSettingNames = {
  caPem: 'tls.caFile',
  certPem: 'tls.certFile',
  keyPem: 'tls.keyFile',
  keyPassphrase: `tls.keyPassphrase (or ${TLS_KEY_PASSPHRASE_ENV})`,
};

/**
 * The connection options of a config's resolved `tls`: the secure context built once, errors naming the
 * config key (or environment variable) each piece came from. Throws a permanent `TlsSettingsError`.
 */
export function configTlsConnectionOptions(
  tls: ResolvedTlsSettings,
): ReturnType<typeof secureTlsConnectionOptions> {
  return secureTlsConnectionOptions(tls, tls.settingNames ?? CONFIG_TLS_SETTING_NAMES);
}

/**
 * A client for the config's name servers, signing with its `acl` and speaking TLS when it has `tls`.
 * Unusable TLS key material (a wrong or missing passphrase, a key that is not the certificate's) throws
 * a permanent `TlsSettingsError` naming the config key, before anything connects.
 */
export function rocketMQClientOf(
  config: ClientConnectionConfig,
  options: { logger?: Logger | undefined } = {},
): RocketMQClient {
  return new RocketMQClient({
    nameServerAddresses: config.nameServerAddresses,
    credentials: config.acl,
    tls: config.tls === undefined ? false : configTlsConnectionOptions(config.tls),
    clientId: config.zone === undefined ? undefined : clientIdInZone(createClientId(), config.zone),
    logger: options.logger,
  });
}
