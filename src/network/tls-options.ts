/**
 * Our TLS settings (PEM text, a server name, whether to verify the server) turned into Node
 * `tls.ConnectionOptions` for {@link Connection} and the pool. Pure: no file is read, no socket opened.
 * Verification is on unless the caller opts out explicitly.
 */
import { isIP } from 'node:net';
import tls from 'node:tls';
import { RocketMQError } from '../errors.js';

/**
 * TLS settings of a client towards name servers and brokers; every field is optional.
 */
export interface TlsClientSettings {
  /**
   * CA certificates (PEM, one or several) that may sign the server certificate. They replace Node's
   * built-in list of public CAs, as a private CA is what brokers usually run with.
   * @default Node's built-in public CAs
   */
  caPem?: string | readonly string[] | undefined;
  /** Client certificate chain (PEM), for servers that require one (mTLS). Needs `keyPem`. */
  certPem?: string | undefined;
  /** Private key of `certPem` (PEM). Needs `certPem`. */
  keyPem?: string | undefined;
  /** Passphrase of an encrypted `keyPem`. */
  keyPassphrase?: string | undefined;
  /**
   * The name the server certificate must carry, when it differs from the host connected to (e.g. a
   * broker registered by IP whose certificate names its DNS name). A DNS name is also sent as SNI.
   * @default the host of each address
   */
  serverName?: string | undefined;
  /**
   * Verify the server's certificate chain and name. `false` accepts any certificate: traffic is
   * encrypted but the server is not authenticated, so use it only for tests.
   * @default true
   */
  verifyServer?: boolean | undefined;
}

/**
 * The TLS settings are unusable as given (a key without its certificate, text that is not PEM). Permanent:
 * the same settings fail the same way. Its message never contains key material or passphrases.
 *
 * @example
 * ```ts
 * try { buildTlsConnectionOptions(settings) } catch (err) {
 *   if (err instanceof TlsSettingsError) exitWithConfigError(err.message);
 * }
 * ```
 */
export class TlsSettingsError extends RocketMQError {
  constructor(message: string) {
    super(message, { permanent: true });
  }
}

const CERTIFICATE_PEM = /-----BEGIN CERTIFICATE-----/;
const PRIVATE_KEY_PEM = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/**
 * Builds the options passed to `tls.connect` (the caller adds `host` and `port`). With no settings at
 * all the result verifies the server against Node's public CAs, as `tls: true` does.
 *
 * - `rejectUnauthorized` is `verifyServer` (default true);
 * - `serverName` as a DNS name becomes `servername` (SNI and the name checked); as an IP address it is
 *   only checked, since RFC 6066 forbids IP addresses in SNI (and Node warns);
 * - without `serverName`, Node checks the host connected to: an IP host against the certificate's
 *   IP SANs, a DNS host against its DNS SANs. `tls.connect` sends no SNI by itself (unlike `https`):
 *   add it per host with {@link withServerNameFor}.
 *
 * Throws {@link TlsSettingsError} for a certificate without its key (or the reverse), a passphrase
 * without a key, and values that are not PEM.
 *
 * @example
 * ```ts
 * const options = buildTlsConnectionOptions({ caPem, certPem, keyPem });
 * const client = new RocketMQClient({ nameServerAddresses: '10.0.0.5:9876', tls: options });
 * ```
 */
export function buildTlsConnectionOptions(settings: TlsClientSettings = {}): tls.ConnectionOptions {
  const verifyServer = settings.verifyServer ?? true;
  const options: tls.ConnectionOptions = { rejectUnauthorized: verifyServer };

  if (settings.caPem !== undefined) {
    const cas = typeof settings.caPem === 'string' ? [settings.caPem] : [...settings.caPem];
    if (cas.length === 0 || cas.some((pem) => !CERTIFICATE_PEM.test(pem))) {
      throw new TlsSettingsError('caPem must be one or more PEM certificates (-----BEGIN CERTIFICATE-----)');
    }
    options.ca = cas;
  }

  const hasCert = settings.certPem !== undefined;
  const hasKey = settings.keyPem !== undefined;
  if (hasCert !== hasKey) {
    throw new TlsSettingsError('a client certificate needs both certPem and keyPem');
  }
  if (settings.certPem !== undefined && settings.keyPem !== undefined) {
    if (!CERTIFICATE_PEM.test(settings.certPem)) {
      throw new TlsSettingsError('certPem must be a PEM certificate (-----BEGIN CERTIFICATE-----)');
    }
    if (!PRIVATE_KEY_PEM.test(settings.keyPem)) {
      throw new TlsSettingsError('keyPem must be a PEM private key (-----BEGIN ... PRIVATE KEY-----)');
    }
    options.cert = settings.certPem;
    options.key = settings.keyPem;
  }
  if (settings.keyPassphrase !== undefined) {
    if (!hasKey) throw new TlsSettingsError('keyPassphrase is set but keyPem is not');
    options.passphrase = settings.keyPassphrase;
  }

  const serverName = settings.serverName?.trim();
  if (settings.serverName !== undefined && (serverName === undefined || serverName === '')) {
    throw new TlsSettingsError('serverName must not be empty');
  }
  if (serverName !== undefined) {
    if (isIP(serverName) === 0) {
      options.servername = serverName;
    } else {
      // Checked against the certificate's IP SANs instead of the host connected to; never sent as SNI.
      options.checkServerIdentity = (_host, certificate) => tls.checkServerIdentity(serverName, certificate);
    }
  }
  return options;
}

/**
 * The options for one connection to `host`: adds `servername: host` (SNI) when `host` is a DNS name and
 * the options name no server yet, since `tls.connect` sends no SNI on its own and TLS-terminating
 * proxies route on it. IP hosts get none (RFC 6066 forbids IP addresses in SNI). Returns `options`
 * unchanged when there is nothing to add.
 *
 * @example
 * ```ts
 * tls.connect({ ...withServerNameFor(options, host), host, port });
 * withServerNameFor({ rejectUnauthorized: true }, 'broker-a.internal') // => { rejectUnauthorized: true, servername: 'broker-a.internal' }
 * ```
 */
export function withServerNameFor(options: tls.ConnectionOptions, host: string): tls.ConnectionOptions {
  if (options.servername !== undefined || host === '' || isIP(host) !== 0) return options;
  return { ...options, servername: host };
}
