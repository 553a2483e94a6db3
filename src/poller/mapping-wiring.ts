/**
 * One mapping of a poller, wired: a {@link FunctionMessageListener} over the mapping's function target
 * (the poller's shared LambdaInvoker or LocalInvoker, with the mapping's payload, bisect, record-age and
 * onFailure options) and its consumer: for consumeMode PUSH a {@link ConsumerRuntime} over the poller's
 * client and the mapping's offset store, observed by the mapping's meter; for POP a {@link PopConsumer}
 * over the client (no offset store: the broker keeps the position).
 */

import type { Producer } from '../client/producer.js';
import type { RocketMQClient } from '../client/rocketmq-client.js';
import type { MappingConfig, RunConfig } from '../config/run-config.js';
import { ConsumerRuntime } from '../consumer/consumer-runtime.js';
import { PopConsumer } from '../consumer/pop/pop-consumer.js';
import { FunctionMessageListener } from '../invoke/function-listener.js';
import type { MappingMeter } from '../metrics/poller-metrics.js';
import { childLogger, type Logger } from '../util/logger.js';
import type { FunctionTargets, MappingTarget } from './function-targets.js';
import {
  type ConsumerOverrides,
  consumerOptionsOf,
  popConsumerOptionsOf,
} from './mapping-consumer-options.js';
import { meteredPopConsumer } from './metered-pop-consumer.js';
import { type OffsetStores, offsetStoreKindOf } from './offset-stores.js';
import type { PollerTelemetry } from './poller-telemetry.js';

/** What the mappings of one poller share. */
export interface SharedParts {
  readonly config: RunConfig;
  readonly client: RocketMQClient;
  readonly stores: OffsetStores;
  readonly targets: FunctionTargets;
  readonly telemetry: PollerTelemetry;
  readonly consumerOverrides: ConsumerOverrides | undefined;
  /** Takes failed messages to `%RETRY%<group>` when their broker group's master is down (started). */
  readonly retryProducer: Producer;
  /** The poller's logger; each mapping logs through a child of it. */
  readonly log: Logger;
}

/**
 * The consumer of one mapping: a {@link ConsumerRuntime} (consumeMode PUSH) or a {@link PopConsumer}
 * (POP). Both start, stop, report health and emit lifecycle events the same way; their status differs
 * (queues held vs brokers popped), so only a runtime has queue lag.
 */
export type MappingConsumer = ConsumerRuntime | PopConsumer;

/** A mapping's listener and consumer, not started. */
export interface WiredMapping {
  readonly listener: FunctionMessageListener;
  readonly runtime: MappingConsumer;
}

/**
 * Builds a mapping's listener and runtime (not started) and logs how it is configured.
 *
 * @example
 * ```ts
 * const { listener, runtime } = wireMapping(config.mappings[0], { config, client, stores, targets,
 *   telemetry, consumerOverrides: undefined, log });
 * await runtime.start();
 * ```
 */
export function wireMapping(mapping: MappingConfig, parts: SharedParts): WiredMapping {
  const { config } = parts;
  const mappingLog = childLogger(parts.log, { mapping: mapping.name });
  const target = parts.targets.forMapping(mapping);
  const meter = parts.telemetry.mapping(mapping);
  const listener = new FunctionMessageListener({
    invoker: target.invoker,
    functionRef: mapping.functionRef,
    consumerGroup: mapping.consumerGroup,
    logger: mappingLog,
    bisectBatchOnError: mapping.bisectBatchOnError,
    maxRecordAgeSeconds: mapping.maxRecordAgeSeconds,
    failureDestination: target.failureDestination,
    functionArn: target.functionArn,
    observer: meter.invokeObserver,
  });
  const runtime = consumerOf(mapping, parts, { listener, meter, logger: mappingLog });
  mappingLog.info(configurationOf(config, mapping, target, runtime), 'mapping configured');
  return { listener, runtime };
}

function consumerOf(
  mapping: MappingConfig,
  parts: SharedParts,
  own: { listener: FunctionMessageListener; meter: MappingMeter; logger: Logger },
): MappingConsumer {
  const { config } = parts;
  const { listener, meter, logger } = own;
  if (mapping.consumeMode === 'POP') {
    const consumer = new PopConsumer(
      popConsumerOptionsOf(mapping, config.shutdownTimeoutMs, parts.consumerOverrides),
      { client: parts.client, listener, logger },
    );
    meter.watch(meteredPopConsumer(consumer));
    return consumer;
  }
  const consumerOptions = {
    ...consumerOptionsOf(mapping, config.shutdownTimeoutMs, config.offsets.persistIntervalMs),
    ...parts.consumerOverrides,
  };
  const runtime = new ConsumerRuntime(consumerOptions, {
    client: parts.client,
    offsetStore: meter.observeOffsetStore(parts.stores.forMapping(mapping)),
    listener,
    logger,
    observer: meter.consumerObserver,
    retryProducer: parts.retryProducer,
  });
  meter.watch(runtime);
  return runtime;
}

/** The 'mapping configured' log line: where the mapping reads from and what it invokes, how. */
function configurationOf(
  config: RunConfig,
  mapping: MappingConfig,
  target: MappingTarget,
  consumer: MappingConsumer,
) {
  return {
    topic: mapping.topic,
    consumerGroup: mapping.consumerGroup,
    function: mapping.functionRef,
    invoker: target.kind,
    ...(target.kind === 'lambda'
      ? {
          lambdaRegion: config.lambda.region,
          lambdaEndpoint: config.lambda.endpoint,
          functionTimeoutMs: mapping.functionTimeoutMs,
        }
      : {}),
    consumeMode: mapping.consumeMode,
    ...(consumer instanceof PopConsumer
      ? { invisibleTimeMs: consumer.options.invisibleTimeMs }
      : {
          messageModel: mapping.messageModel,
          orderly: mapping.orderly,
          allocateStrategy: mapping.allocateStrategy,
          zoneNearby: mapping.zoneNearby !== undefined,
          offsetStore: offsetStoreKindOf(config.offsets, mapping),
        }),
    bisectBatchOnError: mapping.bisectBatchOnError,
    maxRecordAgeSeconds: mapping.maxRecordAgeSeconds,
    onFailure: mapping.onFailure,
  };
}
