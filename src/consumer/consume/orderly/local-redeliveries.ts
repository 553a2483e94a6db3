/**
 * What the orderly service remembers of the records it redelivers itself: a record stays the same object
 * in its ProcessQueue while it is redelivered, so it is the key. Redeliveries raise the `reconsumeTimes`
 * the listener sees; only the failures a result blamed on the record count towards `maxReconsumeTimes`
 * (a record merely queued behind a failed one is redelivered, not blamed).
 */
import { toPlainMessage } from '../../../protocol/decoded-message.js';
import type { MessageExt } from '../../../protocol/message.js';

interface Redeliveries {
  deliveries: number;
  failures: number;
}

/**
 * Local redeliveries and blamed failures per record; forgotten with the record.
 */
export class LocalRedeliveries {
  readonly #byMessage = new WeakMap<MessageExt, Redeliveries>();

  /** The record as the listener sees it: `reconsumeTimes` raised by its local redeliveries. */
  viewOf(message: MessageExt): MessageExt {
    const local = this.#byMessage.get(message)?.deliveries ?? 0;
    // A plain copy: a decoded message computes some fields on first read, which a spread would not copy.
    return local === 0
      ? message
      : { ...toPlainMessage(message), reconsumeTimes: message.reconsumeTimes + local };
  }

  /** Failures counted against a record: the broker's `reconsumeTimes` plus the local blamed ones. */
  failuresOf(message: MessageExt): number {
    return message.reconsumeTimes + (this.#byMessage.get(message)?.failures ?? 0);
  }

  /** Counts one more local delivery of `message`, and a failure when the result blamed it. */
  redelivered(message: MessageExt, blamed: boolean): void {
    const state = this.#byMessage.get(message) ?? { deliveries: 0, failures: 0 };
    this.#byMessage.set(message, state);
    state.deliveries++;
    if (blamed) state.failures++;
  }
}
