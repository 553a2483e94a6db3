/**
 * The middy middleware of the kit. It is typed structurally (no import of `@middy/core`, not even of its
 * types), so the kit compiles and bundles without middy; with middy 6 or 7 installed,
 * `middy().use(rocketmqBatchProcessor(...))` is fully typed.
 */
import { normalizeBatchOptions, type RocketMQBatchOptions } from './batch-options.js';
import { checkRecordHandler, type RocketMQRecordHandler, runBatch } from './process-batch.js';
import type { RocketMQEvent, RocketMQHandlerContext } from './types.js';

/**
 * Options of {@link rocketmqBatchProcessor}: the per-record handler and the batch options.
 *
 * @example
 * ```ts
 * const options: RocketMQBatchProcessorOptions = { recordHandler: handleOrder, orderly: true };
 * ```
 */
export interface RocketMQBatchProcessorOptions extends RocketMQBatchOptions {
  /** Runs once per record with the invoke's context; throwing fails that record. */
  recordHandler: RocketMQRecordHandler;
}

/**
 * The part of a middy request the middleware uses.
 *
 * @example
 * ```ts
 * const request: RocketMQMiddlewareRequest = { event, context, response: undefined };
 * ```
 */
export interface RocketMQMiddlewareRequest {
  event: RocketMQEvent;
  context: RocketMQHandlerContext;
  response: unknown;
}

/**
 * A middy middleware object (assignable to `MiddlewareObj` of `@middy/core` 6 and 7).
 *
 * @example
 * ```ts
 * const middleware: RocketMQMiddleware = rocketmqBatchProcessor({ recordHandler: handleOrder });
 * ```
 */
export interface RocketMQMiddleware {
  readonly name: string;
  readonly after: (request: RocketMQMiddlewareRequest) => Promise<void>;
}

/**
 * A middy middleware that runs `recordHandler` for every record and sets the response to
 * `{ batchItemFailures }` naming the records that failed, in concurrent mode (the default: every record
 * runs, `concurrency` at a time, one by default) or orderly mode (`orderly: true`: one at a time, stopping
 * at the first failure, which is reported with every record after it).
 *
 * It works in middy's `after` phase: every `before` middleware (secrets, parameters, validation) and the
 * base handler (usually none: `middy()`) have run, and the `after` middlewares registered before it see
 * its response. Register it last with `.use()`. The base handler's return value is replaced. Options are
 * checked when the middleware is created: an unknown option (a typo) or a bad value throws a TypeError.
 *
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { recordJson, rocketmqBatchProcessor } from 'rocketmq-lambda-handler';
 *
 * export const handler = middy().use(
 *   rocketmqBatchProcessor({
 *     recordHandler: async (record, context) => {
 *       await saveOrder(recordJson(record, Order), context.awsRequestId);
 *     },
 *     concurrency: 10,
 *   }),
 * );
 * ```
 */
export function rocketmqBatchProcessor(options: RocketMQBatchProcessorOptions): RocketMQMiddleware {
  const settings = normalizeBatchOptions(options, 'rocketmqBatchProcessor', ['recordHandler']);
  const recordHandler: unknown = (options as { recordHandler?: unknown }).recordHandler;
  checkRecordHandler(recordHandler, 'rocketmqBatchProcessor');
  const handle = recordHandler as RocketMQRecordHandler;
  const rocketmqBatchProcessorAfter = async (request: RocketMQMiddlewareRequest): Promise<void> => {
    request.response = await runBatch(request.event, handle, request.context, settings);
  };
  return { name: 'rocketmqBatchProcessor', after: rocketmqBatchProcessorAfter };
}
