/** What every {@link RocketMQError} accepts besides its message: the cause and the decision flags. */
export interface RocketMQErrorOptions {
  /** The error that led to this one; always passed on, so the chain reaches the log. */
  cause?: unknown;
  /** Trying the same call again later may succeed. @default false */
  retriable?: boolean;
  /** A refusal that will not go away without a change of configuration or permissions. @default false */
  permanent?: boolean;
}

/**
 * The one base error of rocketmq-lambda. Every error we throw extends it and carries
 * decision flags, so callers branch on `retriable` and friends, never on names or messages.
 *
 * @example
 * ```ts
 * try { await broker.pullMessage(header) } catch (err) {
 *   if (err instanceof RocketMQError && err.retriable) scheduleRetry()
 *   else throw err
 * }
 * ```
 */
export class RocketMQError extends Error {
  /** Trying the same call again later may succeed. */
  readonly retriable: boolean;
  /**
   * A refusal that will not go away without a change of configuration or permissions (wrong ACL keys,
   * an untrusted certificate, a missing table): a poller that meets one stops and says why instead of
   * retrying forever. Never set together with `retriable`.
   */
  readonly permanent: boolean;

  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.permanent = options.permanent ?? false;
    this.retriable = this.permanent ? false : (options.retriable ?? false);
  }
}
