/**
 * rocketmq-lambda, the poller library: everything `rocketmq-lambda run` is made of, for embedding the
 * poller in your own process or building tools on the RocketMQ client. Nothing of the dev loop: the local
 * broker launcher (a JVM process manager) and the embedded DynamoDB are for `rocketmq-lambda dev` only.
 *
 * @example
 * ```ts
 * import { loadConfig, startPoller } from 'rocketmq-lambda';
 *
 * const poller = await startPoller(await loadConfig('./rocketmq-lambda.yml'));
 * process.once('SIGTERM', () => void poller.stop());
 * const exit = await poller.stopped;
 * ```
 */

export { BrokerError } from './client/broker-error.js';
export {
  Producer,
  type ProducerMessage,
  type ProducerOptions,
  type SendBatchResult,
  type SendResult,
} from './client/producer.js';
export { RocketMQClient, type RocketMQClientOptions } from './client/rocketmq-client.js';
export { ConfigError } from './config/config-error.js';
export { loadConfig, parseConfig } from './config/load-config.js';
export type { MappingConfig, OffsetStoreConfig, OffsetsConfig, RunConfig } from './config/run-config.js';
export { ConsumerRuntime } from './consumer/consumer-runtime.js';
export type {
  ConsumeContext,
  ConsumedMessage,
  ConsumeResult,
  MessageListener,
} from './consumer/message-listener.js';
export { RocketMQError, type RocketMQErrorOptions } from './errors.js';
export { FunctionMessageListener } from './invoke/function-listener.js';
export type { InvokeOutcome, InvokeRequest, Invoker } from './invoke/invoker.js';
export { LocalInvoker } from './invoke/local-invoker.js';
export { DynamoDbOffsetStore, type DynamoDbOffsetStoreOptions } from './offsets/dynamodb-offset-store.js';
export { FileOffsetStore, type FileOffsetStoreOptions } from './offsets/file-offset-store.js';
export { MemoryOffsetStore } from './offsets/memory-offset-store.js';
export { NO_OFFSET, type OffsetStore, type ReadOffsetType } from './offsets/offset-store.js';
export {
  type MappingFailure,
  type Poller,
  type PollerExit,
  type PollerOptions,
  startPoller,
} from './poller/poller.js';
export { ProtocolError } from './protocol/errors.js';
export type { Message, MessageExt } from './protocol/message.js';
export type { MessageQueue } from './protocol/message-queue.js';
