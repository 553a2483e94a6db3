/**
 * Our TLS settings (PEM text, a server name, whether to verify the server) turned into Node
 * `tls.ConnectionOptions` for {@link Connection} and the pool. No file is read, no socket opened.
 * Verification is on unless the caller opts out explicitly. {@link secureTlsConnectionOptions} also
 * builds the secure context (decrypts the key, matches it to the certificate) once, so that unusable
 * key material is refused before any connection instead of failing every connect for ever.
 */
import { createPrivateKey } from 'node:crypto';
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
 */
export class TlsSettingsError extends RocketMQError {
  constructor(message: string) {
    super(message, { permanent: true });
  }
}

const CERTIFICATE_PEM = /-----BEGIN CERTIFICATE-----/;
const PRIVATE_KEY_PEM = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
/** An encrypted PKCS#8 key, or a traditional (PKCS#1, SEC1) one with an encryption header. */
const ENCRYPTED_KEY_PEM = /-----BEGIN ENCRYPTED PRIVATE KEY-----|^Proc-Type:\s*4,ENCRYPTED/m;

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
 */
export function withServerNameFor(options: tls.ConnectionOptions, host: string): tls.ConnectionOptions {
  if (options.servername !== undefined || host === '' || isIP(host) !== 0) return options;
  return { ...options, servername: host };
}

/**
 * The name each key material setting is given in errors: the caller's own terms (a config key, a CLI
 * option), so the message points at what to fix.
 */
export type TlsSettingNames = Readonly<Record<'caPem' | 'certPem' | 'keyPem' | 'keyPassphrase', string>>;

/** {@link TlsSettingNames} that are the {@link TlsClientSettings} fields themselves. */
const FIELD_NAMES: TlsSettingNames = {
  caPem: 'caPem',
  certPem: 'certPem',
  keyPem: 'keyPem',
  keyPassphrase: 'keyPassphrase',
};

/**
 * {@link buildTlsConnectionOptions} plus the secure context, built here once from the CAs, the client
 * certificate and its key: connections reuse it (the key is decrypted once, not at every connect), and
 * key material that cannot work throws {@link TlsSettingsError} now, before any connection, naming the
 * setting in `names` and why (wrong or missing passphrase, a key that is not the certificate's, text
 * that is no key). Without it, `tls.connect` would throw the same OpenSSL error at every reconnect, for
 * ever. Messages hold setting names and OpenSSL error codes, never key material or the passphrase.
 */
export function secureTlsConnectionOptions(
  settings: TlsClientSettings = {},
  names: TlsSettingNames = FIELD_NAMES,
): tls.ConnectionOptions {
  const { ca, cert, key, passphrase, ...options } = buildTlsConnectionOptions(settings);
  let secureContext: tls.SecureContext;
  try {
    secureContext = tls.createSecureContext({ ca, cert, key, passphrase });
  } catch (error) {
    throw unusableMaterial(settings, names, error);
  }
  return { ...options, secureContext };
}

/** Why {@link secureTlsConnectionOptions} could not build its context: each piece tried on its own. */
function unusableMaterial(
  settings: TlsClientSettings,
  names: TlsSettingNames,
  error: unknown,
): TlsSettingsError {
  const failed = (build: () => unknown): string | undefined => {
    try {
      build();
      return undefined;
    } catch (cause) {
      return opensslCode(cause);
    }
  };
  const { caPem, certPem, keyPem, keyPassphrase } = settings;
  const caCode =
    caPem === undefined
      ? undefined
      : failed(() => tls.createSecureContext({ ca: typeof caPem === 'string' ? caPem : [...caPem] }));
  if (caCode !== undefined) {
    return new TlsSettingsError(`${names.caPem}: not usable CA certificates (${caCode})`);
  }
  const certCode =
    certPem === undefined ? undefined : failed(() => tls.createSecureContext({ cert: certPem }));
  if (certCode !== undefined) {
    return new TlsSettingsError(`${names.certPem}: not a usable certificate (${certCode})`);
  }
  if (keyPem !== undefined) {
    const keyCode = failed(() => createPrivateKey({ key: keyPem, format: 'pem', passphrase: keyPassphrase }));
    // A wrong passphrase mostly fails the padding check (bad decrypt); 1 in 256 or so it decrypts to
    // bytes that are no key: either way an encrypted key that does not open is the passphrase's fault.
    const encrypted =
      ENCRYPTED_KEY_PEM.test(keyPem) ||
      keyCode === 'ERR_OSSL_BAD_DECRYPT' ||
      keyCode === 'ERR_OSSL_EVP_BAD_DECRYPT';
    if (keyCode !== undefined && encrypted) {
      return new TlsSettingsError(
        keyPassphrase === undefined
          ? `${names.keyPem}: the key is encrypted and ${names.keyPassphrase} is not set`
          : `${names.keyPassphrase}: does not decrypt ${names.keyPem} (wrong passphrase)`,
      );
    }
    if (keyCode !== undefined) {
      return new TlsSettingsError(`${names.keyPem}: not a usable private key (${keyCode})`);
    }
  }
  const code = opensslCode(error);
  if (code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH') {
    return new TlsSettingsError(`${names.keyPem}: not the private key of ${names.certPem} (${code})`);
  }
  return new TlsSettingsError(`${names.certPem}, ${names.keyPem}: cannot be used together (${code})`);
}

/** The error's code (`ERR_OSSL_...`): names the failure and, unlike some messages, quotes no input. */
function opensslCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : 'unknown error';
}
