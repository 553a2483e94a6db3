import { errorMessage } from '../util/error-message.js';
import type { InvokeFailure } from './invoker.js';

/**
 * The outcome of an invoke whose request signal aborted (the consumer is stopping or the batch was
 * given up): the same for every invoker, so the consume path reads one shape.
 */
export function abortedOutcome(signal: AbortSignal): InvokeFailure {
  return { ok: false, kind: 'aborted', message: `invoke aborted: ${errorMessage(signal.reason)}` };
}
