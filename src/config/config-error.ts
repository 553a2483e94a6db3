/**
 * The error of a run config that cannot be used: unreadable, not YAML/JSON, or invalid. It carries every
 * problem found (not only the first), one line each, each naming the key path.
 */
import { RocketMQError } from '../errors.js';
import { echoedText } from '../util/echoed-value.js';

/**
 * How many problems a {@link ConfigError} lists; the rest are counted in a last line. A broken 1 MiB
 * config can have 100,000 problems, and the first ones are what its author fixes first.
 */
export const MAX_LISTED_PROBLEMS = 100;

/**
 * The longest problem line kept whole: every echoed value is already cut (util/echoed-value.ts), this
 * bounds what is not (a subprocess's message, a long chain of key names).
 */
export const MAX_PROBLEM_CHARS = 2000;

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
  /**
   * One line per problem, each starting with the key path it is about: at most
   * {@link MAX_LISTED_PROBLEMS}, then a line counting the others.
   */
  readonly problems: readonly string[];
  /** The config file, when the config came from one. */
  readonly source: string | undefined;

  constructor(problems: readonly string[], options: { source?: string | undefined; cause?: unknown } = {}) {
    const where = options.source === undefined ? 'config' : `config ${echoedText(options.source)}`;
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((line) => echoedText(line, MAX_PROBLEM_CHARS));
    const unlisted = problems.length - listed.length;
    if (unlisted > 0) listed.push(`… and ${unlisted} more problem${unlisted === 1 ? '' : 's'}`);
    super(`invalid ${where} (${count}):\n${listed.map((line) => `  ${line}`).join('\n')}`, {
      cause: options.cause,
      retriable: false,
    });
    this.problems = listed;
    this.source = options.source;
  }
}
