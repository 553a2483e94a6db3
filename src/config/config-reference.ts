/**
 * The config reference for the README, rendered from the schema itself (keys, types, ranges, defaults,
 * descriptions), so the documentation cannot drift from what is validated.
 */
import { type ConfigKey, configKeys, type SchemaNode } from './config-keys.js';

/**
 * A Markdown table of every config key: key path (`mappings[].batchSize`), type and range, default
 * (or "required"), description.
 */
export function configReference(): string {
  return referenceTable(configKeys());
}

/**
 * The Markdown table of `keys` ({@link configReference}'s columns), for any schema's keys.
 */
export function referenceTable(keys: readonly ConfigKey[]): string {
  const rows = keys.map(
    (key) =>
      `| \`${key.path}\` | ${cell(typeOf(key.node))} | ${cell(defaultOf(key))} | ${cell(key.node.description ?? '')} |`,
  );
  return ['| Key | Type | Default | Description |', '|---|---|---|---|', ...rows, ''].join('\n');
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function defaultOf(key: ConfigKey): string {
  const { node } = key;
  if (node.defaultText !== undefined) return node.defaultText;
  if (node.default !== undefined) return `\`${String(node.default)}\``;
  return key.required ? 'required' : '—';
}

function typeOf(node: SchemaNode): string {
  if (node.enum !== undefined) return node.enum.map((value) => `\`${String(value)}\``).join(' | ');
  if (node.const !== undefined) return `\`${String(node.const)}\``;
  // Two object forms (`{ build }`, `{ pullThroughCache }`) read as one `object`: their keys have rows.
  if (node.anyOf !== undefined) return [...new Set(node.anyOf.map(typeOf))].join(' | ');
  const type = typeof node.type === 'string' ? node.type : node.type?.join(' | ');
  switch (type) {
    case 'integer':
    case 'number':
      return `${type}${rangeOf(node)}`;
    case 'array':
      return node.items === undefined ? 'list' : `list of ${typeOf(node.items)}`;
    case 'object':
      return 'object';
    default:
      return type ?? 'any';
  }
}

function rangeOf(node: SchemaNode): string {
  const min = node.minimum;
  const max = node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER ? node.maximum : undefined;
  if (min !== undefined && max !== undefined) return ` ${min}–${max}`;
  if (min !== undefined) return ` ≥ ${min}`;
  if (max !== undefined) return ` ≤ ${max}`;
  return '';
}
