/**
 * The error of the Serverless Framework plugin: a `rocketmq` event or `custom.rocketmq` the plugin cannot
 * compile. It lists every problem, one line each, naming the key
 * (`functions.orders.events[0].rocketmq.batchSize: must be ≤ 10000`).
 */
import { RocketMQError } from '../errors.js';

/**
 * Invalid plugin configuration; never retriable.
 *
 * @example
 * ```ts
 * try { compileRocketMQResources(input) } catch (err) {
 *   if (err instanceof RocketMQPluginError) console.error(err.problems.join('\n'));
 * }
 * ```
 */
export class RocketMQPluginError extends RocketMQError {
  /** One line per problem, each starting with the key path. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[], options: { cause?: unknown } = {}) {
    const head =
      problems.length === 1 ? 'Invalid rocketmq configuration: ' : 'Invalid rocketmq configuration:\n  ';
    super(`${head}${problems.join('\n  ')}`, { cause: options.cause, retriable: false });
    this.problems = [...problems];
  }
}
