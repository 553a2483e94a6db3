/**
 * The handler kit, for functions that consume RocketMQ through the poller: the event and response types
 * and their zod schemas, body helpers, a per-record batch processor (plain and as a middy middleware).
 * Published as `rocketmq-lambda-handler` (infra/npm/handler: dependencies zod only, so a function zipped
 * without a bundler carries nothing of the poller) and, the same code, as `rocketmq-lambda/handler`. It
 * imports nothing from the poller; see docs/writing-a-handler.md.
 */
export type { RocketMQBatchOptions } from './batch-options.js';
export type { BodySchema, BodySchemaIssue, BodySchemaOutput, BodySchemaResult } from './body-schema.js';
export { RocketMQParseError, type RocketMQParseIssue } from './errors.js';
export {
  type RocketMQBatchProcessorOptions,
  type RocketMQMiddleware,
  type RocketMQMiddlewareRequest,
  rocketmqBatchProcessor,
} from './middleware.js';
export { parseEvent, parseRecords } from './parse-event.js';
export {
  createBatchHandler,
  type ProcessRocketMQBatchOptions,
  processRocketMQBatch,
  type RocketMQRecordHandler,
} from './process-batch.js';
export { recordBody, recordJson, recordText } from './record-body.js';
export {
  RocketMQBatchItemFailureSchema,
  RocketMQBatchResponseSchema,
  RocketMQEventSchema,
  RocketMQRecordSchema,
  RocketMQResponseSchema,
  RocketMQStatusResponseSchema,
} from './schemas.js';
export {
  type ParsedTraceparent,
  parseTraceparent,
  type RecordSpanContext,
  recordSpanContext,
  type TraceCarrier,
  type TraceparentResult,
} from './trace-context.js';
export type {
  RocketMQBatchItemFailure,
  RocketMQBatchResponse,
  RocketMQCallback,
  RocketMQEvent,
  RocketMQHandler,
  RocketMQHandlerContext,
  RocketMQRecord,
  RocketMQResponse,
  RocketMQStatusResponse,
} from './types.js';
