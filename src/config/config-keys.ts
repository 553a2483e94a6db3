/**
 * The config's keys as data: the JSON Schema zod derives from {@link runConfigSchema}, walked into a flat
 * list of keys. The reference table and the "did you mean" hints both read it, so neither can drift from
 * the schema.
 */
import { z } from 'zod';
import type { KeyPath } from './config-problem.js';
import { runConfigSchema } from './config-schema.js';

/** A JSON Schema node, as far as we read it. */
export interface SchemaNode {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly default?: unknown;
  readonly defaultText?: string;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly minItems?: number;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly items?: SchemaNode;
  readonly anyOf?: readonly SchemaNode[];
}

/**
 * One key of the config.
 */
export interface ConfigKey {
  /** Dotted path; array elements as `[]`: `mappings[].filter.sql`. */
  readonly path: string;
  readonly node: SchemaNode;
  readonly required: boolean;
}

let cachedRoot: SchemaNode | undefined;

/**
 * The JSON Schema (draft 2020-12) of a config file, with each key's description and default.
 */
export function configJsonSchema(): SchemaNode {
  cachedRoot ??= z.toJSONSchema(runConfigSchema, { io: 'input' }) as SchemaNode;
  return cachedRoot;
}

/**
 * Every key of the config, depth first in schema order. Object-valued alternatives of a union (the
 * `{ sql }` form of `filter`) contribute their keys too.
 */
export function configKeys(): ConfigKey[] {
  return schemaKeys(configJsonSchema());
}

/**
 * Every key of a JSON Schema object (as zod derives it), depth first in schema order: what
 * {@link configKeys} lists for the run config, for any other schema (the Serverless plugin's).
 */
export function schemaKeys(root: SchemaNode): ConfigKey[] {
  const keys: ConfigKey[] = [];
  collectKeys(root, '', keys);
  return keys;
}

function collectKeys(node: SchemaNode, prefix: string, out: ConfigKey[]): void {
  const required = new Set(node.required ?? []);
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    out.push({ path, node: child, required: required.has(name) });
    for (const nested of objectNodesOf(child)) collectKeys(nested.node, `${path}${nested.suffix}`, out);
  }
}

/** The object schemas under a node: itself, its array items, its union alternatives. */
function objectNodesOf(node: SchemaNode): { node: SchemaNode; suffix: string }[] {
  if (node.properties !== undefined) return [{ node, suffix: '' }];
  if (node.items !== undefined) {
    return objectNodesOf(node.items).map((found) => ({ node: found.node, suffix: `[]${found.suffix}` }));
  }
  return (node.anyOf ?? []).flatMap(objectNodesOf);
}

/**
 * The keys allowed in the object at `path` (array indexes and union alternatives followed), for "did you
 * mean" hints; empty when `path` names no object. `root` is the poller config's JSON Schema unless
 * another schema's (the Serverless plugin's) is given.
 */
export function knownKeysAt(path: KeyPath, root: SchemaNode = configJsonSchema()): string[] {
  let nodes: SchemaNode[] = [root];
  for (const part of path) {
    nodes = nodes.flatMap(objectOrArrayNodes).flatMap((node) => {
      if (typeof part === 'number') return node.items === undefined ? [] : [node.items];
      const child = node.properties?.[part];
      return child === undefined ? [] : [child];
    });
  }
  return [
    ...new Set(nodes.flatMap(objectOrArrayNodes).flatMap((node) => Object.keys(node.properties ?? {}))),
  ];
}

function objectOrArrayNodes(node: SchemaNode): SchemaNode[] {
  if (node.properties !== undefined || node.items !== undefined) return [node];
  return (node.anyOf ?? []).flatMap(objectOrArrayNodes);
}
