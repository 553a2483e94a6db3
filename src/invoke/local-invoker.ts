/**
 * Runs handler modules in-process, the way the Lambda Node.js runtime would run them: for tests and local
 * development. A function reference `local:./path/to/module.js#exportName` names a module relative to a
 * base directory (the config file's) and an export (default `handler`).
 */

import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RocketMQError } from '../errors.js';
import type { RocketMQHandlerContext } from '../handler/types.js';
import { echoedText } from '../util/echoed-value.js';
import { errorMessage } from '../util/error-message.js';
import { componentLogger, type Logger } from '../util/logger.js';
import { nameAndMessage } from '../util/name-and-message.js';
import { abortedOutcome } from './aborted-outcome.js';
import { InvokeError } from './invoke-error.js';
import type { InvokeFailure, InvokeOutcome, InvokeRequest, Invoker } from './invoker.js';
import { parseLocalFunctionRef } from './local-function-ref.js';

/**
 * The default handler timeout: Lambda's longest.
 */
export const DEFAULT_LOCAL_TIMEOUT_MS = 900_000;
/**
 * The default `context.memoryLimitInMB`: Lambda's smallest memory size.
 */
export const DEFAULT_LOCAL_MEMORY_MB = 128;
const LOCAL_ACCOUNT_ID = '000000000000';
const MAX_FUNCTION_NAME_CHARS = 64;
/** The reason of a load failure is cut at this length (a module may throw any text while loading). */
const MAX_LOAD_FAILURE_CHARS = 300;
/** A missing export's error lists at most this many of the module's exports... */
const MAX_LISTED_EXPORTS = 10;
/** ...each cut at this length. */
const MAX_EXPORT_NAME_CHARS = 40;

/**
 * Options of {@link LocalInvoker}.
 */
export interface LocalInvokerOptions {
  /** Module paths of function references are relative to it (the config file's directory). */
  baseDir: string;
  /** How long a handler may run. @default 900_000 (Lambda's maximum) */
  timeoutMs?: number | undefined;
  /** Reported as `context.memoryLimitInMB` (nothing enforces it). @default 128 */
  memoryLimitInMB?: number | undefined;
  /** The region in `context.invokedFunctionArn`. @default AWS_REGION, else 'us-east-1' */
  region?: string | undefined;
  /** The parent logger; lines carry `component: 'invoke.local'`. */
  logger?: Logger | undefined;
}

type HandlerFunction = (event: unknown, context: RocketMQHandlerContext, callback: LambdaCallback) => unknown;
type LambdaCallback = (error?: unknown, result?: unknown) => void;
type ModuleNamespace = Readonly<Record<string, unknown>>;
/** What a `local:` reference names: the module file, the export, the context's function name. */
interface LocalTarget {
  readonly file: string;
  readonly exportName: string;
  readonly functionName: string;
  readonly invokedFunctionArn: string;
  /**
   * `context.logStreamName`: like a Lambda execution environment's, made when it starts (here: on the
   * reference's first invoke) and kept for all its invokes.
   */
  readonly logStreamName: string;
}

/**
 * An {@link Invoker} that imports handler modules (once each, with `import()`; `.ts` modules work under
 * tsx or vitest) and calls them like Lambda does: the handler gets a fresh event, the JSON parse of the
 * payload (or, when the request carries `event`, that function's result, which equals it; the payload is
 * then not read), the context is
 * Lambda's, async and callback-style handlers both work, and the response is returned as JSON bytes. A
 * handler that throws or rejects gives a `function-error` outcome carrying Lambda's error shape; one that
 * runs past `timeoutMs` gives `timeout` (it cannot be stopped, only abandoned). A missing module or export
 * throws a fatal {@link InvokeError}.
 *
 * A synchronous handler that declares fewer than 3 parameters completes with its return value; one that
 * declares a callback completes when it calls it.
 *
 * @example
 * ```ts
 * const invoker = new LocalInvoker({ baseDir: '/app/config' });
 * const outcome = await invoker.invoke({
 *   functionRef: 'local:./handlers/orders.js#handler',
 *   payload: serializeEvent('orders-consumer', batch),
 * });
 * await invoker.close();
 * ```
 */
export class LocalInvoker implements Invoker {
  readonly #baseDir: string;
  readonly #timeoutMs: number;
  readonly #memoryLimitInMB: number;
  readonly #region: string;
  readonly #log: Logger;
  readonly #modules = new Map<string, Promise<ModuleNamespace>>();
  /** Parsed function references (module file, export, context function name), by reference. */
  readonly #targets = new Map<string, LocalTarget>();
  #closed = false;

  constructor(options: LocalInvokerOptions) {
    this.#baseDir = path.resolve(options.baseDir);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_LOCAL_TIMEOUT_MS;
    this.#memoryLimitInMB = options.memoryLimitInMB ?? DEFAULT_LOCAL_MEMORY_MB;
    this.#region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
    this.#log = componentLogger('invoke.local', options.logger);
    if (!(this.#timeoutMs > 0)) throw new RocketMQError(`timeoutMs must be positive, got ${this.#timeoutMs}`);
  }

  async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
    const { functionRef, signal } = request;
    if (this.#closed) throw new InvokeError('the local invoker is closed', { functionRef, fatal: true });
    const target = this.#target(functionRef);
    const handler = await this.#loadHandler(functionRef, target);
    let event: unknown;
    if (request.event !== undefined) {
      // The parse of the payload, made without the payload: its bytes need not exist.
      event = request.event();
    } else {
      try {
        event = JSON.parse(request.payload.toString('utf8'));
      } catch (cause) {
        throw new InvokeError(`the event for ${functionRef} is not JSON`, { functionRef, cause });
      }
    }
    if (signal?.aborted) return abortedOutcome(signal);
    return this.#run(handler, target, event, functionRef, signal);
  }

  /**
   * Imports the module of `functionRef` and checks that its export is a function, as the first invoke
   * would, so a handler that cannot run is found before any message waits for it. The module stays
   * loaded: invokes use it as imported here (it is not evaluated twice). Throws the fatal
   * {@link InvokeError} the invoke would: its message is one line (the cause's first line, bounded),
   * naming the module file.
   *
   * @example
   * ```ts
   * await invoker.load('local:./handlers/orders.js#handler'); // throws if it cannot be invoked
   * ```
   */
  async load(functionRef: string): Promise<void> {
    if (this.#closed) throw new InvokeError('the local invoker is closed', { functionRef, fatal: true });
    await this.#loadHandler(functionRef, this.#target(functionRef));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#modules.clear();
    this.#targets.clear();
  }

  /** What a reference names, parsed once per reference (a pure function of it and the base dir). */
  #target(functionRef: string): LocalTarget {
    let target = this.#targets.get(functionRef);
    if (target === undefined) {
      const { modulePath, exportName } = parseLocalFunctionRef(functionRef);
      const functionName = localFunctionName(functionRef);
      const now = new Date();
      const day = `${now.getUTCFullYear()}/${pad2(now.getUTCMonth() + 1)}/${pad2(now.getUTCDate())}`;
      target = {
        file: path.resolve(this.#baseDir, modulePath),
        exportName,
        functionName,
        invokedFunctionArn: `arn:aws:lambda:${this.#region}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
        logStreamName: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
      };
      this.#targets.set(functionRef, target);
    }
    return target;
  }

  /** Resolves the handler function of a reference, importing its module on first use. */
  async #loadHandler(functionRef: string, { file, exportName }: LocalTarget): Promise<HandlerFunction> {
    let loading = this.#modules.get(file);
    if (loading === undefined) {
      loading = import(/* @vite-ignore */ pathToFileURL(file).href) as Promise<ModuleNamespace>;
      this.#modules.set(file, loading);
    }
    let namespace: ModuleNamespace;
    try {
      namespace = await loading;
    } catch (cause) {
      // Forget the failure so that a restarted mapping tries again.
      if (this.#modules.get(file) === loading) this.#modules.delete(file);
      const why = loadFailureReason(cause);
      throw new InvokeError(`cannot load handler module ${file} (export ${exportName}): ${why}`, {
        functionRef,
        fatal: true,
        cause,
      });
    }
    const handler = resolveExport(namespace, exportName);
    if (handler === undefined) {
      // No cause: the reloading invoker (src/dev/reloading-invoker.ts) reads a load failure without one
      // as a missing export.
      throw new InvokeError(
        `handler module ${file} has no function export ${JSON.stringify(exportName)} (${exportsOf(namespace, exportName)})`,
        { functionRef, fatal: true },
      );
    }
    return handler;
  }

  #run(
    handler: HandlerFunction,
    target: LocalTarget,
    event: unknown,
    functionRef: string,
    signal: AbortSignal | undefined,
  ): Promise<InvokeOutcome> {
    const timeoutMs = this.#timeoutMs;
    const context = this.#createContext(target, Date.now() + timeoutMs);
    return new Promise<InvokeOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: InvokeOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onAbort = (): void => {
        if (signal !== undefined) finish(abortedOutcome(signal));
      };
      const timer = setTimeout(() => {
        this.#log.warn({ functionRef, timeoutMs, awsRequestId: context.awsRequestId }, 'handler timed out');
        finish({
          ok: false,
          kind: 'timeout',
          message: `Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`,
        });
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });

      const succeed = (value: unknown): void => finish(responseOutcome(value));
      const fail = (error: unknown): void => {
        this.#log.debug({ functionRef, err: error, awsRequestId: context.awsRequestId }, 'handler failed');
        finish(functionErrorOutcome(error));
      };
      const callback: LambdaCallback = (error, result) => {
        if (error !== undefined && error !== null) fail(error);
        else succeed(result);
      };

      let returned: unknown;
      try {
        returned = handler(event, context, callback);
      } catch (error) {
        fail(error);
        return;
      }
      if (isThenable(returned)) {
        Promise.resolve(returned)
          .then(succeed, fail)
          .catch((error: unknown) =>
            this.#log.error({ functionRef, err: error }, 'handler completion failed'),
          );
      } else if (handler.length < 3) {
        succeed(returned);
      }
      // Otherwise the handler takes a callback: wait for it (or the timeout).
    });
  }

  #createContext(target: LocalTarget, deadlineMs: number): RocketMQHandlerContext {
    const { functionName } = target;
    return {
      callbackWaitsForEmptyEventLoop: true,
      functionName,
      functionVersion: '$LATEST',
      invokedFunctionArn: target.invokedFunctionArn,
      memoryLimitInMB: String(this.#memoryLimitInMB),
      awsRequestId: randomUUID(),
      logGroupName: `/aws/lambda/${functionName}`,
      logStreamName: target.logStreamName,
      getRemainingTimeInMillis: () => Math.max(0, deadlineMs - Date.now()),
    };
  }
}

/** The named export, else the same name on a CommonJS module's `module.exports` (the default export). */
function resolveExport(namespace: ModuleNamespace, exportName: string): HandlerFunction | undefined {
  const direct = Object.hasOwn(namespace, exportName) ? namespace[exportName] : undefined;
  if (typeof direct === 'function') return direct as HandlerFunction;
  const cjs = namespace.default;
  if (exportName !== 'default' && (typeof cjs === 'object' || typeof cjs === 'function') && cjs !== null) {
    const nested = (cjs as Readonly<Record<string, unknown>>)[exportName];
    if (typeof nested === 'function') return nested as HandlerFunction;
  }
  return undefined;
}

/**
 * Why a module did not load, in one bounded line: the error's name and the first line of its message
 * (never its stack, which for a CommonJS syntax error quotes the module's source), plus `file:line` when
 * Node gives it as the stack's first line (syntax errors of CommonJS modules).
 */
function loadFailureReason(cause: unknown): string {
  const firstLine = (text: string): string => text.split('\n', 1)[0] ?? '';
  try {
    const head = firstLine(nameAndMessage(cause));
    const stackHead = cause instanceof Error && typeof cause.stack === 'string' ? firstLine(cause.stack) : '';
    const where = /^\S.*:\d+$/.test(stackHead) && !head.includes(stackHead) ? ` (at ${stackHead})` : '';
    return echoedText(`${head}${where}`, MAX_LOAD_FAILURE_CHARS);
  } catch {
    // A thrown value whose string form throws in turn.
    return 'it threw a value that cannot be printed';
  }
}

/**
 * What a module exports, for the error that says the wanted export is missing or no function: the
 * export names (a CommonJS module's too), the first {@link MAX_LISTED_EXPORTS}, and what the wanted one is.
 */
function exportsOf(namespace: ModuleNamespace, exportName: string): string {
  try {
    const cjs = namespace.default;
    const cjsExports =
      (typeof cjs === 'object' || typeof cjs === 'function') && cjs !== null && !Array.isArray(cjs)
        ? (cjs as Readonly<Record<string, unknown>>)
        : undefined;
    const names = new Set([...Object.keys(namespace), ...Object.keys(cjsExports ?? {})]);
    const wanted = Object.hasOwn(namespace, exportName)
      ? namespace[exportName]
      : cjsExports !== undefined && Object.hasOwn(cjsExports, exportName)
        ? cjsExports[exportName]
        : undefined;
    const isNot =
      wanted === undefined
        ? ''
        : `${JSON.stringify(exportName)} is ${wanted === null ? 'null' : typeof wanted}; `;
    if (names.size === 0) return `${isNot}the module exports nothing`;
    const listed = [...names]
      .slice(0, MAX_LISTED_EXPORTS)
      .map((name) => echoedText(name, MAX_EXPORT_NAME_CHARS));
    const more = names.size > MAX_LISTED_EXPORTS ? ` and ${names.size - MAX_LISTED_EXPORTS} more` : '';
    return `${isNot}its exports: ${listed.join(', ')}${more}`;
  } catch {
    // A module.exports that refuses to be read (a Proxy that throws).
    return 'its exports cannot be listed';
  }
}

/** A Lambda-valid function name for a reference: `<module file name>-<export>`. */
function localFunctionName(functionRef: string): string {
  const { modulePath, exportName } = parseLocalFunctionRef(functionRef);
  const base = path.basename(modulePath, path.extname(modulePath));
  return `${base}-${exportName}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_FUNCTION_NAME_CHARS);
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** The response as Lambda returns it: JSON, `null` for `undefined`. */
function responseOutcome(value: unknown): InvokeOutcome {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (cause) {
    return functionErrorOutcome(new Error('Unable to stringify response body', { cause }));
  }
  return { ok: true, payload: Buffer.from(json ?? 'null', 'utf8') };
}

/**
 * Lambda's error shape (`errorType`, `errorMessage`) of whatever a handler threw, rejected with or passed
 * to its callback.
 */
export function lambdaErrorShape(error: unknown): { errorType: string; errorMessage: string } {
  if (error instanceof Error) {
    return { errorType: error.name || 'Error', errorMessage: error.message };
  }
  if (typeof error === 'object' && error !== null) {
    const { errorType, errorMessage, name, message } = error as Record<string, unknown>;
    const type = typeof errorType === 'string' ? errorType : typeof name === 'string' ? name : 'object';
    const text = typeof errorMessage === 'string' ? errorMessage : typeof message === 'string' ? message : '';
    return { errorType: type, errorMessage: text || safeStringify(error) };
  }
  return { errorType: typeof error, errorMessage: String(error) };
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch (error) {
    return `<unserializable: ${errorMessage(error)}>`;
  }
}

function functionErrorOutcome(error: unknown): InvokeFailure {
  return { ok: false, kind: 'function-error', message: JSON.stringify(lambdaErrorShape(error)) };
}
