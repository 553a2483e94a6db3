/**
 * One Invoke API request (RequestResponse) built from the parts of a `LambdaClient` instead of through
 * its middleware stack: the client's endpoint (resolved once by the SDK's endpoint rules), its
 * credential chain (`config.credentials`, the SDK's memoized provider), its SHA-256, its HTTP request
 * handler (NodeHttpHandler: keep-alive, connection timeout), and, for every answer outside 2xx, its own
 * deserializer, which throws the SDK's modelled exception (`ResourceNotFoundException`,
 * `TooManyRequestsException`, ... with `$metadata`), so lambda-error-classification.ts sees what
 * `client.send()` throws.
 *
 * Why: `client.send(new InvokeCommand(...))` spent about as much CPU per invoke as the signed request
 * itself (docs/decisions/2026-12-07-lambda-invoke-channel.md): per request the SDK copies its whole
 * resolved config several times (endpoint, serializer, deserializer, signer), builds a new
 * `SignatureV4` (and so recomputes the signing key), and runs the retry, user agent and schema serde
 * middleware. Here the signer is built once per client, the endpoint and user agent are resolved once,
 * and the request is written directly (its shape is property-tested equal to the SDK's in
 * test/unit/invoke/lambda-invoke-channel.test.ts).
 *
 * What the SDK's stack did that is kept, and where:
 * - the credential chain: `config.credentials` (refreshes expiring credentials);
 * - clock skew correction: the offset to the server's clock is sampled from each answer's `Date` header
 *   (not when it carries `Age` or took longer than 15 minutes) and every request is signed at the
 *   corrected time, as `AwsSdkSigV4Signer` does;
 * - retries: none (the invoker builds its clients with `maxAttempts: 1` and waits throttles out itself,
 *   lambda-invoker.ts), so the SDK's retry middleware only added its attempt headers;
 * - recursion detection: inside a Lambda function (`AWS_LAMBDA_FUNCTION_NAME`) a request without an
 *   `X-Amzn-Trace-Id` takes `_X_AMZN_TRACE_ID`, as the SDK's recursion-detection middleware does;
 * - the answer's bound: lambda-response-cap.ts, before a byte of the body is read.
 */

import { Invoke$, InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { getEndpointFromInstructions } from '@smithy/core/endpoints';
import { getSchemaSerdePlugin } from '@smithy/core/schema';
import { HttpRequest, HttpResponse } from '@smithy/core/transport';
import { SignatureV4 } from '@smithy/signature-v4';
import {
  type ChecksumConstructor,
  type DeserializeHandler,
  type DeserializeMiddleware,
  type HashConstructor,
  type HttpHandlerOptions,
  type MiddlewareStack,
  SMITHY_CONTEXT_KEY,
} from '@smithy/types';
import { RocketMQError } from '../errors.js';
import { readStream } from '../util/read-stream.js';
import { capResponseBody, MAX_LAMBDA_RESPONSE_BYTES } from './lambda-response-cap.js';
import { XRAY_TRACE_HEADER } from './xray-trace-header.js';

/** One invoke's request. */
export interface LambdaInvokeCall {
  readonly functionName: string;
  readonly qualifier?: string | undefined;
  readonly payload: Uint8Array;
  /** Trace headers (lambda-trace-headers.ts), signed with the request. */
  readonly headers?: Record<string, string> | undefined;
  /** Destroys the HTTP request when it fires. */
  readonly abortSignal?: AbortSignal | undefined;
}

/** A 2xx answer of the Invoke API. */
export interface LambdaInvokeAnswer {
  readonly statusCode: number;
  /** `X-Amz-Function-Error`: `Handled` or `Unhandled` when the function failed. */
  readonly functionError: string | undefined;
  readonly executedVersion: string | undefined;
  readonly payload: Buffer;
}

/** What is resolved once per client. */
interface Prepared {
  readonly url: URL;
  readonly basePath: string;
  readonly signer: SignatureV4;
  readonly userAgent: string;
  readonly handler: RequestHandler;
}

interface RequestHandler {
  handle(request: HttpRequest, options?: HttpHandlerOptions): Promise<{ response: unknown }>;
}

/** The parts of a LambdaClient's resolved config read here. */
interface ClientConfigShape {
  credentials: ConstructorParameters<typeof SignatureV4>[0]['credentials'];
  region: () => Promise<string>;
  sha256: ChecksumConstructor | HashConstructor;
  requestHandler: RequestHandler;
  systemClockOffset?: number;
  signingName?: string;
  signingEscapePath?: boolean;
  defaultUserAgentProvider?: () => Promise<ReadonlyArray<readonly [string, string?]>>;
  logger?: unknown;
}

const FUNCTIONS_PATH = '/2015-03-31/functions/';
/** Answers later than this say nothing about the clock (the SDK's own bound). */
const CLOCK_SAMPLE_MAX_MS = 900_000;

/**
 * Sends Invoke requests over the parts of one LambdaClient (one per region).
 */
export class LambdaInvokeChannel {
  readonly #client: LambdaClient;
  readonly #config: ClientConfigShape;
  readonly #maxResponseBytes: number;
  #prepared: Promise<Prepared> | undefined;
  #deserializer: DeserializeMiddleware<object, object> | undefined;
  #clockOffsetMs: number;

  /** `maxResponseBytes`: the largest answer read (lambda-response-cap.ts). */
  constructor(client: LambdaClient, maxResponseBytes: number = MAX_LAMBDA_RESPONSE_BYTES) {
    if (!(Number.isSafeInteger(maxResponseBytes) && maxResponseBytes > 0)) {
      throw new RocketMQError(`maxResponseBytes must be a positive integer, got ${maxResponseBytes}`);
    }
    this.#client = client;
    this.#config = client.config as unknown as ClientConfigShape;
    this.#maxResponseBytes = maxResponseBytes;
    this.#clockOffsetMs = this.#config.systemClockOffset ?? 0;
  }

  /** The offset to the Invoke API's clock, in ms, requests are signed with. */
  get clockOffsetMs(): number {
    return this.#clockOffsetMs;
  }

  /**
   * Sends one invoke: the answer when its status is 2xx; else throws what the SDK's deserializer makes of
   * it (a modelled exception with `$metadata.httpStatusCode`), or what the request handler threw
   * (network, timeout, abort), or a `LambdaResponseTooLargeError`.
   */
  async invoke(call: LambdaInvokeCall): Promise<LambdaInvokeAnswer> {
    // A failed preparation (no region, say) is not kept: the next invoke tries again.
    this.#prepared ??= this.#prepare().catch((error: unknown) => {
      this.#prepared = undefined;
      throw error;
    });
    const prepared = await this.#prepared;
    const request = this.#request(prepared, call);
    const sentAt = Date.now();
    const signed = await prepared.signer.sign(request, {
      signingDate: new Date(sentAt + this.#clockOffsetMs),
    });
    const { response } = await prepared.handler.handle(
      signed as HttpRequest,
      call.abortSignal === undefined ? {} : { abortSignal: call.abortSignal },
    );
    if (!HttpResponse.isInstance(response)) {
      throw new RocketMQError(
        'the Lambda client’s request handler answered with something not an HTTP response',
      );
    }
    this.#sampleClock(response, sentAt);
    capResponseBody(response, this.#maxResponseBytes);
    const { statusCode, headers } = response;
    if (statusCode < 200 || statusCode >= 300) throw await this.#sdkError(response, signed as HttpRequest);
    const body = response.body as AsyncIterable<unknown> | undefined;
    return {
      statusCode,
      functionError: headers['x-amz-function-error'],
      executedVersion: headers['x-amz-executed-version'],
      payload: body === undefined ? Buffer.alloc(0) : await readStream(body),
    };
  }

  async #prepare(): Promise<Prepared> {
    const config = this.#config;
    // Invoke's endpoint parameters (region, FIPS, dual-stack, custom endpoint) are all the client's
    // config: one endpoint per client.
    const endpoint = await getEndpointFromInstructions(
      {},
      InvokeCommand,
      config as unknown as Parameters<typeof getEndpointFromInstructions>[2],
    );
    const url = new URL(endpoint.url.href);
    const authScheme = (endpoint.properties?.authSchemes as Array<Record<string, unknown>> | undefined)?.[0];
    const region =
      typeof authScheme?.signingRegion === 'string' ? authScheme.signingRegion : await config.region();
    const service =
      typeof authScheme?.signingName === 'string' ? authScheme.signingName : (config.signingName ?? 'lambda');
    const signer = new SignatureV4({
      credentials: config.credentials,
      region,
      service,
      sha256: config.sha256,
      uriEscapePath: config.signingEscapePath ?? true,
    });
    const pairs = (await config.defaultUserAgentProvider?.()) ?? [];
    const userAgent = pairs
      .map(([name, version]) =>
        version === undefined ? name : name.includes('/') ? `${name}#${version}` : `${name}/${version}`,
      )
      .join(' ');
    return {
      url,
      // As the SDK's REST serializer joins them: a bare `/` adds nothing, any other path is kept whole.
      basePath: url.pathname === '/' ? '' : url.pathname,
      signer,
      userAgent,
      handler: config.requestHandler,
    };
  }

  #request(prepared: Prepared, call: LambdaInvokeCall): HttpRequest {
    const { url } = prepared;
    const headers: Record<string, string> = {
      'content-type': 'application/octet-stream',
      'content-length': String(call.payload.byteLength),
      host: url.host,
      'x-amz-invocation-type': 'RequestResponse',
    };
    if (prepared.userAgent !== '') headers['user-agent'] = prepared.userAgent;
    if (call.headers !== undefined) Object.assign(headers, call.headers);
    addRecursionTraceHeader(headers);
    return new HttpRequest({
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      method: 'POST',
      path: `${prepared.basePath}${FUNCTIONS_PATH}${encodePathSegment(call.functionName)}/invocations`,
      query: call.qualifier === undefined ? {} : { Qualifier: call.qualifier },
      headers,
      body: call.payload,
    });
  }

  #sampleClock(response: HttpResponse, sentAt: number): void {
    const date = response.headers.date ?? response.headers.Date;
    if (date === undefined || response.headers.age !== undefined || response.headers.Age !== undefined)
      return;
    const serverTime = Date.parse(date);
    const now = Date.now();
    if (Number.isNaN(serverTime) || now - sentAt > CLOCK_SAMPLE_MAX_MS) return;
    this.#clockOffsetMs = serverTime - now;
  }

  /** The SDK's own error for a non-2xx answer. */
  async #sdkError(response: HttpResponse, request: HttpRequest): Promise<unknown> {
    this.#deserializer ??= sdkDeserializer(this.#client);
    const deserializer = this.#deserializer;
    const answered: DeserializeHandler<object, object> = async () => ({ response, output: {} as object });
    const context = {
      clientName: 'LambdaClient',
      commandName: 'InvokeCommand',
      logger: this.#config.logger,
      [SMITHY_CONTEXT_KEY]: { operationSchema: Invoke$ },
    };
    try {
      await deserializer(answered, context as never)({ input: {}, request });
    } catch (error) {
      return error;
    }
    return new RocketMQError(`the Invoke API answered with HTTP ${response.statusCode}`);
  }
}

/** The deserialize middleware the SDK's schema serde plugin adds to a client of this config. */
function sdkDeserializer(client: LambdaClient): DeserializeMiddleware<object, object> {
  let found: DeserializeMiddleware<object, object> | undefined;
  const collector = {
    add(middleware: unknown, options: { step?: string }) {
      if (options.step === 'deserialize') found = middleware as DeserializeMiddleware<object, object>;
    },
  };
  getSchemaSerdePlugin(client.config as never).applyToStack(
    collector as unknown as MiddlewareStack<object, object>,
  );
  if (found === undefined) throw new RocketMQError('the SDK’s schema serde plugin added no deserializer');
  return found;
}

/** A path segment as the SDK's REST serializer writes it (RFC 3986: `!'()*` escaped too). */
function encodePathSegment(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Inside a Lambda function, a request without a trace header continues the function's trace. */
function addRecursionTraceHeader(headers: Record<string, string>): void {
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;
  const traceId = process.env._X_AMZN_TRACE_ID;
  if (!functionName || !traceId) return;
  const lower = XRAY_TRACE_HEADER.toLowerCase();
  if (Object.keys(headers).some((name) => name.toLowerCase() === lower)) return;
  headers[XRAY_TRACE_HEADER] = traceId;
}
