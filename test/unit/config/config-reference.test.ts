import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAPPING_DEFAULTS, RUN_DEFAULTS } from '../../../src/config/config-defaults.js';
import { configKeys } from '../../../src/config/config-keys.js';
import { configReference } from '../../../src/config/config-reference.js';
import { runConfigSchema } from '../../../src/config/config-schema.js';

/** The contract other tools (serverless plugin, infra templates, docs) rely on: change it deliberately. */
const CONTRACT_KEYS = [
  'nameServer',
  'acl',
  'acl.accessKey',
  'acl.secretKey',
  'acl.securityToken',
  'tls',
  'tls.caFile',
  'tls.certFile',
  'tls.keyFile',
  'tls.ca',
  'tls.cert',
  'tls.key',
  'tls.keyPassphrase',
  'tls.serverName',
  'tls.verifyServer',
  'zone',
  'shutdownTimeoutMs',
  'offsets',
  'offsets.store',
  'offsets.table',
  'offsets.region',
  'offsets.endpoint',
  'offsets.createTable',
  'offsets.path',
  'offsets.persistIntervalMs',
  'lambda',
  'lambda.region',
  'lambda.endpoint',
  'destinations',
  'destinations.endpoint',
  'metrics',
  'metrics.emf',
  'metrics.emf.namespace',
  'metrics.emf.intervalSeconds',
  'metrics.prometheus',
  'metrics.prometheus.port',
  'metrics.prometheus.host',
  'metrics.cloudwatch',
  'metrics.cloudwatch.namespace',
  'metrics.cloudwatch.intervalSeconds',
  'metrics.cloudwatch.region',
  'metrics.cloudwatch.endpoint',
  'mappings',
  'mappings[].name',
  'mappings[].topic',
  'mappings[].consumerGroup',
  'mappings[].filter',
  'mappings[].filter.sql',
  'mappings[].filters',
  'mappings[].function',
  'mappings[].functionTimeoutMs',
  'mappings[].batchSize',
  'mappings[].maximumBatchingWindowMs',
  'mappings[].maxConcurrency',
  'mappings[].orderly',
  'mappings[].orderlyFailure',
  'mappings[].maxReconsumeTimes',
  'mappings[].messageModel',
  'mappings[].consumeMode',
  'mappings[].allocateStrategy',
  'mappings[].allocateVirtualNodes',
  'mappings[].zoneNearby',
  'mappings[].zoneNearby.brokerZones',
  'mappings[].startingPosition',
  'mappings[].startingPositionTimestamp',
  'mappings[].pullThresholdForQueue',
  'mappings[].pullThresholdSizeForQueue',
  'mappings[].pullThresholdSizeForTopic',
  'mappings[].maxDecompressedBodyBytes',
  'mappings[].maxDecompressedPullBytes',
  'mappings[].consumeConcurrentlyMaxSpan',
  'mappings[].consumeTimeoutMs',
  'mappings[].bisectBatchOnError',
  'mappings[].messageTrace',
  'mappings[].messageTrace.topic',
  'mappings[].maxRecordAgeSeconds',
  'mappings[].onFailure',
];

/** Keys found by walking the zod schema itself (independent of the JSON Schema walk under test). */
function zodKeys(schema: z.ZodType, prefix: string): string[] {
  if (schema instanceof z.ZodOptional) return zodKeys(schema.unwrap() as z.ZodType, prefix);
  if (schema instanceof z.ZodArray) return zodKeys(schema.element as z.ZodType, `${prefix}[]`);
  if (schema instanceof z.ZodUnion) {
    return (schema.options as readonly z.ZodType[]).flatMap((option) => zodKeys(option, prefix));
  }
  if (schema instanceof z.ZodObject) {
    return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, child]) => {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      return [path, ...zodKeys(child, path)];
    });
  }
  return [];
}

function rowOf(reference: string, key: string): string[] {
  const row = reference.split('\n').find((line) => line.startsWith(`| \`${key}\` |`));
  if (row === undefined) throw new Error(`no row for ${key}`);
  return row
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

describe('configReference', () => {
  const reference = configReference();

  it('lists every key of the schema, once, in schema order', () => {
    const listed = [...reference.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]);
    expect(listed).toEqual(zodKeys(runConfigSchema, ''));
    expect(listed).toEqual(configKeys().map((key) => key.path));
  });

  it('the keys are the documented contract', () => {
    expect(configKeys().map((key) => key.path)).toEqual(CONTRACT_KEYS);
  });

  it('every key has a description', () => {
    for (const key of configKeys()) expect(key.node.description, key.path).toMatch(/\S/);
  });

  it('is a Markdown table with a header', () => {
    expect(reference.startsWith('| Key | Type | Default | Description |\n|---|---|---|---|\n')).toBe(true);
    for (const line of reference.trimEnd().split('\n')) expect(line).toMatch(/^\|.*\|$/);
  });

  it('shows the defaults the resolver applies, ranges, enums and required keys', () => {
    expect(rowOf(reference, 'mappings[].batchSize').slice(1, 3)).toEqual([
      'integer 1–10000',
      `\`${MAPPING_DEFAULTS.batchSize}\``,
    ]);
    expect(rowOf(reference, 'mappings[].messageModel').slice(1, 3)).toEqual([
      '`CLUSTERING` \\| `BROADCASTING`',
      '`CLUSTERING`',
    ]);
    expect(rowOf(reference, 'shutdownTimeoutMs')[2]).toBe(`\`${RUN_DEFAULTS.shutdownTimeoutMs}\``);
    expect(rowOf(reference, 'offsets.path')[2]).toBe(`\`${RUN_DEFAULTS.offsetsPath}\``);
    expect(rowOf(reference, 'mappings[].topic')[2]).toBe('required');
    expect(rowOf(reference, 'mappings[].name')[2]).toBe('the consumerGroup');
    expect(rowOf(reference, 'nameServer')[1]).toBe('string \\| list of string');
    expect(rowOf(reference, 'mappings[].maxRecordAgeSeconds').slice(1, 3)).toEqual([
      'integer -1–604800',
      '`-1`',
    ]);
    expect(rowOf(reference, 'mappings[].functionTimeoutMs').slice(1, 3)).toEqual([
      'integer 1000–900000',
      '`900000`',
    ]);
    expect(rowOf(reference, 'mappings[].bisectBatchOnError')[2]).toBe('`false`');
    expect(rowOf(reference, 'mappings[].onFailure')[2]).toBe('none');
  });
});
