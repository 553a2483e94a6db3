/**
 * A run config of one mapping for key tests: build it with extra mapping and top-level keys, parse it, or
 * read the problems a refused one names.
 */
import { ConfigError } from '../../../src/config/config-error.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { RunConfig } from '../../../src/config/run-config.js';

const MAPPING = { topic: 'Orders', consumerGroup: 'orders-fn', function: 'local:./h.mjs' };

/** The raw config: one mapping of Orders with `mapping`'s keys, plus `top`'s keys. */
export function raw(mapping: Record<string, unknown> = {}, top: Record<string, unknown> = {}): unknown {
  return {
    nameServer: '127.0.0.1:9876',
    offsets: { store: 'memory' },
    mappings: [{ ...MAPPING, ...mapping }],
    ...top,
  };
}

/** Parses with base directory /app and the given environment. */
export function parse(input: unknown, env: Record<string, string> = {}): RunConfig {
  return parseConfig(input, { baseDir: '/app', env });
}

/** The problems of a config that must be refused; throws when it is accepted. */
export function problems(input: unknown): readonly string[] {
  try {
    parse(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the config was accepted');
}
