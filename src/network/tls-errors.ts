/**
 * Why a TLS connection failed, read from the errors Node raises (certificate checks by OpenSSL and
 * Node, alerts sent by the server, our own unusable key or certificate), with whether it is permanent:
 * a failure that will not heal without a change of configuration on one side, so retrying it forever
 * only hides the problem.
 */

/**
 * The short reason of a TLS failure.
 */
export type TlsFailureReason =
  /** The server's chain does not lead to a CA we trust. */
  | 'untrusted-certificate'
  /** The server presented a self-signed certificate, or a chain ending in an untrusted self-signed root. */
  | 'self-signed-certificate'
  | 'expired-certificate'
  | 'certificate-not-yet-valid'
  /** The certificate is valid but names another host (its SANs lack the host or serverName). */
  | 'hostname-mismatch'
  | 'revoked-certificate'
  /** Malformed or unfit certificate: bad signature, wrong key usage, broken CA constraints. */
  | 'invalid-certificate'
  /** The server requires a client certificate (mTLS) and we sent none (TLS 1.3 `certificate_required`). */
  | 'client-certificate-required'
  /** The server refused our client certificate, or (TLS 1.2) wanted one we did not send. */
  | 'client-certificate-rejected'
  /**
   * The server ended the handshake with an `internal_error` alert: how a RocketMQ server doing TLS with
   * OpenSSL (netty-tcnative) refuses a client certificate it does not trust.
   */
  | 'handshake-internal-error'
  /** No TLS version or cipher both sides accept (`handshake_failure`, `protocol_version` alerts). */
  | 'handshake-rejected'
  /** The peer does not speak TLS on this port (its first bytes are not a TLS record). */
  | 'not-tls'
  /** Our own certificate, key or passphrase is unusable (wrong passphrase, key not matching the cert). */
  | 'client-settings-invalid'
  /** The connection closed or reset before the handshake finished: a plaintext-only server does this, but so does a restarting one. */
  | 'handshake-interrupted';

/**
 * A classified TLS failure.
 */
export interface TlsFailure {
  reason: TlsFailureReason;
  /** True when the failure will not go away without a configuration change (ours or the server's). */
  permanent: boolean;
  /** The Node/OpenSSL error code it was read from (e.g. `UNABLE_TO_VERIFY_LEAF_SIGNATURE`). */
  code: string;
  /** One sentence for people: what is wrong and what to change. Holds no secret. */
  description: string;
}

interface ReasonInfo {
  permanent: boolean;
  description: string;
}

const REASONS: Readonly<Record<TlsFailureReason, ReasonInfo>> = {
  'untrusted-certificate': {
    permanent: true,
    description: 'the server certificate is not signed by a CA we trust: configure the CA that signed it',
  },
  'self-signed-certificate': {
    permanent: true,
    description:
      'the server presented a self-signed certificate (or a chain to an untrusted root): trust that CA or give the server a CA-signed certificate',
  },
  'expired-certificate': {
    permanent: true,
    description: 'a certificate of the handshake has expired: renew it',
  },
  'certificate-not-yet-valid': {
    permanent: true,
    description: 'a certificate of the handshake is not valid yet: check its dates and the clocks',
  },
  'hostname-mismatch': {
    permanent: true,
    description:
      'the server certificate does not name the host we connected to: add it to the certificate SANs or set serverName',
  },
  'revoked-certificate': {
    permanent: true,
    description: 'a certificate of the handshake has been revoked',
  },
  'invalid-certificate': {
    permanent: true,
    description: 'the server certificate is malformed or not fit for TLS server use',
  },
  'client-certificate-required': {
    permanent: true,
    description: 'the server requires a client certificate (mTLS): configure a certificate and key',
  },
  'client-certificate-rejected': {
    permanent: true,
    description:
      'the server refused our client certificate, or required one we did not send: check the certificate and the CA the server trusts',
  },
  'handshake-internal-error': {
    // Permanent as a reason, yet a consumer stops only when such refusals keep coming with no success
    // (src/consumer/refusal-watch.ts), so a server's one-off internal error does not stop it.
    permanent: true,
    description:
      'the server ended the TLS handshake with internal_error: a RocketMQ server on OpenSSL (netty-tcnative, shipped with the 5.x proxy jars) refuses a client certificate it does not trust this way: check the certificate and the CA the server trusts',
  },
  'handshake-rejected': {
    permanent: true,
    description: 'client and server share no TLS version or cipher suite',
  },
  'not-tls': {
    permanent: true,
    description: 'the server does not speak TLS on this port: turn TLS off for it or use its TLS port',
  },
  'client-settings-invalid': {
    permanent: true,
    description:
      'our TLS certificate, key or passphrase is unusable (wrong passphrase, key not matching the certificate, not PEM)',
  },
  'handshake-interrupted': {
    permanent: false,
    description:
      'the server closed the connection during the TLS handshake: a server without TLS does this, and so does one that is restarting',
  },
};

/** Node/OpenSSL error codes by reason. Codes not listed here are not classified. */
const CODES: Readonly<Record<string, TlsFailureReason>> = {
  // Certificate verification (OpenSSL X509_V_ERR_* names, as Node reports them).
  UNABLE_TO_GET_ISSUER_CERT: 'untrusted-certificate',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'untrusted-certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted-certificate',
  CERT_UNTRUSTED: 'untrusted-certificate',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed-certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed-certificate',
  CERT_HAS_EXPIRED: 'expired-certificate',
  CERT_NOT_YET_VALID: 'certificate-not-yet-valid',
  CERT_REVOKED: 'revoked-certificate',
  CERT_SIGNATURE_FAILURE: 'invalid-certificate',
  CERT_REJECTED: 'invalid-certificate',
  INVALID_CA: 'invalid-certificate',
  INVALID_PURPOSE: 'invalid-certificate',
  PATH_LENGTH_EXCEEDED: 'invalid-certificate',
  CERT_CHAIN_TOO_LONG: 'invalid-certificate',
  UNABLE_TO_DECRYPT_CERT_SIGNATURE: 'invalid-certificate',
  UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY: 'invalid-certificate',
  ERROR_IN_CERT_NOT_BEFORE_FIELD: 'invalid-certificate',
  ERROR_IN_CERT_NOT_AFTER_FIELD: 'invalid-certificate',
  // Node's own name check (tls.checkServerIdentity), and OpenSSL's when it does the check.
  ERR_TLS_CERT_ALTNAME_INVALID: 'hostname-mismatch',
  HOSTNAME_MISMATCH: 'hostname-mismatch',
  IP_ADDRESS_MISMATCH: 'hostname-mismatch',
  // Alerts the server sent us.
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: 'client-certificate-required',
  ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE: 'client-certificate-rejected',
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN: 'client-certificate-rejected',
  ERR_SSL_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE: 'client-certificate-rejected',
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED: 'client-certificate-rejected',
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_REVOKED: 'client-certificate-rejected',
  ERR_SSL_TLSV1_ALERT_UNKNOWN_CA: 'client-certificate-rejected',
  ERR_SSL_TLSV1_ALERT_ACCESS_DENIED: 'client-certificate-rejected',
  ERR_SSL_TLSV1_ALERT_INTERNAL_ERROR: 'handshake-internal-error',
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'handshake-rejected',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'handshake-rejected',
  ERR_SSL_TLSV1_ALERT_INSUFFICIENT_SECURITY: 'handshake-rejected',
  ERR_SSL_NO_SHARED_CIPHER: 'handshake-rejected',
  ERR_SSL_UNSUPPORTED_PROTOCOL: 'handshake-rejected',
  ERR_SSL_NO_PROTOCOLS_AVAILABLE: 'handshake-rejected',
  ERR_SSL_VERSION_TOO_LOW: 'handshake-rejected',
  // The peer's bytes are not TLS records.
  ERR_SSL_WRONG_VERSION_NUMBER: 'not-tls',
  ERR_SSL_PACKET_LENGTH_TOO_LONG: 'not-tls',
  ERR_SSL_HTTP_REQUEST: 'not-tls',
  ERR_SSL_UNKNOWN_PROTOCOL: 'not-tls',
  // Our own key or certificate (raised while building the secure context).
  ERR_OSSL_BAD_DECRYPT: 'client-settings-invalid',
  ERR_OSSL_EVP_BAD_DECRYPT: 'client-settings-invalid',
  ERR_OSSL_PEM_NO_START_LINE: 'client-settings-invalid',
  ERR_OSSL_PEM_BAD_BASE64_DECODE: 'client-settings-invalid',
  ERR_OSSL_PEM_BAD_END_LINE: 'client-settings-invalid',
  ERR_OSSL_X509_KEY_VALUES_MISMATCH: 'client-settings-invalid',
  ERR_OSSL_UNSUPPORTED: 'client-settings-invalid',
  ERR_OSSL_DECODER_UNSUPPORTED: 'client-settings-invalid',
  ERR_MISSING_PASSPHRASE: 'client-settings-invalid',
};

/**
 * Node's only mark of a connection closed mid-handshake is this message (the code is a plain
 * ECONNRESET, which a reset of an established connection also has).
 */
const HANDSHAKE_INTERRUPTED_MESSAGE = 'Client network socket disconnected before secure TLS connection';

/** How deep {@link classifyTlsError} follows `cause` links. */
const MAX_CAUSE_DEPTH = 8;

/**
 * Classifies a TLS failure: `error` itself or any error on its `cause` chain (so a network layer
 * `ConnectError` or `ConnectionClosedError` wrapping the socket error works too). Returns undefined
 * when nothing on the chain is a known TLS failure (refused connections, timeouts, broker errors).
 */
export function classifyTlsError(error: unknown): TlsFailure | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    const failure = classifyOne(current);
    if (failure !== undefined) return failure;
    current = current.cause;
  }
  return undefined;
}

/**
 * The description and permanence of a reason.
 */
export function tlsFailureReasonInfo(reason: TlsFailureReason): Readonly<ReasonInfo> {
  return REASONS[reason];
}

function classifyOne(error: Error): TlsFailure | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code !== 'string') return undefined;
  const reason: TlsFailureReason | undefined = Object.hasOwn(CODES, code)
    ? CODES[code]
    : code === 'ECONNRESET' && error.message.startsWith(HANDSHAKE_INTERRUPTED_MESSAGE)
      ? 'handshake-interrupted'
      : undefined;
  if (reason === undefined) return undefined;
  return { reason, code, ...REASONS[reason] };
}
