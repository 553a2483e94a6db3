/**
 * The function contract, seen from the function's side: the event a handler receives, the responses it
 * may return and the handler's type. Type-only (no runtime code), so function bundles pay nothing for it.
 * Exported by `rocketmq-lambda-handler` (and `rocketmq-lambda/handler`); the rules are in
 * docs/writing-a-handler.md ("The event", "What to return").
 */

import type { TraceCarrier } from './trace-context.js';

/**
 * One RocketMQ message, as a function receives it.
 *
 * @example
 * ```ts
 * const record: RocketMQRecord = event.Records[0];
 * const text = recordText(record); // decodes base64 or takes the text, as bodyEncoding says
 * console.log(record.messageId, record.topic, record.queueOffset, record.properties.orderId, text);
 * ```
 *
 * @remarks A type alias rather than an interface: only aliases are assignable to index signatures, as in
 * Powertools' `processPartialResponse(event: { Records: { [key: string]: unknown }[] }, ...)`.
 */
export type RocketMQRecord = {
  /**
   * The message id: the producer's unique key (`UNIQ_KEY`), else the broker's {@link offsetMsgId}.
   * Use it as `itemIdentifier` in a {@link RocketMQBatchResponse}. A redelivered message keeps its id, so
   * one batch may hold two records with the same id (an original and its retry).
   */
  messageId: string;
  /** The broker's id for this stored copy (store host, port and commit-log offset, in hex). */
  offsetMsgId: string;
  /** The topic the message was sent to (also for redeliveries, which the broker stores in a retry topic). */
  topic: string;
  /** The broker group that stores the queue the message was read from. */
  brokerName: string;
  /** The queue the message was read from (for a redelivery, a queue of the retry topic). */
  queueId: number;
  /** The message's offset in that queue. */
  queueOffset: number;
  /** The message's tag, or `null` when it has none. */
  tags: string | null;
  /** The message's keys (the producer's `KEYS`, split on spaces). */
  keys: string[];
  /**
   * The body: base64-encoded (bodies are bytes and need not be UTF-8), unless {@link bodyEncoding} is
   * `'utf8'`. Read it with `recordBody`, `recordText` or `recordJson`, which honour both.
   */
  body: string;
  /**
   * How {@link body} is encoded. Absent: base64 (almost every record). `'utf8'`: `body` is the message's
   * UTF-8 text itself (its bytes are `Buffer.from(body, 'utf8')`). The poller sends text only for a
   * UTF-8 body too large to fit the invoke as base64 (over about 4.7 MB), so code that decodes `body`
   * by hand must check this field.
   */
  bodyEncoding?: 'utf8';
  /** User properties only: RocketMQ's own properties (`UNIQ_KEY`, `TAGS`, `KEYS`, ...) are left out. */
  properties: Record<string, string>;
  /** When the producer created the message, milliseconds since the epoch. */
  bornTimestamp: number;
  /** When the broker stored the message, milliseconds since the epoch. */
  storeTimestamp: number;
  /** The producer's address, `ip:port` (IPv6 as `[ip]:port`). */
  bornHost: string;
  /** The broker's address, `ip:port` (IPv6 as `[ip]:port`). */
  storeHost: string;
  /** How many times the message was delivered before this delivery (0 on the first). */
  reconsumeTimes: number;
  /**
   * The W3C trace context the producer put into the message (its `traceparent` and `tracestate`
   * properties), when it is valid: continue the producer's trace with
   * `propagation.extract(context.active(), record.traceContext)`, or link to it with `recordSpanContext`
   * (docs/tracing.md). Absent when the message carries none or an invalid one.
   */
  traceContext?: TraceCarrier;
};

/**
 * The event of one invoke: a batch of messages of one mapping. In concurrent mode the records may come
 * from several queues; in orderly mode they come from one queue, in queue order.
 *
 * @example
 * ```ts
 * export const handler = async (event: RocketMQEvent): Promise<void> => {
 *   for (const record of event.Records) {
 *     const order = recordJson(record);
 *     await saveOrder(order);
 *   }
 * };
 * ```
 */
export interface RocketMQEvent {
  eventSource: 'rocketmq';
  /** The consumer group the poller consumes in. */
  consumerGroup: string;
  Records: RocketMQRecord[];
}

/**
 * One failed record of a {@link RocketMQBatchResponse}.
 *
 * @example
 * ```ts
 * const failure: RocketMQBatchItemFailure = { itemIdentifier: record.messageId };
 * ```
 */
export interface RocketMQBatchItemFailure {
  /** The failed record's {@link RocketMQRecord.messageId}. */
  itemIdentifier: string;
}

/**
 * The partial-batch response (the SQS convention): the listed records failed and are redelivered later,
 * every other record succeeded. An empty list means every record succeeded. An identifier that names no
 * record of the batch fails the whole batch. In orderly mode the records before the first failed one are
 * committed and the rest are retried.
 *
 * @example
 * ```ts
 * export const handler: RocketMQHandler = async (event) => {
 *   const batchItemFailures: RocketMQBatchItemFailure[] = [];
 *   for (const record of event.Records) {
 *     try {
 *       await processRecord(record);
 *     } catch {
 *       batchItemFailures.push({ itemIdentifier: record.messageId });
 *     }
 *   }
 *   return { batchItemFailures };
 * };
 * ```
 */
export interface RocketMQBatchResponse {
  batchItemFailures: RocketMQBatchItemFailure[];
}

/**
 * RocketMQ's own consume status. `CONSUME_SUCCESS` without `ackIndex`: every record succeeded. With
 * `ackIndex` i: records 0..i succeeded and the rest failed (i at or past the last record: all succeeded;
 * -1: none succeeded). `RECONSUME_LATER`: every record failed.
 *
 * @example
 * ```ts
 * export const handler: RocketMQHandler = async (event) => {
 *   let done = -1;
 *   for (const record of event.Records) {
 *     if (!(await tryProcess(record))) break;
 *     done += 1;
 *   }
 *   return { status: 'CONSUME_SUCCESS', ackIndex: done };
 * };
 * ```
 */
export interface RocketMQStatusResponse {
  status: 'CONSUME_SUCCESS' | 'RECONSUME_LATER';
  /** The index of the last record that succeeded. Must be an integer ≥ -1. */
  ackIndex?: number;
}

/**
 * Every return value with a meaning to the poller. Any other value (including `undefined`) means every
 * record succeeded. A value that looks like one of these but is malformed (e.g. `status: 'OK'`) fails
 * the whole batch.
 *
 * @example
 * ```ts
 * const response: RocketMQResponse = { batchItemFailures: [] };
 * ```
 */
export type RocketMQResponse = RocketMQBatchResponse | RocketMQStatusResponse;

/**
 * The Lambda context a handler receives: the fields the Lambda Node.js runtime provides (and the local
 * invoker imitates). Structurally compatible with `Context` from `@types/aws-lambda` for these fields.
 *
 * @example
 * ```ts
 * export const handler: RocketMQHandler = async (event, context) => {
 *   if (context.getRemainingTimeInMillis() < 5_000) return { status: 'RECONSUME_LATER' };
 *   console.log(context.awsRequestId, event.Records.length);
 * };
 * ```
 */
export interface RocketMQHandlerContext {
  callbackWaitsForEmptyEventLoop: boolean;
  functionName: string;
  functionVersion: string;
  invokedFunctionArn: string;
  /** A decimal string, as in the Lambda runtime (e.g. `'128'`). */
  memoryLimitInMB: string;
  awsRequestId: string;
  logGroupName: string;
  logStreamName: string;
  /** Milliseconds left before the invoke times out. */
  getRemainingTimeInMillis(): number;
}

/**
 * The callback of a callback-style handler: `callback(error)` fails the invoke, `callback(null, response)`
 * completes it.
 *
 * @example
 * ```ts
 * export const handler = (event: RocketMQEvent, context: RocketMQHandlerContext, callback: RocketMQCallback) => {
 *   callback(null, { batchItemFailures: [] });
 * };
 * ```
 */
export type RocketMQCallback<TResult = RocketMQResponse | undefined> = (
  error?: Error | string | null,
  result?: TResult,
) => void;

/**
 * An async handler of RocketMQ batches. Return nothing when every record succeeded, a
 * {@link RocketMQBatchResponse} to fail some records, or a {@link RocketMQStatusResponse}. Throwing fails
 * the whole batch.
 *
 * @example
 * ```ts
 * import { recordBody, type RocketMQHandler } from 'rocketmq-lambda-handler';
 *
 * export const handler: RocketMQHandler = async (event) => {
 *   const failed = event.Records.filter((r) => recordBody(r).length === 0);
 *   return { batchItemFailures: failed.map((r) => ({ itemIdentifier: r.messageId })) };
 * };
 * ```
 */
export type RocketMQHandler<TResult = RocketMQResponse> = (
  event: RocketMQEvent,
  context: RocketMQHandlerContext,
) => Promise<TResult | undefined> | Promise<void>;
