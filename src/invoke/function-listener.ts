/**
 * The MessageListener of a mapping whose target is a function: serialize the batch into the event,
 * invoke the function, map its response to per-message results.
 */
import type {
  ConsumeContext,
  ConsumedMessage,
  ConsumeResult,
  MessageListener,
} from '../consumer/message-listener.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { serializeEvent } from './event-builder.js';
import type { Invoker } from './invoker.js';
import { type FunctionResultNotice, mapFunctionResult } from './result-mapper.js';

/** How many message ids a failed-batch log line quotes at most. */
const MAX_LOGGED_MESSAGE_IDS = 10;

/**
 * Options of {@link FunctionMessageListener}.
 *
 * @example
 * ```ts
 * const options: FunctionMessageListenerOptions = {
 *   invoker,
 *   functionRef: 'local:./handler.js#handler',
 *   consumerGroup: 'orders-consumer',
 * };
 * ```
 */
export interface FunctionMessageListenerOptions {
  invoker: Invoker;
  /** The mapping's `function`. */
  functionRef: string;
  /** The mapping's consumer group, put into every event. */
  consumerGroup: string;
  /** The parent logger (e.g. one per mapping); lines carry `component: 'invoke.function-listener'`. */
  logger?: Logger | undefined;
}

/**
 * Consumes each batch by invoking one function with it (design.md, "Contracts"). Logs one structured line
 * per batch that did not fully succeed. An `InvokeError` from the invoker propagates (when `fatal`, the
 * runtime stops the mapping).
 *
 * @example
 * ```ts
 * const listener = new FunctionMessageListener({
 *   invoker: new LocalInvoker({ baseDir: configDir }),
 *   functionRef: 'local:./handler.js#handler',
 *   consumerGroup: 'orders-consumer',
 * });
 * const result = await listener.consume(batch, { consumerGroup: 'orders-consumer', orderly: false, signal });
 * ```
 */
export class FunctionMessageListener implements MessageListener {
  readonly #invoker: Invoker;
  readonly #functionRef: string;
  readonly #consumerGroup: string;
  readonly #log: Logger;

  constructor(options: FunctionMessageListenerOptions) {
    this.#invoker = options.invoker;
    this.#functionRef = options.functionRef;
    this.#consumerGroup = options.consumerGroup;
    this.#log = componentLogger('invoke.function-listener', options.logger);
  }

  async consume(messages: readonly ConsumedMessage[], context: ConsumeContext): Promise<ConsumeResult> {
    const payload = serializeEvent(this.#consumerGroup, messages);
    const outcome = await this.#invoker.invoke({
      functionRef: this.#functionRef,
      payload,
      signal: context.signal,
    });
    const records = messages.map((m) => ({ messageId: m.message.msgId }));
    const result = mapFunctionResult(outcome, records, {
      onNotice: (notice: FunctionResultNotice) =>
        this.#log.warn(
          { functionRef: this.#functionRef, consumerGroup: this.#consumerGroup, notice },
          'function response ignored',
        ),
    });
    if (result.status !== 'SUCCESS') {
      const failedIndexes =
        result.status === 'PARTIAL' ? result.failedIndexes : messages.map((_, index) => index);
      this.#log.warn(
        {
          functionRef: this.#functionRef,
          consumerGroup: this.#consumerGroup,
          orderly: context.orderly,
          status: result.status,
          reason: result.reason,
          batchSize: messages.length,
          payloadBytes: payload.length,
          failedCount: failedIndexes.length,
          failedMessageIds: failedIndexes
            .slice(0, MAX_LOGGED_MESSAGE_IDS)
            .map((index) => messages[index]?.message.msgId),
          invokeFailure: outcome.ok ? undefined : outcome.kind,
        },
        'batch failed',
      );
    }
    return result;
  }
}
