/**
 * The consume modes of a mapping (`consumeMode`), one row each: how a mapping in that mode gets its
 * consumer (a {@link MappingConsumer}, consumer/mapping-consumer.ts), how the metrics read it, and what its
 * 'mapping configured' log line says of it. mapping-wiring.ts picks the row; nothing else in the poller
 * knows which modes there are (docs/architecture.md, "Adding a consume mode").
 */
import type { MappingConfig } from '../config/run-config.js';
import type { ConsumeMode } from '../consumer/consumer-options.js';
import { ConsumerRuntime } from '../consumer/consumer-runtime.js';
import type { MappingConsumer } from '../consumer/mapping-consumer.js';
import type { MessageListener } from '../consumer/message-listener.js';
import { PopConsumer } from '../consumer/pop/pop-consumer.js';
import { RocketMQError } from '../errors.js';
import type { MappingMeter, MeteredConsumer } from '../metrics/poller-metrics.js';
import type { Logger } from '../util/logger.js';
import { consumerOptionsOf, popConsumerOptionsOf } from './mapping-consumer-options.js';
import type { SharedParts } from './mapping-wiring.js';
import { offsetStoreKindOf } from './offset-stores.js';

/** What a mode's factory builds a mapping's consumer from. */
export interface ModeInputs {
  readonly mapping: MappingConfig;
  readonly parts: SharedParts;
  /** The mapping's function listener (wrapped by `messageTrace` when on): where the consumer hands its batches. */
  readonly listener: MessageListener;
  /** The mapping's metrics: the factory makes it watch the consumer. */
  readonly meter: MappingMeter;
  readonly logger: Logger;
}

/** A mapping's consumer (not started) and what the 'mapping configured' line says of its mode. */
export interface ModeConsumer {
  readonly consumer: MappingConsumer;
  readonly configuration: Readonly<Record<string, unknown>>;
}

/** Builds the consumer of a mapping in one consume mode. */
export type ConsumeModeFactory = (inputs: ModeInputs) => ModeConsumer;

/**
 * PUSH: a {@link ConsumerRuntime} over the poller's client and the mapping's offset store (its writes
 * counted by the meter), holding the queues a rebalance gives it.
 */
function pushConsumer({ mapping, parts, listener, meter, logger }: ModeInputs): ModeConsumer {
  const { config } = parts;
  const consumer = new ConsumerRuntime(
    {
      ...consumerOptionsOf(mapping, config.shutdownTimeoutMs, config.offsets.persistIntervalMs),
      ...parts.consumerOverrides,
    },
    {
      client: parts.client,
      offsetStore: meter.observeOffsetStore(parts.stores.forMapping(mapping)),
      listener,
      logger,
      observer: meter.consumerObserver,
      retryProducer: parts.retryProducer,
    },
  );
  meter.watch(consumer);
  return {
    consumer,
    configuration: {
      messageModel: mapping.messageModel,
      orderly: mapping.orderly,
      allocateStrategy: mapping.allocateStrategy,
      zoneNearby: mapping.zoneNearby !== undefined,
      offsetStore: offsetStoreKindOf(config.offsets, mapping),
    },
  };
}

/** POP: a {@link PopConsumer} over the client; no offset store (the broker keeps the position). */
function popConsumer({ mapping, parts, listener, meter, logger }: ModeInputs): ModeConsumer {
  const consumer = new PopConsumer(
    popConsumerOptionsOf(mapping, parts.config.shutdownTimeoutMs, parts.consumerOverrides),
    { client: parts.client, listener, logger },
  );
  meter.watch(meteredPopConsumer(consumer));
  return { consumer, configuration: { invisibleTimeMs: consumer.options.invisibleTimeMs } };
}

/**
 * A POP consumer as the metrics read a mapping's consumer: a status with no held queue (its pops, acks
 * and invokes are in the counters a pull consumer has), and its lag as its share of the group's backlog,
 * so that the lag metric and the autoscaling work for POP too.
 */
function meteredPopConsumer(consumer: PopConsumer): MeteredConsumer {
  return {
    status: async () => {
      const status = await consumer.status();
      return {
        name: status.name,
        consumerGroup: status.consumerGroup,
        topic: status.topic,
        clientId: status.clientId,
        state: status.state,
        error: status.error,
        startedAtMs: status.startedAtMs,
        queues: [],
        inFlightBatches: status.inFlightBatches,
        pendingMessages: status.inFlightMessages,
        counters: status.counters,
      };
    },
    maxOffset: () => Promise.reject(new RocketMQError('a POP consumer holds no queue to measure')),
    measureLag: () => consumer.lag(),
    health: (nowMs) => consumer.health(nowMs),
    onEvent: (listener) => consumer.onEvent(listener),
  };
}

/** Every consume mode's factory: a mode missing here does not compile. */
export const CONSUME_MODES: { readonly [Mode in ConsumeMode]: ConsumeModeFactory } = {
  PUSH: pushConsumer,
  POP: popConsumer,
};
