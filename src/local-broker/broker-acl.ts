/**
 * ACL 2.0 for the local broker (RocketMQ 5.3.3 `AuthConfig`): the broker properties that turn on
 * authentication (and authorization) with one super user, who is also the identity of the broker's own
 * client and of the launcher's probes. The 5.3.3 name server has no ACL: it answers anyone.
 */
import type { AclCredentials } from '../protocol/acl-signer.js';
import type { BrokerConfigValues } from './broker-config.js';
import { LocalBrokerError } from './local-broker-error.js';

const AUTH_PACKAGE = 'org.apache.rocketmq.auth';

/**
 * ACL of a local broker.
 */
export interface LocalBrokerAclOptions {
  /** User name of the super user (`initAuthenticationUser`), the AccessKey clients sign with. */
  accessKey: string;
  /** Its password, the SecretKey clients sign with. */
  secretKey: string;
  /**
   * Also check permissions (`authorizationEnabled`), as a production broker does. The super user may do
   * everything either way; a signature that fails is refused before permissions are looked at.
   * @default true
   */
  authorization?: boolean | undefined;
}

/**
 * Broker properties for ACL 2.0 with the default providers, users stored (RocksDB) under the store's
 * `config/` directory. The super user is created at start when missing, so a wiped store gets it back.
 * Throws {@link LocalBrokerError} for a blank access or secret key.
 */
export function aclBrokerConfig(options: LocalBrokerAclOptions): BrokerConfigValues {
  if (options.accessKey.trim() === '' || options.secretKey.trim() === '') {
    throw new LocalBrokerError('the local broker ACL needs a non-blank accessKey and secretKey');
  }
  const authorization = options.authorization ?? true;
  return {
    authenticationEnabled: true,
    authenticationProvider: `${AUTH_PACKAGE}.authentication.provider.DefaultAuthenticationProvider`,
    authenticationMetadataProvider: `${AUTH_PACKAGE}.authentication.provider.LocalAuthenticationMetadataProvider`,
    initAuthenticationUser: JSON.stringify({ username: options.accessKey, password: options.secretKey }),
    innerClientAuthenticationCredentials: JSON.stringify({
      accessKey: options.accessKey,
      secretKey: options.secretKey,
    }),
    authorizationEnabled: authorization,
    authorizationProvider: `${AUTH_PACKAGE}.authorization.provider.DefaultAuthorizationProvider`,
    authorizationMetadataProvider: `${AUTH_PACKAGE}.authorization.provider.LocalAuthorizationMetadataProvider`,
  };
}

/**
 * The credentials the launcher signs its own requests with.
 */
export function aclCredentials(options: LocalBrokerAclOptions): AclCredentials {
  return { accessKey: options.accessKey, secretKey: options.secretKey };
}
