/**
 * The JSON Schemas the plugin registers with the framework (`defineFunctionEvent`, `defineCustomProperties`),
 * derived from the zod schemas the compiler validates with, so the two never disagree. The framework
 * validates serverless.yml with them before any hook runs (in its default `configValidationMode: error`, a
 * typo stops the command with a message naming it).
 */
import { z } from 'zod';
import { rocketmqCustomSchema } from './rocketmq-custom-schema.js';
import { rocketmqEventSchema } from './rocketmq-event-schema.js';

/**
 * A JSON Schema object (draft-07).
 */
export type JsonSchema = Record<string, unknown>;

/** Metadata of the docs' reference table that is no JSON Schema keyword (AJV's strict mode refuses it). */
const DOCS_ONLY_KEYS: ReadonlySet<string> = new Set(['defaultText']);

function toFrameworkSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-07',
    io: 'input',
    unrepresentable: 'any',
  }) as JsonSchema;
  return withoutDocsKeys(rest) as JsonSchema;
}

function withoutDocsKeys(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDocsKeys);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => !DOCS_ONLY_KEYS.has(key))
      .map(([key, value]) => [key, withoutDocsKeys(value)]),
  );
}

/**
 * The schema of `functions.<fn>.events[].rocketmq` (closed: `additionalProperties: false`).
 *
 * @example
 * ```ts
 * serverless.configSchemaHandler.defineFunctionEvent('aws', 'rocketmq', rocketmqEventJsonSchema());
 * ```
 */
export function rocketmqEventJsonSchema(): JsonSchema {
  return toFrameworkSchema(rocketmqEventSchema);
}

/**
 * The schema of `custom.rocketmq` (closed).
 *
 * @example
 * ```ts
 * serverless.configSchemaHandler.defineCustomProperties({ properties: { rocketmq: rocketmqCustomJsonSchema() } });
 * ```
 */
export function rocketmqCustomJsonSchema(): JsonSchema {
  return toFrameworkSchema(rocketmqCustomSchema);
}
