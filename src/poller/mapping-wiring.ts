/**
 * One mapping of a poller, wired: a {@link FunctionMessageListener} over the mapping's function target
 * (the poller's shared LambdaInvoker or LocalInvoker, with the mapping's payload, bisect, record-age and
 * onFailure options) and a {@link ConsumerRuntime} over the poller's client and the mapping's offset
 * store, both observed by the mapping's meter.
 */
import type { RocketMQClient } from '../client/rocketmq-client.js';
import type { MappingConfig, RunConfig } from '../config/run-config.js';
import { ConsumerRuntime } from '../consumer/consumer-runtime.js';
import { FunctionMessageListener } from '../invoke/function-listener.js';
import { childLogger, type Logger } from '../util/logger.js';
import type { FunctionTargets, MappingTarget } from './function-targets.js';
import { type ConsumerOverrides, consumerOptionsOf } from './mapping-consumer-options.js';
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
  /** The poller's logger; each mapping logs through a child of it. */
  readonly log: Logger;
}

/** A mapping's listener and runtime, not started. */
export interface WiredMapping {
  readonly listener: FunctionMessageListener;
  readonly runtime: ConsumerRuntime;
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
  const consumerOptions = {
    ...consumerOptionsOf(mapping, config.shutdownTimeoutMs, config.offsets.persistIntervalMs),
    ...parts.consumerOverrides,
  };
  const runtime = new ConsumerRuntime(consumerOptions, {
    client: parts.client,
    offsetStore: meter.observeOffsetStore(parts.stores.forMapping(mapping)),
    listener,
    logger: mappingLog,
    observer: meter.consumerObserver,
  });
  meter.watch(runtime);
  mappingLog.info(configurationOf(config, mapping, target), 'mapping configured');
  return { listener, runtime };
}

/** The 'mapping configured' log line: where the mapping reads from and what it invokes, how. */
function configurationOf(config: RunConfig, mapping: MappingConfig, target: MappingTarget) {
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
    messageModel: mapping.messageModel,
    orderly: mapping.orderly,
    allocateStrategy: mapping.allocateStrategy,
    zoneNearby: mapping.zoneNearby !== undefined,
    offsetStore: offsetStoreKindOf(config.offsets, mapping),
    bisectBatchOnError: mapping.bisectBatchOnError,
    maxRecordAgeSeconds: mapping.maxRecordAgeSeconds,
    onFailure: mapping.onFailure,
  };
}
