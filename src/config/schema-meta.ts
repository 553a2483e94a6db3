/**
 * The metadata every config key carries for `configReference()` (description, default), and the small
 * schema builders the config schemas share.
 */
import { z } from 'zod';

/**
 * Metadata shown by `configReference()`: a description, and the default as a value or as words.
 *
 * @example
 * ```ts
 * const meta: KeyInfo = { description: 'Most messages per invoke.', default: 100 };
 * ```
 */
export type KeyInfo = {
  description: string;
  default?: string | number | boolean;
  defaultText?: string;
};

/**
 * Types a key's metadata (for `.meta()`).
 *
 * @example
 * ```ts
 * z.boolean().optional().meta(info({ description: 'TLS towards brokers.', default: false }));
 * ```
 */
export function info(meta: KeyInfo): KeyInfo {
  return meta;
}

/**
 * A non-blank string (trimmed).
 *
 * @example
 * ```ts
 * const table = text().meta(info({ description: 'The table.' }));
 * ```
 */
export const text = () => z.string().trim().min(1);

/**
 * An http(s) endpoint URL.
 *
 * @example
 * ```ts
 * endpointUrl().safeParse('http://127.0.0.1:3002').success; // => true
 * ```
 */
export const endpointUrl = () =>
  z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. http://127.0.0.1:3002' });
