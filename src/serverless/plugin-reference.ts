/**
 * The reference tables of docs/deploying.md, rendered from the plugin's schemas (keys, types, ranges,
 * defaults, descriptions) the way the README's run-config reference is, so the docs cannot drift from
 * what the plugin validates.
 */
import { z } from 'zod';
import { type SchemaNode, schemaKeys } from '../config/config-keys.js';
import { referenceTable } from '../config/config-reference.js';
import { rocketmqCustomSchema } from './rocketmq-custom-schema.js';
import { rocketmqEventSchema } from './rocketmq-event-schema.js';

/**
 * The Markdown table of every `custom.rocketmq` key.
 */
export function customReference(): string {
  return referenceTable(schemaKeys(documented(rocketmqCustomSchema)));
}

/**
 * The Markdown table of every key of a `rocketmq` event.
 */
export function eventReference(): string {
  return referenceTable(schemaKeys(documented(rocketmqEventSchema)));
}

/**
 * The schema as JSON Schema for the table: each union of intrinsic functions shown as the one word
 * "intrinsic", and zod's safe-integer bounds of an integer without a range left out.
 */
function documented(schema: z.ZodType): SchemaNode {
  return forTable(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })) as SchemaNode;
}

function forTable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forTable);
  if (typeof node !== 'object' || node === null) return node;
  const record = { ...(node as Record<string, unknown>) };
  if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
  const alternatives = record.anyOf;
  if (Array.isArray(alternatives) && alternatives.length > 0 && alternatives.every(isIntrinsicNode)) {
    const { anyOf: _alternatives, ...rest } = record;
    // The intrinsics that yield a list (a Ref to a list parameter, Fn::Split) in place of a list.
    const list = alternatives.some((alternative) => intrinsicName(alternative) === 'Fn::Split');
    return { ...rest, type: list ? 'list intrinsic' : 'intrinsic' };
  }
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, forTable(value)]));
}

function isIntrinsicNode(node: unknown): boolean {
  return intrinsicName(node) !== undefined;
}

/** The function a one-property object schema stands for (`Ref`, `Fn::Sub`), if it is one. */
function intrinsicName(node: unknown): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const properties = (node as { properties?: unknown }).properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const keys = Object.keys(properties);
  const [key] = keys;
  return keys.length === 1 && key !== undefined && (key === 'Ref' || key.startsWith('Fn::'))
    ? key
    : undefined;
}
