/**
 * TLS for the local namesrv and broker (RocketMQ 5.3.3 `TlsSystemConfig` / `TlsHelper`): the JVM
 * system properties that turn TLS on and the `tls.config.file` that names certificates, plus the Node
 * options the launcher's own probes connect with.
 *
 * RocketMQ reads the server mode (`tls.server.mode`) and whether its own clients use TLS (`tls.enable`)
 * only from system properties; everything else may come from the file. Both JVMs get the same settings:
 * the namesrv's and the broker's servers enforce TLS, and the broker's client (which registers with the
 * namesrv) verifies the namesrv with our CA and, under mTLS, presents the client certificate.
 */
import { readFile } from 'node:fs/promises';
import type tls from 'node:tls';
import { buildTlsConnectionOptions } from '../network/tls-options.js';
import type { BrokerConfigValues } from './broker-config.js';
import { LocalBrokerError } from './local-broker-error.js';

/**
 * TLS of a local broker: paths of PEM files. Private keys must be PKCS#8 (`BEGIN PRIVATE KEY` or
 * `BEGIN ENCRYPTED PRIVATE KEY`): Netty reads no other format.
 */
export interface LocalBrokerTlsOptions {
  /** Server certificate (chain) both JVMs present; needs SAN `IP:127.0.0.1` for the probes to accept it. */
  certPath: string;
  /** Its private key, PKCS#8 PEM. */
  keyPath: string;
  /** Passphrase of an encrypted `keyPath`. */
  keyPassword?: string | undefined;
  /** The CA that signed `certPath`: the broker's own client and our probes verify the servers with it. */
  caPath: string;
  /**
   * Require client certificates signed by `caPath` (mTLS, `tls.server.need.client.auth=require`); the
   * broker's own client and our probes present `certPath`/`keyPath`.
   */
  clientAuth?:
    | {
        caPath: string;
        certPath: string;
        keyPath: string;
        keyPassword?: string | undefined;
      }
    | undefined;
}

/**
 * The contents of `tls.config.file` (keys of `TlsSystemConfig`). `tls.test.mode.enable=false` is what
 * makes RocketMQ use our certificates instead of a self-signed one.
 */
export function tlsConfigFileValues(options: LocalBrokerTlsOptions): BrokerConfigValues {
  const values: BrokerConfigValues = {
    'tls.test.mode.enable': false,
    'tls.server.certPath': options.certPath,
    'tls.server.keyPath': options.keyPath,
    'tls.server.need.client.auth': options.clientAuth === undefined ? 'none' : 'require',
    'tls.server.authClient': options.clientAuth !== undefined,
    'tls.client.authServer': true,
    'tls.client.trustCertPath': options.caPath,
  };
  if (options.keyPassword !== undefined) values['tls.server.keyPassword'] = options.keyPassword;
  if (options.clientAuth !== undefined) {
    values['tls.server.trustCertPath'] = options.clientAuth.caPath;
    values['tls.client.certPath'] = options.clientAuth.certPath;
    values['tls.client.keyPath'] = options.clientAuth.keyPath;
    if (options.clientAuth.keyPassword !== undefined) {
      values['tls.client.keyPassword'] = options.clientAuth.keyPassword;
    }
  }
  return values;
}

/**
 * JVM flags for both JVMs: TLS enforced on every server socket (plaintext connections are closed),
 * TLS on the JVM's own clients, settings from `configFile`. Without TLS the servers run `disabled`:
 * the default `permissive` builds a self-signed certificate at start, ~10 s on a small box.
 */
export function tlsJvmFlags(configFile: string | undefined): string[] {
  if (configFile === undefined) return ['-Dtls.server.mode=disabled'];
  return ['-Dtls.server.mode=enforcing', '-Dtls.enable=true', `-Dtls.config.file=${configFile}`];
}

/**
 * Node TLS options for the launcher's probes: verify the servers with `caPath`, present the client
 * certificate under mTLS. Also reads the server certificate and key, so that a missing file or a key
 * Netty cannot read fails here at once instead of as a readiness timeout (RocketMQ only logs a TLS
 * setup failure, then closes every connection). Throws {@link LocalBrokerError}.
 */
export async function probeTlsOptions(options: LocalBrokerTlsOptions): Promise<tls.ConnectionOptions> {
  const client = options.clientAuth;
  const [caPem, certPem, keyPem] = await Promise.all([
    readPem(options.caPath, 'caPath'),
    client === undefined ? undefined : readPem(client.certPath, 'clientAuth.certPath'),
    client === undefined ? undefined : readPem(client.keyPath, 'clientAuth.keyPath'),
    readPem(options.certPath, 'certPath'),
    readPem(options.keyPath, 'keyPath').then((pem) => assertPkcs8(pem, 'keyPath', options.keyPath)),
    client === undefined
      ? undefined
      : readPem(client.keyPath, 'clientAuth.keyPath').then((pem) =>
          assertPkcs8(pem, 'clientAuth.keyPath', client.keyPath),
        ),
  ]);
  return buildTlsConnectionOptions({ caPem, certPem, keyPem, keyPassphrase: client?.keyPassword });
}

async function readPem(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (cause) {
    throw new LocalBrokerError(`cannot read the local broker's TLS ${what} ${path}`, { cause });
  }
}

/** Netty (the broker's TLS) reads PKCS#8 keys only; OpenSSL's traditional formats fail at its start. */
function assertPkcs8(pem: string, what: string, path: string): void {
  if (/-----BEGIN (ENCRYPTED )?PRIVATE KEY-----/.test(pem)) return;
  throw new LocalBrokerError(
    `the local broker's TLS ${what} ${path} is not a PKCS#8 PEM key (BEGIN PRIVATE KEY), the only format ` +
      `RocketMQ's Netty reads: convert it with \`openssl pkcs8 -topk8 -nocrypt -in <key> -out <key.pk8>\``,
  );
}
