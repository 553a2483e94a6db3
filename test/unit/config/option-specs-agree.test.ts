/**
 * One definition per consumer option (`CONSUMER_OPTION_SPECS`): the run config's JSON Schema, the
 * Serverless event's JSON Schema (as registered with the framework), the README's config reference, the
 * reference of docs/deploying.md, the resolved run config and the consumer runtime must all state the
 * spec's range, words and default. A surface that restates one by hand and drifts fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configKeys, type SchemaNode, schemaKeys } from '../../../src/config/config-keys.js';
import { parseConfig } from '../../../src/config/load-config.js';
import {
  CONSUMER_OPTION_SPECS,
  type ConsumerOptionName,
  type ConsumerOptionSpec,
} from '../../../src/consumer/consumer-option-specs.js';
import { normalizeConsumerOptions } from '../../../src/consumer/consumer-options.js';
import { consumerOptionsOf } from '../../../src/poller/poller.js';
import { rocketmqEventJsonSchema } from '../../../src/serverless/plugin-json-schemas.js';
import { README_PATH } from '../../support/readme-config-reference.js';
import { DEPLOYING_DOC_PATH } from '../serverless/deploying-reference.js';

/** A surface's key of a consumer option; `scale` 1000 where the surface counts seconds and the consumer ms. */
interface Exposure {
  readonly key: string;
  readonly option: ConsumerOptionName;
  readonly scale: number;
}

const expose = (key: string, option: ConsumerOptionName, scale = 1): Exposure => ({ key, option, scale });

/** Every key of the run config that sets a consumer option. */
const RUN_CONFIG_KEYS: readonly Exposure[] = [
  expose('shutdownTimeoutMs', 'shutdownTimeoutMs'),
  expose('offsets.persistIntervalMs', 'persistIntervalMs'),
  ...(
    [
      'batchSize',
      'maximumBatchingWindowMs',
      'maxConcurrency',
      'orderly',
      'orderlyFailure',
      'maxReconsumeTimes',
      'messageModel',
      'consumeMode',
      'allocateStrategy',
      'allocateVirtualNodes',
      'startingPosition',
      'pullThresholdForQueue',
      'pullThresholdSizeForQueue',
      'pullThresholdSizeForTopic',
      'maxDecompressedBodyBytes',
      'maxDecompressedPullBytes',
      'consumeConcurrentlyMaxSpan',
      'consumeTimeoutMs',
    ] as const
  ).map((option) => expose(`mappings[].${option}`, option)),
];

/** Every key of a `rocketmq` event that sets a consumer option. */
const EVENT_KEYS: readonly Exposure[] = [
  expose('batchSize', 'batchSize'),
  expose('maximumBatchingWindow', 'maximumBatchingWindowMs', 1000),
  expose('startingPosition', 'startingPosition'),
  expose('orderly', 'orderly'),
  expose('orderlyFailure', 'orderlyFailure'),
  expose('maxConcurrency', 'maxConcurrency'),
  expose('maxReconsumeTimes', 'maxReconsumeTimes'),
  expose('messageModel', 'messageModel'),
  expose('consumeMode', 'consumeMode'),
  expose('allocateStrategy', 'allocateStrategy'),
  expose('allocateVirtualNodes', 'allocateVirtualNodes'),
];

const specOf = (option: ConsumerOptionName): ConsumerOptionSpec => CONSUMER_OPTION_SPECS[option];

/** The spec as a JSON Schema node states it (the default in the surface's unit, when whole). */
function expectedNode(spec: ConsumerOptionSpec, scale: number): Record<string, unknown> {
  switch (spec.kind) {
    case 'integer': {
      const node: Record<string, unknown> = {
        type: 'integer',
        minimum: Math.ceil(spec.minimum / scale),
        maximum: Math.floor(spec.maximum / scale),
      };
      return Number.isInteger(spec.default / scale) ? { ...node, default: spec.default / scale } : node;
    }
    case 'enum':
      return { enum: [...spec.values], default: spec.default };
    case 'boolean':
      return { type: 'boolean', default: spec.default };
  }
}

/** The spec's type and default as the reference tables render them. */
function expectedCells(spec: ConsumerOptionSpec, scale: number): { type: string; default: string } {
  const shown = String(spec.kind === 'integer' ? spec.default / scale : spec.default);
  switch (spec.kind) {
    case 'integer':
      return {
        type: `integer ${Math.ceil(spec.minimum / scale)}–${Math.floor(spec.maximum / scale)}`,
        default: shown,
      };
    case 'enum':
      return { type: spec.values.map((value) => `\`${value}\``).join(' \\| '), default: shown };
    case 'boolean':
      return { type: 'boolean', default: shown };
  }
}

/** `value` as a whole word of a cell: `` `100` `` or `0.5 s`, but not the `100` of `1000`. */
function standingAlone(value: string): RegExp {
  return new RegExp(`(^|[^0-9.])${value.replaceAll('.', '\\.')}([^0-9.]|$)`);
}

/** The node of `key` among a schema's keys. */
function nodeAt(keys: readonly { path: string; node: SchemaNode }[], key: string): SchemaNode {
  const found = keys.find((candidate) => candidate.path === key);
  if (found === undefined) throw new Error(`no key ${key}`);
  return found.node;
}

/** The rows of the generated table between `<!-- name:start -->` and `<!-- name:end -->`: key → cells. */
function tableRows(path: string, name: string): Map<string, string[]> {
  const text = readFileSync(path, 'utf8');
  const from = text.indexOf(`<!-- ${name}:start -->`);
  const to = text.indexOf(`<!-- ${name}:end -->`);
  if (from < 0 || to < from) throw new Error(`${path} lacks the ${name} block`);
  const rows = new Map<string, string[]>();
  for (const line of text.slice(from, to).split('\n')) {
    const match = /^\| `([^`]+)` \|(.*)\|$/.exec(line);
    if (match?.[1] === undefined || match[2] === undefined) continue;
    rows.set(
      match[1],
      match[2].split(/(?<!\\)\|/).map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The option names a surface's keys end in (`mappings[].batchSize` → `batchSize`). */
function optionNamedKeys(paths: readonly string[]): string[] {
  return paths.filter((path) => (path.split('.').pop() ?? '') in CONSUMER_OPTION_SPECS);
}

describe('the one definition of each consumer option', () => {
  it('lists every key of the run config and of the event named after a consumer option', () => {
    expect(optionNamedKeys(configKeys().map((key) => key.path)).sort()).toEqual(
      RUN_CONFIG_KEYS.map((exposure) => exposure.key).sort(),
    );
    const eventKeys = schemaKeys(rocketmqEventJsonSchema() as SchemaNode).map((key) => key.path);
    expect(optionNamedKeys(eventKeys).sort()).toEqual(
      EVENT_KEYS.filter((exposure) => exposure.scale === 1)
        .map((exposure) => exposure.key)
        .sort(),
    );
  });

  it.each(RUN_CONFIG_KEYS)(
    'the run config schema states $key as the spec of $option',
    ({ key, option, scale }) => {
      const spec = specOf(option);
      const node = nodeAt(configKeys(), key);
      const expected = expectedNode(spec, scale);
      if (node.defaultText !== undefined) {
        // A default the config computes (consumeTimeoutMs for Lambda functions) starts from the spec's.
        delete expected.default;
        expect(node.defaultText).toMatch(standingAlone(String(spec.default)));
      }
      expect(node).toMatchObject(expected);
      expect(node.description).toContain(spec.description);
    },
  );

  it.each(EVENT_KEYS)(
    'the Serverless event schema states $key as the spec of $option',
    ({ key, option, scale }) => {
      const spec = specOf(option);
      const node = nodeAt(schemaKeys(rocketmqEventJsonSchema() as SchemaNode), key);
      expect(node).toMatchObject(expectedNode(spec, scale));
      expect(node.description).toContain(spec.description);
    },
  );

  it.each(RUN_CONFIG_KEYS)(
    'the README reference shows $key as the spec of $option',
    ({ key, option, scale }) => {
      const cells = tableRows(README_PATH, 'config-reference').get(key);
      const expected = expectedCells(specOf(option), scale);
      expect(cells?.[0]).toBe(expected.type);
      expect(cells?.[1]).toMatch(standingAlone(expected.default));
      expect(cells?.[2]).toContain(specOf(option).description);
    },
  );

  it.each(EVENT_KEYS)(
    'docs/deploying.md shows event key $key as the spec of $option',
    ({ key, option, scale }) => {
      const cells = tableRows(DEPLOYING_DOC_PATH, 'rocketmq-event-reference').get(key);
      const expected = expectedCells(specOf(option), scale);
      expect(cells?.[0]).toBe(expected.type);
      expect(cells?.[1]).toMatch(standingAlone(expected.default));
      expect(cells?.[2]).toContain(specOf(option).description);
    },
  );

  it('the resolved run config and the consumer runtime fill the spec defaults', () => {
    const config = parseConfig(
      {
        nameServer: '127.0.0.1:9876',
        offsets: { store: 'memory' },
        mappings: [{ topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./h.mjs' }],
      },
      { baseDir: '/app', env: {} },
    );
    const mapping = config.mappings[0];
    if (mapping === undefined) throw new Error('no mapping');
    const resolved: Record<string, unknown> = {
      ...mapping,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
      persistIntervalMs: config.offsets.persistIntervalMs,
    };
    for (const { option } of RUN_CONFIG_KEYS) {
      expect(resolved[option], option).toBe(specOf(option).default);
    }
    const normalized: Record<string, unknown> = {
      ...normalizeConsumerOptions({ name: 'm', topic: 'T', consumerGroup: 'G' }),
    };
    for (const [option, spec] of Object.entries(CONSUMER_OPTION_SPECS)) {
      expect(normalized[option], option).toBe(spec.default);
    }
  });

  it('applies the defaults once: the config path hands the consumer every option it exposes', () => {
    const config = parseConfig(
      {
        nameServer: '127.0.0.1:9876',
        offsets: { store: 'memory' },
        mappings: [{ topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./h.mjs' }],
      },
      { baseDir: '/app', env: {} },
    );
    const mapping = config.mappings[0];
    if (mapping === undefined) throw new Error('no mapping');
    const given: Record<string, unknown> = {
      ...consumerOptionsOf(mapping, config.shutdownTimeoutMs, config.offsets.persistIntervalMs),
    };
    // normalizeConsumerOptions falls back to a spec default only for what the caller left out.
    for (const { option } of RUN_CONFIG_KEYS) expect(given[option], option).toBeDefined();
  });
});
