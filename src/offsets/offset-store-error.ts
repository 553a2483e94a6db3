/**
 * The error of an offset store: the backing store (file, DynamoDB) could not be read or written, or held
 * something that is not an offset. Retriable when trying again later may succeed (throttling, 5xx,
 * network); the consumer then retries at its next persist.
 */
import { RocketMQError } from '../errors.js';

/**
 * An offset store operation failed.
 */
export class OffsetStoreError extends RocketMQError {
  constructor(message: string, options: { cause?: unknown; retriable?: boolean; permanent?: boolean } = {}) {
    super(message, options);
  }
}

/**
 * Throws a non-retriable {@link OffsetStoreError} unless `offset` is a safe non-negative integer.
 */
export function assertValidOffset(offset: number, queueKey: string): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new OffsetStoreError(`offset ${offset} of queue ${queueKey} is not a non-negative safe integer`);
  }
}
