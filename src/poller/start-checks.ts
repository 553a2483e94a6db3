/**
 * The checks a poller makes at start without connecting anywhere, for what no retry can heal: every
 * `local:` handler module is imported and its export checked (a module that does not load, or lacks its
 * export, would otherwise fail at the first message, hours later on a quiet topic), and the TLS key
 * material is turned into a secure context (rocketmq-client-of-config.ts). `run` loads the handlers
 * with the invoker that will run them, so each module is imported once and what was checked is what
 * runs; `validate` runs the same checks with {@link startProblems}.
 */
import { classifyFunctionRef } from '../config/function-ref.js';
import type { MappingConfig, RunConfig } from '../config/run-config.js';
import { InvokeError } from '../invoke/invoke-error.js';
import { LocalInvoker } from '../invoke/local-invoker.js';
import { TlsSettingsError } from '../network/tls-options.js';
import { describeError } from '../util/describe-error.js';
import { configTlsConnectionOptions } from './rocketmq-client-of-config.js';

/**
 * A mapping whose handler cannot be invoked.
 */
export interface HandlerLoadProblem {
  /** The mapping's index in the config's `mappings`. */
  readonly index: number;
  readonly mapping: string;
  readonly functionRef: string;
  /** One line naming the module file and why it cannot be invoked. */
  readonly message: string;
  /** The error, with the load failure as its cause (for the log). */
  readonly error: unknown;
}

/** What loads a `local:` handler: `LocalInvoker.load`, throwing its fatal InvokeError. */
export interface HandlerLoader {
  load(functionRef: string): Promise<void>;
}

/**
 * Loads the handler of every mapping whose function is `local:`, one after the other (Lambda functions
 * are not checked here: `validate --connect` is for what needs a network). Resolves with the failures.
 */
export async function handlerLoadProblems(
  mappings: readonly Pick<MappingConfig, 'name' | 'functionRef'>[],
  loader: HandlerLoader,
): Promise<HandlerLoadProblem[]> {
  const problems: HandlerLoadProblem[] = [];
  for (const [index, mapping] of mappings.entries()) {
    if (classifyFunctionRef(mapping.functionRef).kind !== 'local') continue;
    try {
      await loader.load(mapping.functionRef);
    } catch (error) {
      const message = error instanceof InvokeError ? error.message : describeError(error);
      problems.push({ index, mapping: mapping.name, functionRef: mapping.functionRef, message, error });
    }
  }
  return problems;
}

/**
 * The problems {@link handlerLoadProblems} and the TLS material check find in a config, one line each
 * naming the config key (`tls.keyFile: ...`, `mappings[0].function: ...`): what `run` would stop on
 * at start. Handlers are imported in this process (their top-level code runs) with an invoker of its
 * own, closed before it resolves.
 */
export async function startProblems(config: RunConfig): Promise<string[]> {
  const problems: string[] = [];
  try {
    if (config.tls !== undefined) configTlsConnectionOptions(config.tls);
  } catch (error) {
    if (!(error instanceof TlsSettingsError)) throw error;
    problems.push(error.message);
  }
  const invoker = new LocalInvoker({ baseDir: config.baseDir });
  try {
    for (const problem of await handlerLoadProblems(config.mappings, invoker)) {
      problems.push(`mappings[${problem.index}].function: mapping ${problem.mapping}: ${problem.message}`);
    }
  } finally {
    await invoker.close();
  }
  return problems;
}
