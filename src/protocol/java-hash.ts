/**
 * Java `String.hashCode()`, needed because the broker filters tags by the hash codes a consumer sends in
 * `SubscriptionData.codeSet` and compares them with the `tagsCode` it stored for each message.
 */

/**
 * Java's `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units, as a signed
 * 32-bit integer. JS strings are UTF-16 like Java's, so code units match one to one (a character
 * outside the BMP counts as its two surrogates in both).
 */
export function javaStringHashCode(s: string): number {
  let hash = 0;
  for (let i = 0; i < s.length; i++) {
    // Math.imul keeps the multiplication in 32-bit two's complement; `| 0` wraps the sum.
    hash = (Math.imul(hash, 31) + s.charCodeAt(i)) | 0;
  }
  return hash;
}
