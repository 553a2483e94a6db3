/**
 * A mapping's `messageTrace` (docs/message-trace.md), wired: its listener wrapped so that every batch
 * writes consume trace records, a writer per mapping that sends them to the trace topic in the
 * background, and its consumer wrapped so that stopping the mapping sends what is left (bounded by
 * {@link TRACE_CLOSE_TIMEOUT_MS}) once the last batch ended.
 */
import type { RocketMQClient } from '../client/rocketmq-client.js';
import { TraceTopicSender } from '../client/trace-topic-sender.js';
import type { MappingConfig } from '../config/run-config.js';
import type { MappingConsumer } from '../consumer/mapping-consumer.js';
import type { MessageListener } from '../consumer/message-listener.js';
import { type MessageTraceObserver, MessageTraceWriter } from '../consumer/trace/message-trace-writer.js';
import { TracingMessageListener } from '../consumer/trace/tracing-listener.js';
import type { Logger } from '../util/logger.js';

/** How long a stopping mapping waits at most for its last trace records to be sent. */
export const TRACE_CLOSE_TIMEOUT_MS = 5_000;

/** What a traced mapping wraps: its listener before the consumer is built, the consumer after. */
export interface MappingTrace {
  readonly writer: MessageTraceWriter;
  wrapListener(listener: MessageListener): MessageListener;
  wrapConsumer(consumer: MappingConsumer): MappingConsumer;
}

/** The mapping's trace wiring, or `undefined` when its `messageTrace` is off. */
export function mappingTraceOf(
  mapping: MappingConfig,
  client: RocketMQClient,
  observer: MessageTraceObserver,
  logger: Logger,
): MappingTrace | undefined {
  if (mapping.messageTrace === undefined) return undefined;
  const sender = new TraceTopicSender({ client, logger });
  const writer = new MessageTraceWriter({ topic: mapping.messageTrace.topic, sender, observer, logger });
  return {
    writer,
    wrapListener: (listener) => new TracingMessageListener(listener, writer),
    wrapConsumer: (consumer) => tracedConsumer(consumer, sender, writer),
  };
}

/** `consumer`, whose start starts the trace producer and whose stop flushes the writer after it. */
function tracedConsumer(
  consumer: MappingConsumer,
  sender: TraceTopicSender,
  writer: MessageTraceWriter,
): MappingConsumer {
  return {
    get mode() {
      return consumer.mode;
    },
    get state() {
      return consumer.state;
    },
    get clientId() {
      return consumer.clientId;
    },
    start: async () => {
      await sender.start();
      await consumer.start();
    },
    stop: async () => {
      try {
        await consumer.stop();
      } finally {
        await writer.close(TRACE_CLOSE_TIMEOUT_MS);
        await sender.shutdown();
      }
    },
    onEvent: (listener) => consumer.onEvent(listener),
    health: (nowMs) => consumer.health(nowMs),
    status: () => consumer.status(),
    lag: () => consumer.lag(),
  };
}
