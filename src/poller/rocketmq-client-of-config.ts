/**
 * The {@link RocketMQClient} a config asks for: its name servers, ACL credentials, TLS settings and zone. The
 * poller's and the CLI's tools (`send`, `validate --connect`) connect the same way.
 */
import { createClientId } from '../client/client-id.js';
import { RocketMQClient } from '../client/rocketmq-client.js';
import { TLS_KEY_PASSPHRASE_ENV } from '../config/config-env.js';
import type { RunConfig } from '../config/run-config.js';
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

/** The config keys of the TLS key material, as errors about it name them. */
export const CONFIG_TLS_SETTING_NAMES: TlsSettingNames = {
  caPem: 'tls.caFile',
  certPem: 'tls.certFile',
  keyPem: 'tls.keyFile',
  keyPassphrase: `tls.keyPassphrase (or ${TLS_KEY_PASSPHRASE_ENV})`,
};

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
    tls: config.tls === undefined ? false : secureTlsConnectionOptions(config.tls, CONFIG_TLS_SETTING_NAMES),
    clientId: config.zone === undefined ? undefined : clientIdInZone(createClientId(), config.zone),
    logger: options.logger,
  });
}
