/**
 * An invoker for tests that must hold messages in flight: every invoke waits until the gate is opened,
 * counting the messages it was handed, then answers "all succeeded".
 */
import type { InvokeOutcome, Invoker } from '../../src/invoke/invoker.js';

/**
 * Holds every invoke until {@link GatedInvoker.open}; closing opens it.
 *
 * @example
 * ```ts
 * const invoker = new GatedInvoker();
 * const poller = await startPoller(config, { invoker });
 * // ... messages are in flight, invoker.received counts them ...
 * invoker.open();
 * ```
 */
export class GatedInvoker implements Invoker {
  received = 0;
  #open: () => void = () => undefined;
  readonly #gate = new Promise<void>((resolve) => {
    this.#open = resolve;
  });

  async invoke(request: { payload: Buffer }): Promise<InvokeOutcome> {
    const event = JSON.parse(request.payload.toString('utf8')) as { Records: unknown[] };
    this.received += event.Records.length;
    await this.#gate;
    return { ok: true, payload: Buffer.from('{"batchItemFailures":[]}') };
  }

  open(): void {
    this.#open();
  }

  async close(): Promise<void> {
    this.open();
  }
}
