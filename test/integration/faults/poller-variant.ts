/**
 * One of several pollers a scenario runs against the same broker with different settings (wrong keys,
 * another TLS setting): each gets its own directory, config, ledger file and heartbeat file, so that
 * what one consumed and what `health` said of it are never mixed up with the next one's.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { RunConfigInput } from '../../../src/config/config-schema.js';
import { PollerSeries, writePollerConfig } from './fault-scenario.js';
import { HealthWatch } from './health-watch.js';

/** A poller variant, not started yet. */
export interface PollerVariant {
  poller: PollerSeries;
  /** The ledger file its handler writes. */
  ledgerFile: string;
  /** `rocketmq-lambda health` on its heartbeat file (not started). */
  health: HealthWatch;
}

/**
 * Prepares variant `name` under `dir`: `<dir>/<name>/poller.json` from `config(variantDir)` (mapping
 * paths are relative to the config file), `<dir>/<name>.ledger` and `<dir>/<name>.health`.
 *
 * @example
 * ```ts
 * const wrong = await pollerVariant(dir, 'wrong-secret', (at) => ({ nameServer, acl, offsets,
 *   mappings: [ledgerMapping(at, { topic, consumerGroup: group })] }));
 * wrong.poller.start();
 * wrong.health.start();
 * ```
 */
export async function pollerVariant(
  dir: string,
  name: string,
  config: (
    variantDir: string,
  ) => Omit<RunConfigInput, 'nameServer'> & Partial<Pick<RunConfigInput, 'nameServer'>>,
): Promise<PollerVariant> {
  const variantDir = path.join(dir, name);
  await mkdir(variantDir);
  const ledgerFile = path.join(dir, `${name}.ledger`);
  const healthFile = path.join(dir, `${name}.health`);
  const configFile = await writePollerConfig(variantDir, config(variantDir));
  return {
    poller: new PollerSeries(configFile, {
      LEDGER_FILE: ledgerFile,
      ROCKETMQ_LAMBDA_HEALTH_FILE: healthFile,
    }),
    ledgerFile,
    health: new HealthWatch(healthFile),
  };
}

/**
 * The last non-empty line of `text` (a refused poller's stderr ends with the cause).
 *
 * @example
 * ```ts
 * lastLine('a\nb\n') // => 'b'
 * ```
 */
export function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}

/**
 * A refused poller's stderr line without the `rocketmq-lambda run: mapping <name> could not start:`
 * lead-in, for notes.
 *
 * @example
 * ```ts
 * causeOf('rocketmq-lambda run: mapping m could not start: every broker refused ...') // => 'every broker refused ...'
 * ```
 */
export function causeOf(line: string): string {
  const match = /^rocketmq-lambda run: mapping \S+ (?:could not start|failed): /.exec(line);
  return match === null ? line : line.slice(match[0].length);
}
