/**
 * ACL request signing, identical for ACL 1.0 and 2.0 (Java `AclClientRPCHook`, `AclUtils`, `AclSigner`):
 * ```
 * extFields += AccessKey [, SecurityToken]
 * content    = UTF-8(values of all extFields except Signature, sorted by key in Java String order) ++ body
 * Signature  = base64(HmacSHA1(key = UTF-8(secretKey), content))
 * ```
 * The server recomputes over every extField it receives, so sign last and sign everything sent.
 */
import { createHmac } from 'node:crypto';
import { compareJavaStrings } from './message-queue.js';

/**
 * extFields key of the access key (the user name in ACL 2.0).
 */
export const ACCESS_KEY_FIELD = 'AccessKey';
/**
 * extFields key of the optional security token.
 */
export const SECURITY_TOKEN_FIELD = 'SecurityToken';
/**
 * extFields key of the signature.
 */
export const SIGNATURE_FIELD = 'Signature';

/**
 * Credentials of an ACL user (ACL 2.0: user name and password).
 */
export interface AclCredentials {
  accessKey: string;
  secretKey: string;
  /** Sent and signed when set (STS-style temporary credentials). */
  securityToken?: string | undefined;
}

/**
 * The bytes that get signed: values of all fields except `Signature`, ordered by key in Java `String`
 * order (UTF-16 code units, as in a `TreeMap`), concatenated as UTF-8, then the body bytes.
 */
export function signingContent(extFields: Record<string, string>, body: Buffer | undefined): Buffer {
  const keys = Object.keys(extFields)
    .filter((key) => key !== SIGNATURE_FIELD)
    .sort(compareJavaStrings);
  const values = Buffer.from(keys.map((key) => extFields[key]).join(''), 'utf8');
  return body === undefined || body.length === 0 ? values : Buffer.concat([values, body]);
}

/**
 * Signs a request: returns a new extFields with `AccessKey`, `SecurityToken` (when the credentials have
 * one) and `Signature` added; the input is not modified. Call it on the final extFields, after every
 * other field has been set. A value that is the empty string is signed as `""`; the binary header codec
 * would deliver it to the server as null (signed there as `"null"`), so send signed requests as JSON.
 */
export function signRequest(
  extFields: Record<string, string>,
  body: Buffer | undefined,
  credentials: AclCredentials,
): Record<string, string> {
  const signed: Record<string, string> = {};
  for (const [key, value] of Object.entries(extFields)) {
    if (key !== SIGNATURE_FIELD) defineOwn(signed, key, value);
  }
  signed[ACCESS_KEY_FIELD] = credentials.accessKey;
  if (credentials.securityToken !== undefined) signed[SECURITY_TOKEN_FIELD] = credentials.securityToken;
  signed[SIGNATURE_FIELD] = createHmac('sha1', Buffer.from(credentials.secretKey, 'utf8'))
    .update(signingContent(signed, body))
    .digest('base64');
  return signed;
}

/** Sets an own property even for a key such as `__proto__`. */
function defineOwn(target: Record<string, string>, key: string, value: string): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
