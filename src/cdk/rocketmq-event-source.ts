/**
 * `fn.addEventSource(new RocketMQEventSource({ poller, topic, consumerGroup, ... }))`: a RocketMQ mapping
 * of a function, run by the stack's {@link RocketMQPoller}. The props are the serverless `rocketmq` event's
 * keys (src/serverless/rocketmq-event-schema.ts: the same option specs as the run config), with CDK's
 * types where CDK has them: `Duration` for the batching window and the record age, an SQS queue, SNS
 * topic or S3 bucket for `onFailure`, and `filters` as CDK's `FilterCriteria.filter({...})` makes them (as well as
 * pattern objects and JSON strings).
 */
import { ArnFormat, Duration, Stack, Token } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { z } from 'zod';
import { RocketMQPluginError } from '../serverless/plugin-error.js';
import type { rocketmqEventSchema } from '../serverless/rocketmq-event-schema.js';
import { s3BucketArnProblem } from '../util/s3-bucket-arn.js';
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
  /**
   * Where a record of failed messages goes, in addition to RocketMQ's dead letter queue: an SQS queue or
   * an SNS topic (one record per batch, no bodies), or an S3 bucket (one object per message, its whole
   * record; docs/operating.md, "Failures in S3").
   */
  readonly onFailure?: sqs.IQueue | sns.ITopic | s3.IBucket;
  /**
   * With an S3 bucket as `onFailure`: the key prefix of its objects (`orders/prod`: no `/` at either end),
   * the ARN's `/<key prefix>` of the other faces. Default: none, keys start at the bucket's root.
   */
  readonly onFailureKeyPrefix?: string;
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
    const {
      poller,
      maxBatchingWindow,
      maxRecordAge,
      onFailure,
      onFailureKeyPrefix,
      functionTimeout,
      filters,
      ...event
    } = this.#props;
    const label = `RocketMQEventSource(${target.node.path})`;
    const rocketmq: Record<string, unknown> = { ...event };
    if (filters !== undefined) rocketmq.filters = filters.map(patternOf);
    if (maxBatchingWindow !== undefined) rocketmq.maximumBatchingWindow = seconds(maxBatchingWindow);
    if (maxRecordAge !== undefined) rocketmq.maxRecordAge = seconds(maxRecordAge);
    if (onFailure !== undefined || onFailureKeyPrefix !== undefined) {
      rocketmq.onFailure = failureDestinationArn(onFailure, onFailureKeyPrefix, label);
    }
    poller.addMapping({
      target,
      timeoutSeconds: seconds(functionTimeout ?? timeoutOf(target, label)),
      event: rocketmq,
      label,
    });
  }
}

/** The `onFailure` ARN of a queue, a topic, or a bucket with an optional key prefix. */
function failureDestinationArn(
  destination: sqs.IQueue | sns.ITopic | s3.IBucket | undefined,
  keyPrefix: string | undefined,
  label: string,
): string {
  if (destination !== undefined && 'bucketArn' in destination) {
    // Spelled out when it is a token, so the compiler sees an S3 ARN and grants s3:PutObject only.
    const arn = Token.isUnresolved(destination.bucketArn)
      ? `arn:${Stack.of(destination).partition}:s3:::${destination.bucketName}`
      : destination.bucketArn;
    if (keyPrefix === undefined) return arn;
    // The bucket's ARN may be a token; the prefix is checked as the other faces check it in an ARN.
    const problem = s3BucketArnProblem(`arn:aws:s3:::bucket/${keyPrefix}`);
    if (problem !== undefined) {
      throw new RocketMQPluginError([
        `${label}.onFailureKeyPrefix: ${JSON.stringify(keyPrefix)}: ${problem}`,
      ]);
    }
    return `${arn}/${keyPrefix}`;
  }
  if (keyPrefix !== undefined || destination === undefined) {
    throw new RocketMQPluginError([
      `${label}.onFailureKeyPrefix: only for an S3 bucket as onFailure (the prefix of its objects' keys)`,
    ]);
  }
  // Spelled out when a token (as the bucket's above), so the compiler sees which service it is and grants
  // that service's action only.
  if ('queueArn' in destination) {
    return Token.isUnresolved(destination.queueArn)
      ? Stack.of(destination).formatArn({
          service: 'sqs',
          resource: destination.queueName,
          arnFormat: ArnFormat.NO_RESOURCE_NAME,
        })
      : destination.queueArn;
  }
  return Token.isUnresolved(destination.topicArn)
    ? Stack.of(destination).formatArn({
        service: 'sns',
        resource: destination.topicName,
        arnFormat: ArnFormat.NO_RESOURCE_NAME,
      })
    : destination.topicArn;
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
