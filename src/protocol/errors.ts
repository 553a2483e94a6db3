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

  constructor(message: string, options: { cause?: unknown; retriable?: boolean; permanent?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.permanent = options.permanent ?? false;
    this.retriable = this.permanent ? false : (options.retriable ?? false);
  }
}

/**
 * Bytes that do not follow the RocketMQ wire format: a malformed frame, header or stored message.
 * Never retriable: the same bytes decode the same way.
 *
 * @example
 * ```ts
 * try { decodeFrame(bytes) } catch (err) {
 *   if (err instanceof ProtocolError) connection.destroy(err)
 * }
 * ```
 */
export class ProtocolError extends RocketMQError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, retriable: false });
  }
}
