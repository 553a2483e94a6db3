/**
 * The one error a socket link fails its in-flight work with when it closes on its own: what happened,
 * in words an operator can act on, and whether retrying can help. Closes we decide (a timeout, a stalled
 * or malformed frame, a TLS peer on a plaintext link) build their own error.
 */
import { ConnectError, ConnectionClosedError, type NetworkError } from './errors.js';
import { classifyTlsError } from './tls-errors.js';

/**
 * What the link knew when its socket closed.
 */
export interface LinkCloseFacts {
  address: string;
  /** The link was TLS. */
  tls: boolean;
  /** The socket had connected (TLS: finished its handshake). */
  wasOpen: boolean;
  /** The socket error, if any. */
  cause: Error | undefined;
  /** The socket closed on its own (the peer closed or reset it, the network failed), not by our hand. */
  closedByPeer: boolean;
  /** We wrote at least one frame and the peer never sent a single byte. */
  silentPeer: boolean;
}

/**
 * A ConnectError when the socket never opened, a ConnectionClosedError otherwise; both retriable unless
 * permanent: a TLS handshake that met a peer not speaking TLS, or a certificate refused by either side
 * (see tls-errors.ts). Messages carry hints
 * for the two silent TLS mismatches: a TLS-only server (RocketMQ's `tls.server.mode=enforcing`) drops a
 * plaintext client without a byte, and a plaintext server closes on a ClientHello it cannot frame.
 */
export function linkCloseError(facts: LinkCloseFacts): NetworkError {
  const { address, cause } = facts;
  const reason = cause === undefined ? '' : describe(cause);
  const tlsFailure = facts.tls ? classifyTlsError(cause) : undefined;
  if (tlsFailure?.permanent === true && tlsFailure.reason !== 'not-tls') {
    // Certificates refused either way: ours by the server (under TLS 1.3 its alert comes after our
    // handshake finished, so the link was open), or the server's by us. Retrying cannot help.
    const what = facts.wasOpen ? `connection to ${address} closed` : `could not connect to ${address}`;
    const message = `${what}: ${tlsFailure.description} (${tlsFailure.code})`;
    return facts.wasOpen
      ? new ConnectionClosedError(message, { address, cause, permanent: true })
      : new ConnectError(message, { address, cause, permanent: true });
  }
  if (facts.wasOpen) {
    const hint =
      facts.closedByPeer && !facts.tls && facts.silentPeer
        ? 'the peer closed the connection without sending a single byte: a TLS-only server? check TLS settings'
        : '';
    const detail = [reason, hint].filter((part) => part !== '').join('; ');
    const message = `connection to ${address} closed${detail === '' ? '' : ` (${detail})`}`;
    return new ConnectionClosedError(message, { address, cause, peerSilent: hint !== '' });
  }
  if (tlsFailure?.reason === 'not-tls') {
    return new ConnectError(
      `the peer at ${address} does not speak TLS (${reason}); disable TLS or check the address`,
      { address, cause, permanent: true },
    );
  }
  const hint =
    tlsFailure?.reason === 'handshake-interrupted'
      ? '; the peer closed the connection during the TLS handshake: a plaintext server? check TLS settings'
      : '';
  const message = `could not connect to ${address}${reason === '' ? '' : ` (${reason}${hint})`}`;
  return new ConnectError(message, { address, cause });
}

/** A short reason for error messages; the full cause travels as `cause` (loggers print it). */
function describe(cause: Error): string {
  const code = (cause as NodeJS.ErrnoException).code;
  if (typeof code === 'string') return code;
  return cause.name === 'Error' ? cause.message : cause.name;
}
