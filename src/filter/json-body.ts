import { MAX_BODY_JSON_BYTES } from './filter-limits.js';

/**
 * A message body as the filter sees it: parsed as JSON when it is JSON and at most
 * {@link MAX_BODY_JSON_BYTES} long, {@link NOT_JSON} otherwise (not UTF-8 JSON, or too large to parse).
 * The filter parses text bodies here; byte bodies go through json-body-scanner.ts, which must answer as
 * this does (its tests use this as their oracle).
 */

/** The body is not JSON (or over {@link MAX_BODY_JSON_BYTES}): patterns that look inside `body` do not match. */
export const NOT_JSON: unique symbol = Symbol('not JSON');

/**
 * `body` parsed as JSON, or {@link NOT_JSON}. Bytes are decoded as UTF-8; the bound is on bytes for a
 * byte body and on UTF-16 code units for a string body.
 */
export function parseJsonBody(body: Uint8Array | string | undefined): unknown {
  if (body === undefined || body.length === 0 || body.length > MAX_BODY_JSON_BYTES) return NOT_JSON;
  const text =
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}
