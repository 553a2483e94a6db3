/**
 * `rocketmq-lambda/handler`: the kit for functions that consume RocketMQ through the poller. The event
 * and response types and their zod schemas, body helpers, a per-record batch processor (plain and as a
 * middy middleware). It imports nothing from the poller; see docs/writing-a-handler.md.
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
