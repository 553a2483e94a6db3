/**
 * Spotting a TLS server behind a plaintext link from the first bytes it sends, so the mismatch is
 * reported as a permanent configuration error instead of being retried forever (the other direction, a
 * plaintext server behind a TLS link, is read from the handshake error by `classifyTlsError`).
 *
 * A RocketMQ frame starts with its int32 length, at most 16 MiB, so its first byte is always 0. A TLS
 * record starts with its content type (0x15 alert, 0x16 handshake) and the protocol major version 3
 * with a minor version 0 (SSL 3.0) to 4 (TLS 1.3): the two can never be confused.
 */

/** TLS record content types a server sends first: an alert (refusing our plaintext) or a handshake. */
const TLS_ALERT = 0x15;
const TLS_HANDSHAKE = 0x16;
const TLS_MAJOR_VERSION = 0x03;
const TLS_MAX_MINOR_VERSION = 0x04;

/**
 * Whether the first bytes a peer sent are a TLS record header: `true` or `false` once three bytes are
 * known, `undefined` while fewer arrived and they still could be.
 */
export function looksLikeTlsRecord(firstBytes: Buffer): boolean | undefined {
  const type = firstBytes[0];
  if (type === undefined) return undefined;
  if (type !== TLS_ALERT && type !== TLS_HANDSHAKE) return false;
  const major = firstBytes[1];
  if (major === undefined) return undefined;
  if (major !== TLS_MAJOR_VERSION) return false;
  const minor = firstBytes[2];
  if (minor === undefined) return undefined;
  return minor <= TLS_MAX_MINOR_VERSION;
}
