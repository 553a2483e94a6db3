import { RocketMQError } from '../errors.js';

/**
 * The local RocketMQ (namesrv + broker JVMs used by tests and the dev loop) could not be prepared,
 * started or reached: Java or Maven missing, jar download failed, a JVM exited, readiness timed out.
 * Never retriable as such: the message says what to fix, and carries the tail of the JVM logs when
 * a JVM was involved.
 */
export class LocalBrokerError extends RocketMQError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, retriable: false });
  }
}
