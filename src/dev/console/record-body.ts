/**
 * A record's body as the dev console shows it (docs/console-api.md): UTF-8 text, that text parsed when it
 * is JSON, or the bytes as hex when they are not UTF-8.
 */

/** A decoded body: JSON (parsed), text, or binary (hex of every byte). */
export type RecordBody =
  | { readonly kind: 'json'; readonly json: unknown }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'binary'; readonly hex: string; readonly bytes: number };

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body of `bytes`: JSON when the text parses as JSON, else text when valid UTF-8, else binary. */
export function recordBodyOf(bytes: Uint8Array): RecordBody {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { kind: 'binary', hex: Buffer.from(bytes).toString('hex'), bytes: bytes.length };
  }
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return { kind: 'json', json: JSON.parse(trimmed) };
    } catch {
      // Not JSON after all: text.
    }
  }
  return { kind: 'text', text };
}

/**
 * The body of an event record as the function received it: base64 unless `bodyEncoding` is `utf8`
 * (docs/writing-a-handler.md, "The event"). Anything else (an edited event's odd body) is shown as text.
 */
export function recordBodyOfEventRecord(body: unknown, bodyEncoding: unknown): RecordBody {
  if (typeof body !== 'string') return { kind: 'text', text: body === undefined ? '' : JSON.stringify(body) };
  if (bodyEncoding === 'utf8') return recordBodyOf(Buffer.from(body, 'utf8'));
  return recordBodyOf(Buffer.from(body, 'base64'));
}
