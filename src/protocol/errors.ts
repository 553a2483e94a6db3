import { RocketMQError } from '../errors.js';

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
