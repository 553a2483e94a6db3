/**
 * What each mapping of a poller invokes, built from the config: one {@link LocalInvoker} for all `local:`
 * handlers, one {@link LambdaInvoker} for all Lambda functions (one more per distinct
 * `functionTimeoutMs`, since the wait for an answer is a client setting), and an `onFailure` destination
 * per mapping that names one. `close()` releases them all.
 */

import { classifyFunctionRef } from '../config/function-ref.js';
import type { DestinationsConfig, LambdaConfig, MappingConfig } from '../config/run-config.js';
import { RocketMQError } from '../errors.js';
import { createFailureDestination, type FailureDestination } from '../invoke/failure-destination.js';
import { parseDestinationArn } from '../invoke/failure-destination-arn.js';
import type { Invoker } from '../invoke/invoker.js';
import { lambdaFunctionArn } from '../invoke/lambda-function-ref.js';
import { LambdaInvoker } from '../invoke/lambda-invoker.js';
import { LocalInvoker } from '../invoke/local-invoker.js';
import { echoedValue } from '../util/echoed-value.js';
import type { Logger } from '../util/logger.js';
import { isS3Arn } from '../util/s3-bucket-arn.js';
import { type HandlerLoadProblem, handlerLoadProblems } from './start-checks.js';

/**
 * Options of {@link FunctionTargets}.
 */
export interface FunctionTargetsOptions {
  /** `local:` module paths are relative to it. */
  baseDir: string;
  lambda: LambdaConfig;
  destinations: DestinationsConfig;
  /** Runs every function instead (tests). */
  invoker?: Invoker | undefined;
  logger?: Logger | undefined;
}

/**
 * What one mapping invokes and reports to.
 */
export interface MappingTarget {
  readonly invoker: Invoker;
  /** `lambda` for Lambda functions, `local` for handler modules. */
  readonly kind: 'lambda' | 'local';
  /** The function's ARN as far as it is known (for failure records and logs); the ref for `local:`. */
  readonly functionArn: string;
  readonly failureDestination: FailureDestination | undefined;
}

/**
 * Invoke counters of a poller's Lambda invokers, summed.
 */
export interface LambdaTargetStats {
  readonly requests: number;
  readonly throttles: number;
}

/**
 * Builds and owns the invokers and failure destinations of a poller's mappings.
 */
export class FunctionTargets {
  readonly #options: FunctionTargetsOptions;
  #local: LocalInvoker | undefined;
  readonly #lambda = new Map<number, LambdaInvoker>();
  readonly #destinations: FailureDestination[] = [];

  constructor(options: FunctionTargetsOptions) {
    this.#options = options;
  }

  /** The target of `mapping`; throws when its `function` is neither `local:` nor a Lambda function. */
  forMapping(mapping: Pick<MappingConfig, 'functionRef' | 'functionTimeoutMs' | 'onFailure'>): MappingTarget {
    const ref = classifyFunctionRef(mapping.functionRef);
    if (ref.kind === 'invalid') throw new RocketMQError(`function ${echoedValue(ref.ref)}: ${ref.reason}`);
    const failureDestination = this.#destinationFor(mapping.onFailure);
    if (ref.kind === 'local') {
      return {
        invoker: this.#options.invoker ?? this.#localInvoker(),
        kind: 'local',
        functionArn: ref.ref,
        failureDestination,
      };
    }
    return {
      invoker: this.#options.invoker ?? this.#lambdaInvoker(mapping.functionTimeoutMs),
      kind: 'lambda',
      functionArn: lambdaFunctionArn(ref.lambda, this.#options.lambda.region ?? '*'),
      failureDestination,
    };
  }

  /**
   * Loads the handler of every `local:` mapping with the invoker that will run it (start-checks.ts), so
   * the first batch finds the module imported. None with an injected invoker: it runs every function.
   */
  handlerLoadProblems(
    mappings: readonly Pick<MappingConfig, 'name' | 'functionRef'>[],
  ): Promise<HandlerLoadProblem[]> {
    if (this.#options.invoker !== undefined) return Promise.resolve([]);
    return handlerLoadProblems(mappings, { load: (functionRef) => this.#localInvoker().load(functionRef) });
  }

  /** Requests and throttles of every Lambda invoker so far (also after `close()`). */
  lambdaStats(): LambdaTargetStats {
    let requests = 0;
    let throttles = 0;
    for (const invoker of this.#lambda.values()) {
      const stats = invoker.stats();
      requests += stats.requests;
      throttles += stats.throttles;
    }
    return { requests, throttles };
  }

  /** Closes every invoker and destination built here (not an injected invoker). Rejects with the first failure. */
  async close(): Promise<void> {
    const closing: Promise<void>[] = [
      ...(this.#local === undefined ? [] : [this.#local.close()]),
      ...[...this.#lambda.values()].map((invoker) => invoker.close()),
      ...this.#destinations.map((destination) => destination.close()),
    ];
    this.#local = undefined;
    this.#destinations.length = 0;
    // The Lambda invokers stay listed (closed): their counters still count after the stop.
    const results = await Promise.allSettled(closing);
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  #localInvoker(): LocalInvoker {
    this.#local ??= new LocalInvoker({ baseDir: this.#options.baseDir, logger: this.#options.logger });
    return this.#local;
  }

  #lambdaInvoker(functionTimeoutMs: number): LambdaInvoker {
    let invoker = this.#lambda.get(functionTimeoutMs);
    if (invoker === undefined) {
      const { region, endpoint } = this.#options.lambda;
      invoker = new LambdaInvoker({ region, endpoint, functionTimeoutMs, logger: this.#options.logger });
      this.#lambda.set(functionTimeoutMs, invoker);
    }
    return invoker;
  }

  #destinationFor(arn: string | undefined): FailureDestination | undefined {
    if (arn === undefined) return undefined;
    const { sqsEndpoint, snsEndpoint, s3Endpoint } = this.#options.destinations;
    const endpoint = isS3Arn(arn)
      ? s3Endpoint
      : parseDestinationArn(arn).service === 'sqs'
        ? sqsEndpoint
        : snsEndpoint;
    const destination = createFailureDestination(arn, { endpoint });
    this.#destinations.push(destination);
    return destination;
  }
}
