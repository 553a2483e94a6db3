/**
 * The error of a run config that cannot be used: unreadable, not YAML/JSON, or invalid. It carries every
 * problem found (not only the first), one line each, each naming the key path.
 */
import { RocketMQError } from '../errors.js';

/**
 * A run config was rejected. `problems` holds one line per problem, e.g.
 * `mappings[1].batchSize: must be ≤ 10000`; the CLI prints them one per line and exits with code 2.
 *
 * @example
 * ```ts
 * try { await loadConfig('poller.yaml') } catch (err) {
 *   if (err instanceof ConfigError) for (const line of err.problems) console.error(line);
 *   else throw err;
 * }
 * ```
 */
export class ConfigError extends RocketMQError {
  /** One line per problem, each starting with the key path it is about. */
  readonly problems: readonly string[];
  /** The config file, when the config came from one. */
  readonly source: string | undefined;

  constructor(problems: readonly string[], options: { source?: string | undefined; cause?: unknown } = {}) {
    const where = options.source === undefined ? 'config' : `config ${options.source}`;
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(`invalid ${where} (${count}):\n${problems.map((line) => `  ${line}`).join('\n')}`, {
      cause: options.cause,
      retriable: false,
    });
    this.problems = [...problems];
    this.source = options.source;
  }
}
