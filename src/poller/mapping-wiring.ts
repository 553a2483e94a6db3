/**
 * One mapping of a poller, wired: a {@link FunctionMessageListener} over the mapping's function target
 * (the poller's shared LambdaInvoker or LocalInvoker, with the mapping's payload, bisect, record-age and
 * onFailure options) and its consumer, built by the factory of the mapping's consumeMode
 * (consume-modes.ts) and watched by the mapping's meter.
 */

import type { Producer } from '../client/producer.js';
import type { RocketMQClient } from '../client/rocketmq-client.js';
import type { MappingConfig, RunConfig } from '../config/run-config.js';
import type { MappingConsumer } from '../consumer/mapping-consumer.js';
import type { MessageListener } from '../consumer/message-listener.js';
import { compileFilter } from '../filter/message-filter.js';
import { FunctionMessageListener } from '../invoke/function-listener.js';
import { childLogger, type Logger } from '../util/logger.js';
import { CONSUME_MODES } from './consume-modes.js';
import type { FunctionTargets, MappingTarget } from './function-targets.js';
import type { ConsumerOverrides } from './mapping-consumer-options.js';
import { mappingTraceOf } from './message-trace-wiring.js';
import type { OffsetStores } from './offset-stores.js';
import type { PollerTelemetry } from './poller-telemetry.js';

/** What the mappings of one poller share. */
export interface SharedParts {
  readonly config: RunConfig;
  readonly client: RocketMQClient;
  readonly stores: OffsetStores;
  readonly targets: FunctionTargets;
  readonly telemetry: PollerTelemetry;
  readonly consumerOverrides: ConsumerOverrides | undefined;
  /** PollerOptions.wrapListener: wraps each mapping's listener last. */
  readonly wrapListener?:
    | ((mapping: MappingConfig, listener: MessageListener) => MessageListener)
    | undefined;
  /** Takes failed messages to `%RETRY%<group>` when their broker group's master is down (started). */
  readonly retryProducer: Producer;
  /** The poller's logger; each mapping logs through a child of it. */
  readonly log: Logger;
}

/** A mapping's listener and consumer, not started. */
export interface WiredMapping {
  readonly listener: FunctionMessageListener;
  readonly runtime: MappingConsumer;
}

/**
 * Builds a mapping's listener and runtime (not started) and logs how it is configured.
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
    messageModel: mapping.messageModel,
    // Checked with the config (config-rules.ts): compiled once here, matched per message by the listener.
    filter:
      mapping.filters === undefined
        ? undefined
        : compileFilter(mapping.filters, { path: `mapping ${mapping.name}: filters` }),
  });
  // `messageTrace`: consume trace records around every batch (message-trace-wiring.ts).
  const trace = mappingTraceOf(mapping, parts.client, meter.traceObserver, mappingLog);
  const traced = trace?.wrapListener(listener) ?? listener;
  const { consumer, configuration } = CONSUME_MODES[mapping.consumeMode]({
    mapping,
    parts,
    listener: parts.wrapListener?.(mapping, traced) ?? traced,
    meter,
    logger: mappingLog,
  });
  const runtime = trace?.wrapConsumer(consumer) ?? consumer;
  mappingLog.info(configurationOf(config, mapping, target, configuration), 'mapping configured');
  return { listener, runtime };
}

/** The 'mapping configured' log line: where the mapping reads from and what it invokes, how. */
function configurationOf(
  config: RunConfig,
  mapping: MappingConfig,
  target: MappingTarget,
  modeConfiguration: Readonly<Record<string, unknown>>,
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
    ...modeConfiguration,
    bisectBatchOnError: mapping.bisectBatchOnError,
    maxRecordAgeSeconds: mapping.maxRecordAgeSeconds,
    onFailure: mapping.onFailure,
    filters: mapping.filters?.length ?? 0,
    messageTrace: mapping.messageTrace?.topic ?? false,
  };
}
