/**
 * The metadata every config key carries for `configReference()` (description, default), and the small
 * schema builders the config schemas share.
 */
import { z } from 'zod';

/**
 * Metadata shown by `configReference()`: a description, and the default as a value or as words.
 */
export type KeyInfo = {
  description: string;
  default?: string | number | boolean;
  defaultText?: string;
};

/**
 * Types a key's metadata (for `.meta()`).
 */
export function info(meta: KeyInfo): KeyInfo {
  return meta;
}

/**
 * A non-blank string (trimmed).
 */
export const text = () => z.string().trim().min(1);

/**
 * An http(s) endpoint URL.
 */
export const endpointUrl = () =>
  z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. http://127.0.0.1:3002' });

/** An optional integer key in `min`..`max`. */
export const intKey = (min: number, max: number, meta: KeyInfo) =>
  z.number().int().min(min).max(max).optional().meta(info(meta));

/** A DynamoDB table name (the run config's offsets table, the plugin's new or existing one). */
export const tableName = () =>
  z.string().regex(/^[A-Za-z0-9_.-]{3,255}$/, {
    error: 'must be a DynamoDB table name (3–255 of A-Z a-z 0-9 _ . -)',
  });
