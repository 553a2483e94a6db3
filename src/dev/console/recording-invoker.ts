/**
 * An {@link Invoker} around the dev loop's in-process invoker (src/dev/reloading-invoker.ts) that records
 * every invoke made for a batch (recording-listener.ts runs each batch in a {@link BatchRecording}): the
 * event as the function receives it, the response, the duration and the handler's log lines
 * (invocation-log-capture.ts). It also replays an event against the current (reloaded) handler, outside
 * any batch: no offset, retry or DLQ is touched.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { InvokeOutcome, InvokeRequest, Invoker } from '../../invoke/invoker.js';
import { mapFunctionResult } from '../../invoke/result-mapper.js';
import { describeError } from '../../util/describe-error.js';
import type { InvocationLogCapture } from './invocation-log-capture.js';
import type { InvocationRecorder } from './invocation-recorder.js';
import type { InvocationResponse, RecordedInvocation } from './recorded-invocation.js';

/** The batch being consumed in an async context: which mapping, and the invocations made for it. */
export interface BatchRecording {
  readonly mappingId: string;
  readonly functionName: string;
  readonly invocations: RecordedInvocation[];
}

/**
 * Records the invokes of batches and runs replays.
 */
export class RecordingInvoker implements Invoker {
  readonly #inner: Invoker;
  readonly #recorder: InvocationRecorder;
  readonly #logs: InvocationLogCapture;
  readonly #batches = new AsyncLocalStorage<BatchRecording>();

  constructor(inner: Invoker, recorder: InvocationRecorder, logs: InvocationLogCapture) {
    this.#inner = inner;
    this.#recorder = recorder;
    this.#logs = logs;
  }

  /** Runs `fn` (a listener's consume) with its invokes recorded into `batch`. */
  runBatch<T>(batch: BatchRecording, fn: () => Promise<T>): Promise<T> {
    return this.#batches.run(batch, fn);
  }

  async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
    const batch = this.#batches.getStore();
    if (batch === undefined) return this.#inner.invoke(request);
    // A fresh copy: the handler may change its own.
    const event =
      request.event !== undefined ? request.event() : JSON.parse(request.payload.toString('utf8'));
    const invocation = this.#recorder.begin({
      mappingId: batch.mappingId,
      functionName: batch.functionName,
      event,
    });
    batch.invocations.push(invocation);
    return this.#run(invocation, request);
  }

  /**
   * Invokes `functionRef` with `event` as a new invocation replaying `replayOf` (recorded, told to the
   * recorder's listeners); its records' outcomes say what the answer would do (succeeded or failed).
   */
  async replay(fields: {
    mappingId: string;
    functionName: string;
    functionRef: string;
    event: unknown;
    replayOf: string;
  }): Promise<RecordedInvocation> {
    const invocation = this.#recorder.begin(fields);
    const text = JSON.stringify(fields.event);
    const request: InvokeRequest = {
      functionRef: fields.functionRef,
      payload: Buffer.from(text),
      event: () => JSON.parse(text),
    };
    const outcome = await this.#run(invocation, request);
    const result = mapFunctionResult(
      outcome,
      invocation.messageIds.map((messageId) => ({ messageId })),
    );
    const failed = new Set(
      result.status === 'FAILED'
        ? invocation.messageIds.map((_, index) => index)
        : result.status === 'PARTIAL'
          ? result.failedIndexes
          : [],
    );
    invocation.messageIds.forEach((_, index) => {
      invocation.outcomes[index] = failed.has(index) ? 'failed' : 'succeeded';
    });
    this.#recorder.told(invocation);
    return invocation;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async #run(invocation: RecordedInvocation, request: InvokeRequest): Promise<InvokeOutcome> {
    const started = performance.now();
    const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
    try {
      const outcome = await this.#logs.run(invocation, () => this.#inner.invoke(request));
      invocation.finish(responseOf(outcome), elapsed());
      return outcome;
    } catch (error) {
      invocation.finish(
        { kind: 'error', errorType: 'InvokeError', errorMessage: describeError(error) },
        elapsed(),
      );
      throw error;
    }
  }
}

/** The response of an invoke outcome: the parsed result, or the error (Lambda's shape when it has one). */
export function responseOf(outcome: InvokeOutcome): InvocationResponse {
  if (outcome.ok) {
    if (outcome.payload.length === 0) return { kind: 'result', value: null };
    const text = outcome.payload.toString('utf8');
    try {
      return { kind: 'result', value: JSON.parse(text) };
    } catch {
      return { kind: 'result', value: text };
    }
  }
  if (outcome.kind === 'function-error') {
    try {
      const shape = JSON.parse(outcome.message) as { errorType?: unknown; errorMessage?: unknown };
      if (typeof shape.errorType === 'string' || typeof shape.errorMessage === 'string') {
        return {
          kind: 'error',
          errorType: typeof shape.errorType === 'string' ? shape.errorType : 'Error',
          errorMessage: typeof shape.errorMessage === 'string' ? shape.errorMessage : '',
        };
      }
    } catch {
      // Not Lambda's shape: the message as it is.
    }
  }
  return { kind: 'error', errorType: outcome.kind, errorMessage: outcome.message };
}
