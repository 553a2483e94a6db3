/**
 * The worker thread of the `ours-function-worker` experiment (worker-function-listener.ts): decodes each
 * batch's stored records again and runs the function path on them, a FunctionMessageListener with the
 * LocalInvoker calling the no-op handler next to this file, as `ours-function` does on the main thread.
 * workerData: `{ consumerGroup }`.
 */

import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { isFatalListenerError } from '../src/consumer/consumer-errors.js';
import { FunctionMessageListener } from '../src/invoke/function-listener.js';
import { LocalInvoker } from '../src/invoke/local-invoker.js';
import { unpackBatch, type WorkerBatch, type WorkerReply } from './worker-batch.js';

const port = parentPort;
if (port === null) throw new Error('function-worker.js runs as a worker thread only');
const { consumerGroup } = workerData as { consumerGroup: string };
const listener = new FunctionMessageListener({
  invoker: new LocalInvoker({ baseDir: dirname(fileURLToPath(import.meta.url)) }),
  functionRef: 'local:./noop-handler.js#handler',
  consumerGroup,
});
// The experiment has no shutdown to tell: one signal that never aborts.
const signal = new AbortController().signal;

port.on('message', (batch: WorkerBatch) => {
  const reply = (answer: WorkerReply): void => port.postMessage(answer);
  let consumed: ReturnType<typeof unpackBatch>;
  try {
    consumed = unpackBatch(batch);
  } catch (error) {
    reply({ id: batch.id, error: `the batch does not decode: ${String(error)}`, fatal: true });
    return;
  }
  listener.consume(consumed, { consumerGroup, orderly: false, signal }).then(
    (result) => reply({ id: batch.id, result }),
    (error: unknown) =>
      reply({
        id: batch.id,
        error: error instanceof Error ? error.message : String(error),
        fatal: isFatalListenerError(error),
      }),
  );
});
