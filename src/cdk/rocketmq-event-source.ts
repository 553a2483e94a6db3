/**
 * `fn.addEventSource(new RocketMQEventSource({ poller, topic, consumerGroup, ... }))`: a RocketMQ mapping
 * of a function, run by the stack's {@link RocketMQPoller}. The props are the serverless `rocketmq` event's
 * keys (src/serverless/rocketmq-event-schema.ts: the same option specs as the run config), with CDK's
 * types where CDK has them: `Duration` for the batching window and the record age, an SQS queue or SNS
 * topic for `onFailure`, and `filters` as CDK's `FilterCriteria.filter({...})` makes them (as well as
 * pattern objects and JSON strings).
 */
import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { z } from 'zod';
import { RocketMQPluginError } from '../serverless/plugin-error.js';
import type { rocketmqEventSchema } from '../serverless/rocketmq-event-schema.js';
import type { RocketMQPoller } from './rocketmq-poller.js';

type EventInput = z.input<typeof rocketmqEventSchema>;

/** The timeout of a function that sets none (CDK's and Lambda's default). */
const LAMBDA_DEFAULT_TIMEOUT = Duration.seconds(3);

/**
 * The props of {@link RocketMQEventSource}.
 */
export interface RocketMQEventSourceProps
  extends Omit<EventInput, 'maximumBatchingWindow' | 'maxRecordAge' | 'onFailure' | 'filters'> {
  /** The stack's poller, which runs this mapping. */
  readonly poller: RocketMQPoller;
  /** How long the poller gathers messages for a batch (whole seconds). Default: 500 ms. */
  readonly maxBatchingWindow?: Duration;
  /** Messages older than this are not delivered but handed to `onFailure` (whole seconds). Default: no limit. */
  readonly maxRecordAge?: Duration;
  /**
   * Filter criteria: patterns as `lambda.FilterCriteria.filter({ body: { status: lambda.FilterRule.isEqual('paid') } })`
   * makes them (`{ pattern: '<json>' }`, as for CDK's Kafka and SQS sources), pattern objects or JSON
   * strings; a message that matches none is not invoked (docs/filtering.md). Default: none.
   */
  readonly filters?: readonly (string | Readonly<Record<string, unknown>>)[];
  /** Where failed messages go instead of RocketMQ's dead letter queue: an SQS queue or an SNS topic. */
  readonly onFailure?: sqs.IQueue | sns.ITopic;
  /**
   * How long one invoke may run: the function's timeout. Read from a `lambda.Function` (3 s when it sets
   * none); required for an imported function.
   */
  readonly functionTimeout?: Duration;
}

/**
 * A RocketMQ topic as an event source of a Lambda function.
 *
 * @example
 * ```ts
 * fn.addEventSource(new RocketMQEventSource({
 *   poller, topic: 'Orders', consumerGroup: 'orders-fn', batchSize: 50,
 *   maxBatchingWindow: Duration.seconds(1), onFailure: failures,
 * }));
 * ```
 */
export class RocketMQEventSource implements lambda.IEventSource {
  readonly #props: RocketMQEventSourceProps;

  constructor(props: RocketMQEventSourceProps) {
    this.#props = props;
  }

  /** Called by `fn.addEventSource(this)`: adds the mapping to the poller (which checks it). */
  bind(target: lambda.IFunction): void {
    const { poller, maxBatchingWindow, maxRecordAge, onFailure, functionTimeout, filters, ...event } =
      this.#props;
    const label = `RocketMQEventSource(${target.node.path})`;
    const rocketmq: Record<string, unknown> = { ...event };
    if (filters !== undefined) rocketmq.filters = filters.map(patternOf);
    if (maxBatchingWindow !== undefined) rocketmq.maximumBatchingWindow = seconds(maxBatchingWindow);
    if (maxRecordAge !== undefined) rocketmq.maxRecordAge = seconds(maxRecordAge);
    if (onFailure !== undefined) {
      rocketmq.onFailure = 'queueArn' in onFailure ? onFailure.queueArn : onFailure.topicArn;
    }
    poller.addMapping({
      target,
      timeoutSeconds: seconds(functionTimeout ?? timeoutOf(target, label)),
      event: rocketmq,
      label,
    });
  }
}

/** A filter as CDK's `FilterCriteria.filter` makes it (`{ pattern: '<json>' }`) is its JSON text. */
function patternOf(filter: string | Readonly<Record<string, unknown>>): unknown {
  if (typeof filter === 'string') return filter;
  const keys = Object.keys(filter);
  return keys.length === 1 && keys[0] === 'pattern' && typeof filter.pattern === 'string'
    ? filter.pattern
    : filter;
}

/** A duration in seconds, fractions kept: the schema says when it wants whole ones. */
function seconds(duration: Duration): number {
  return duration.toMilliseconds() / 1000;
}

function timeoutOf(target: lambda.IFunction, label: string): Duration {
  const base = (target as lambda.IFunction & { readonly lambda?: lambda.IFunction }).lambda ?? target;
  if (base instanceof lambda.Function) return base.timeout ?? LAMBDA_DEFAULT_TIMEOUT;
  throw new RocketMQPluginError([
    `${label}.functionTimeout: required for a function this app does not define (the poller lets one invoke run this long)`,
  ]);
}
