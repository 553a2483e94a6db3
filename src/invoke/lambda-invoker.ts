/**
 * Invokes AWS Lambda functions (RequestResponse) over the parts of an `@aws-sdk/client-lambda` client
 * (lambda-invoke-channel.ts: its credential chain, endpoint, HTTP handler and error deserializer), and
 * turns every way an invoke can go wrong into the outcome the consume path expects: failures fail the
 * batch, throttles are waited out here (never a consume failure), and conditions no retry can fix stop
 * the mapping.
 */

import { LambdaClient, type LambdaClientConfig } from '@aws-sdk/client-lambda';
import { RocketMQError } from '../errors.js';
import { echoedText } from '../util/echoed-value.js';
import { errorMessage } from '../util/error-message.js';
import { awsClientIdentity } from '../util/local-endpoint-credentials.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { retry } from '../util/retry.js';
import { ThrottledLog } from '../util/throttled-log.js';
import { abortedOutcome } from './aborted-outcome.js';
import { InvokeError } from './invoke-error.js';
import type { InvokeFailure, InvokeOutcome, InvokeRequest, Invoker } from './invoker.js';
import { classifyLambdaError } from './lambda-error-classification.js';
import {
  boundedLambdaError,
  describeLambdaError,
  functionErrorMessage,
  MAX_ERROR_TEXT_CHARS,
} from './lambda-error-text.js';
import { type LambdaFunctionRef, parseLambdaFunctionRef } from './lambda-function-ref.js';
import { type LambdaInvokeAnswer, LambdaInvokeChannel } from './lambda-invoke-channel.js';
import { LambdaResponseTooLargeError, MAX_LAMBDA_RESPONSE_BYTES } from './lambda-response-cap.js';
import { DEFAULT_FUNCTION_TIMEOUT_MS, DEFAULT_TIMEOUT_MARGIN_MS } from './lambda-timeouts.js';
import { traceHeaders } from './lambda-trace-headers.js';

const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_SOCKETS = 256;
const DEFAULT_THROTTLE_INITIAL_DELAY_MS = 100;
const DEFAULT_THROTTLE_MAX_DELAY_MS = 30_000;
/** Parsed function references kept (a mapping names one function; the cache is emptied when full). */
const MAX_CACHED_REFS = 256;

/**
 * Options of {@link LambdaInvoker}. Region and credentials come from the standard AWS chain unless given.
 */
export interface LambdaInvokerOptions {
  /** The region of functions not named by a full ARN (a full ARN's region wins). @default the AWS chain's */
  region?: string | undefined;
  /** Another Invoke API endpoint (local Lambda APIs, tests), e.g. `http://127.0.0.1:3002`. */
  endpoint?: string | undefined;
  /**
   * Credentials instead of the standard chain. A loopback `endpoint` needs none: placeholders when the chain
   * has none (src/util/local-endpoint-credentials.ts).
   */
  credentials?: LambdaClientConfig['credentials'];
  /** How long the functions may run: an invoke waits this long plus `timeoutMarginMs`. @default 900_000 */
  functionTimeoutMs?: number | undefined;
  /** @default 10_000 */
  timeoutMarginMs?: number | undefined;
  /** How long connecting may take. @default 10_000 */
  connectionTimeoutMs?: number | undefined;
  /** Concurrent connections per endpoint. @default 256 */
  maxSockets?: number | undefined;
  /** The first wait after a throttle; waits double per throttle in a row, with full jitter. @default 100 */
  throttleInitialDelayMs?: number | undefined;
  /** The longest wait after a throttle. @default 30_000 */
  throttleMaxDelayMs?: number | undefined;
  /**
   * The largest answer read, in bytes; a larger one fails the invoke as a `malformed-response`, unread or
   * cut off. Error answers (a status outside 2xx) stop at `MAX_LAMBDA_ERROR_ANSWER_BYTES` (64 KiB) or
   * this, whichever is lower. @default MAX_LAMBDA_RESPONSE_BYTES (7 MiB: Lambda answers at most 6 MB)
   */
  maxResponseBytes?: number | undefined;
  /** Randomness of the jitter (tests pass a fixed one). @default Math.random */
  random?: (() => number) | undefined;
  /** The parent logger; lines carry `component: 'invoke.lambda'`. */
  logger?: Logger | undefined;
}

/**
 * Counters of a {@link LambdaInvoker}, for metrics.
 */
export interface LambdaInvokerStats {
  /** Invoke requests sent (throttled ones included). */
  readonly requests: number;
  /** Requests answered with a throttle (each was waited out and sent again). */
  readonly throttles: number;
}

/** A throttled attempt, for the retry helper: retriable, never seen outside this file. */
class ThrottledAttempt extends Error {
  readonly retriable = true;
}

/**
 * An {@link Invoker} for AWS Lambda. `functionRef` is a function name, `name:qualifier`, a partial ARN or a
 * full ARN (whose region is used). Outcomes:
 * - the function's response (`ok: true`; a body that is not JSON is a `malformed-response` failure, and
 *   so is an answer over `maxResponseBytes`, which is never read whole);
 * - `function-error` (FunctionError Handled or Unhandled, with the payload's `errorType`/`errorMessage`,
 *   each cut to its bound: lambda-error-text.ts),
 *   `timeout` (no answer within `functionTimeoutMs + timeoutMarginMs`, or a hung connection), `network`,
 *   `server-error` (5xx), `payload-too-large` (413), `rejected` (other 4xx), `aborted` (the request's
 *   signal);
 * - throttles (429, TooManyRequestsException, EC2/ENI throttles, functions not ready) are retried with
 *   exponential backoff and jitter until they pass or the request's signal aborts, and counted in
 *   {@link LambdaInvoker.stats};
 * - a missing function, denied access and broken function configuration (KMS, VPC) throw an
 *   {@link InvokeError} with `fatal: true`.
 */
export class LambdaInvoker implements Invoker {
  readonly #options: LambdaInvokerOptions;
  readonly #waitMs: number;
  readonly #maxResponseBytes: number;
  readonly #log: Logger;
  /** One client (and its channel) per region; key '' is the default region's. */
  readonly #clients = new Map<string, { client: LambdaClient; channel: LambdaInvokeChannel }>();
  /** Parsed references by reference: parsing one per invoke showed in the invoke's profile. */
  readonly #refs = new Map<string, LambdaFunctionRef>();
  /** Throttling lasts: one warning per function per interval, with how many were held back. */
  readonly #throttleWarnings: ThrottledLog;
  #requests = 0;
  #throttles = 0;
  #closed = false;

  constructor(options: LambdaInvokerOptions = {}) {
    const functionTimeoutMs = options.functionTimeoutMs ?? DEFAULT_FUNCTION_TIMEOUT_MS;
    const marginMs = options.timeoutMarginMs ?? DEFAULT_TIMEOUT_MARGIN_MS;
    if (!(functionTimeoutMs > 0))
      throw new RocketMQError(`functionTimeoutMs must be positive, got ${functionTimeoutMs}`);
    if (!(marginMs >= 0)) throw new RocketMQError(`timeoutMarginMs must not be negative, got ${marginMs}`);
    this.#options = options;
    this.#waitMs = functionTimeoutMs + marginMs;
    const maxResponseBytes = options.maxResponseBytes ?? MAX_LAMBDA_RESPONSE_BYTES;
    if (!(Number.isSafeInteger(maxResponseBytes) && maxResponseBytes > 0)) {
      throw new RocketMQError(`maxResponseBytes must be a positive integer, got ${maxResponseBytes}`);
    }
    this.#maxResponseBytes = maxResponseBytes;
    this.#log = componentLogger('invoke.lambda', options.logger);
    this.#throttleWarnings = new ThrottledLog(this.#log);
  }

  /** Counters since construction. */
  stats(): LambdaInvokerStats {
    return { requests: this.#requests, throttles: this.#throttles };
  }

  /** Requests answered with a throttle so far. */
  get throttles(): number {
    return this.#throttles;
  }

  async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
    const { functionRef, signal } = request;
    if (this.#closed) throw new InvokeError('the Lambda invoker is closed', { functionRef, fatal: true });
    const ref = this.#refOf(functionRef);
    const channel = this.#channelFor(ref.region);
    try {
      return await retry(() => this.#invokeOnce(channel, ref, request), {
        maxAttempts: Number.POSITIVE_INFINITY,
        initialDelayMs: this.#options.throttleInitialDelayMs ?? DEFAULT_THROTTLE_INITIAL_DELAY_MS,
        maxDelayMs: this.#options.throttleMaxDelayMs ?? DEFAULT_THROTTLE_MAX_DELAY_MS,
        isRetriable: (error) => error instanceof ThrottledAttempt,
        onRetry: (error, attempt, delayMs) =>
          this.#throttleWarnings.warn(
            functionRef,
            { functionRef, attempt, delayMs, err: error, throttles: this.#throttles },
            "invoke throttled by Lambda, waiting (raise the function's reserved concurrency or lower maxConcurrency)",
          ),
        ...(signal === undefined ? {} : { signal }),
        ...(this.#options.random === undefined ? {} : { random: this.#options.random }),
      });
    } catch (error) {
      // The request's signal aborted while a throttle was being waited out.
      if (error instanceof ThrottledAttempt && signal !== undefined) return abortedOutcome(signal);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const { client } of this.#clients.values()) client.destroy();
    this.#clients.clear();
  }

  #refOf(functionRef: string): LambdaFunctionRef {
    let ref = this.#refs.get(functionRef);
    if (ref === undefined) {
      ref = parseLambdaFunctionRef(functionRef);
      if (this.#refs.size >= MAX_CACHED_REFS) this.#refs.clear();
      this.#refs.set(functionRef, ref);
    }
    return ref;
  }

  /** One invoke request: an outcome, or a `ThrottledAttempt` / fatal `InvokeError` thrown. */
  async #invokeOnce(
    channel: LambdaInvokeChannel,
    ref: LambdaFunctionRef,
    request: InvokeRequest,
  ): Promise<InvokeOutcome> {
    const { signal } = request;
    if (signal?.aborted) return abortedOutcome(signal);
    // One controller per request, aborted by the timer or by the request's signal: AbortSignal.any costs
    // more CPU per invoke than the rest of this wrapper (bench/invoke-overhead.ts).
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort(new Error(`no answer within ${this.#waitMs} ms`));
    }, this.#waitMs);
    const forwardAbort = (): void => abort.abort(signal?.reason);
    signal?.addEventListener('abort', forwardAbort, { once: true });
    const abortSignal = abort.signal;
    this.#requests++;
    try {
      const answer = await channel.invoke({
        functionName: ref.functionName,
        qualifier: ref.qualifier,
        payload: request.payload,
        headers: request.traceContext === undefined ? undefined : traceHeaders(request.traceContext),
        abortSignal,
      });
      return outcomeOf(answer);
    } catch (error) {
      if (signal?.aborted) return abortedOutcome(signal);
      if (timedOut) return this.#timeoutOutcome();
      // Before the status is looked at: an answer too large to read says nothing about throttles or
      // permissions, whatever its status claims.
      if (error instanceof LambdaResponseTooLargeError) {
        return { ok: false, kind: 'malformed-response', message: error.reason };
      }
      return this.#failureOf(error, ref, request);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forwardAbort);
    }
  }

  #failureOf(error: unknown, ref: LambdaFunctionRef, request: InvokeRequest): InvokeOutcome {
    const verdict = classifyLambdaError(error);
    const description = describeLambdaError(error);
    const cause = boundedLambdaError(error);
    if (verdict.action === 'throttle') {
      this.#throttles++;
      request.onThrottle?.();
      throw new ThrottledAttempt(description, { cause });
    }
    if (verdict.action === 'fatal') {
      this.#log.error({ functionRef: ref.ref, err: cause }, 'function cannot be invoked');
      throw new InvokeError(
        `Lambda function ${JSON.stringify(ref.ref)} cannot be invoked: ${description}. The mapping stops: ` +
          `check the function name and region, the poller's lambda:InvokeFunction permission and the ` +
          `function's configuration.`,
        { functionRef: ref.ref, fatal: true, cause },
      );
    }
    if (verdict.failureKind === 'timeout') return this.#timeoutOutcome();
    return { ok: false, kind: verdict.failureKind, message: description };
  }

  #timeoutOutcome(): InvokeFailure {
    return {
      ok: false,
      kind: 'timeout',
      message: `no answer from Lambda within ${this.#waitMs} ms (the function's timeout plus a margin)`,
    };
  }

  #channelFor(region: string | undefined): LambdaInvokeChannel {
    const key = region ?? '';
    let entry = this.#clients.get(key);
    if (entry === undefined) {
      const { endpoint, credentials } = this.#options;
      const maxSockets = this.#options.maxSockets ?? DEFAULT_MAX_SOCKETS;
      const regionOption = region ?? this.#options.region;
      // The client gives its parts (credential chain, endpoint, signer's hash, HTTP handler, error
      // deserializer) to the channel, which sends each invoke without its middleware stack.
      const client = new LambdaClient({
        maxAttempts: 1,
        ...(endpoint === undefined ? {} : { endpoint }),
        // A loopback Invoke API (serverless-offline, tests) works without AWS credentials or a region.
        ...awsClientIdentity({ endpoint, region: regionOption, credentials }),
        requestHandler: {
          connectionTimeout: this.#options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
          requestTimeout: this.#waitMs,
          throwOnRequestTimeout: true,
          httpAgent: { keepAlive: true, maxSockets },
          httpsAgent: { keepAlive: true, maxSockets },
        },
      });
      entry = { client, channel: new LambdaInvokeChannel(client, this.#maxResponseBytes) };
      this.#clients.set(key, entry);
    }
    return entry.channel;
  }
}

/** The outcome of an answered invoke. */
function outcomeOf(answer: LambdaInvokeAnswer): InvokeOutcome {
  const { payload } = answer;
  const text = payload.toString('utf8');
  if (answer.functionError !== undefined) {
    return { ok: false, kind: 'function-error', message: functionErrorMessage(answer.functionError, text) };
  }
  if (payload.length > 0) {
    try {
      JSON.parse(text);
    } catch (error) {
      return {
        ok: false,
        kind: 'malformed-response',
        message: `the function's response is not JSON (${echoedText(errorMessage(error), MAX_ERROR_TEXT_CHARS)}): ${echoedText(text, MAX_ERROR_TEXT_CHARS)}`,
      };
    }
  }
  return { ok: true, payload };
}
