/**
 * The listener of the `ours-function-worker` experiment: the function path with its own work (event
 * build, invoke, result) moved to one worker thread, to measure what a second thread buys on this
 * machine (docs/architecture.md, "Why the function path stays on one thread"). Each batch's stored
 * records are copied into one buffer and transferred (worker-batch.ts); the worker decodes them again
 * and runs FunctionMessageListener + LocalInvoker + the no-op handler (function-worker.ts). A bench
 * experiment, not a product path: no abort, no notifyFinalFailure, no metrics observer.
 */

import { Worker } from 'node:worker_threads';
import type { ConsumedMessage, ConsumeResult, MessageListener } from '../src/consumer/message-listener.js';
import { packBatch, type WorkerReply } from './worker-batch.js';

/**
 * A MessageListener whose batches are consumed in a worker thread.
 *
 * @example
 * ```ts
 * const listener = new WorkerFunctionListener(join(benchDir, 'function-worker.js'), 'bench-group');
 * // ... a ConsumerRuntime with it ...
 * await listener.close();
 * ```
 */
export class WorkerFunctionListener implements MessageListener {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: (r: ConsumeResult) => void; reject: (e: Error) => void }>();
  #nextId = 0;
  #failure: Error | undefined;

  constructor(workerScript: string, consumerGroup: string) {
    this.#worker = new Worker(workerScript, { workerData: { consumerGroup } });
    this.#worker.on('message', (reply: WorkerReply) => {
      const waiting = this.#waiting.get(reply.id);
      this.#waiting.delete(reply.id);
      if (waiting === undefined) return;
      if ('result' in reply) waiting.resolve(reply.result);
      else waiting.reject(Object.assign(new Error(reply.error), { fatal: reply.fatal }));
    });
    // A dead worker can consume nothing more: fatal, so that the runtime stops pulling (and the bench
    // reports the run as failed) instead of sending every later batch back for retry. The first cause
    // stays (an 'exit' follows an 'error').
    const fail = (error: Error): void => {
      this.#failure ??= Object.assign(error, { fatal: true });
      for (const { reject } of this.#waiting.values()) reject(this.#failure);
      this.#waiting.clear();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`the function worker exited (code ${code})`)));
  }

  async consume(messages: readonly ConsumedMessage[]): Promise<ConsumeResult> {
    if (this.#failure !== undefined) throw this.#failure;
    const batch = packBatch(this.#nextId++, messages);
    return new Promise((resolve, reject) => {
      this.#waiting.set(batch.id, { resolve, reject });
      try {
        this.#worker.postMessage(batch, [batch.records]);
      } catch (error) {
        this.#waiting.delete(batch.id);
        reject(error);
      }
    });
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}
