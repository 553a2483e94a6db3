/**
 * serverless.yml → the poller's {@link RunConfig} for `rocketmq-lambda dev`: from the service as the
 * Serverless Framework resolves it (load-serverless-service.ts), every function's
 * `rocketmq` events (validated with the plugin's schema and rules), mapped to poller mappings by the
 * plugin's own config template, with `local:` function refs to each handler's module (TypeScript source
 * preferred) and offsets in an embedded DynamoDB API. The result goes through {@link parseConfig}, so the
 * same rules as `rocketmq-lambda run` apply. The operator commands read a deployed service's mappings
 * through it too (src/operations/target.ts), with the functions named as deployed.
 */
import { ConfigError } from '../config/config-error.js';
import { parseConfig } from '../config/load-config.js';
import type { RunConfig } from '../config/run-config.js';
import { RocketMQError } from '../errors.js';
import {
  type PollerMapping,
  type PollerTlsSettings,
  pollerConfigSub,
  renderPollerConfig,
} from '../serverless/poller-config-template.js';
import { rocketmqCustomSchema } from '../serverless/rocketmq-custom-schema.js';
import { rocketmqEventSchema } from '../serverless/rocketmq-event-schema.js';
import { eventRuleProblems, validateWith } from '../serverless/schema-problems.js';
import { asPlainRecord } from '../util/plain-record.js';
import { type HandlerModule, resolveHandlerModule } from './handler-module.js';
import { findVariables, keyText } from './serverless-variables.js';

/** The offsets table dev uses in its embedded DynamoDB. */
export const DEV_OFFSETS_TABLE = 'rocketmq-lambda-dev-offsets';
/** How long a stop waits for in-flight batches locally. */
const DEV_SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * Inputs of {@link devConfigFromServerless}.
 */
export interface DevConfigOptions {
  /** The directory of serverless.yml: handler paths are relative to it. */
  readonly serviceDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** @default 'dev' */
  readonly stage?: string | undefined;
  /** `--name-server`: wins over `custom.rocketmq.nameServers` and `ROCKETMQ_NAME_SERVER`. */
  readonly nameServer?: string | undefined;
  /** The embedded DynamoDB's endpoint. */
  readonly dynamoDbEndpoint: string;
  /** Named in errors. @default 'serverless.yml' */
  readonly source?: string | undefined;
  /**
   * `--invoke-endpoint`: call the functions through this Lambda Invoke API (serverless-offline) by their
   * deployed name (`functions.<fn>.name`, else `<service>-<stage>-<fn>`) instead of `local:` handler refs.
   */
  readonly invokeEndpoint?: string | undefined;
  /**
   * Take `custom.rocketmq.tls` as the deployed poller does (operator commands against a deployed
   * service; file paths relative to the service directory). `dev` itself talks to a local or test broker
   * and leaves TLS off unless the environment's settings say otherwise. @default false
   */
  readonly deployedTls?: boolean | undefined;
}

/**
 * A dev config: the run config, and what dev watches and reports.
 */
export interface DevConfig {
  readonly config: RunConfig;
  /** The module of each mapping, by mapping name. */
  readonly handlers: ReadonlyMap<string, HandlerModule>;
  /** The serverless.yml function (its key under `functions`) of each mapping, by mapping name. */
  readonly functionKeys: ReadonlyMap<string, string>;
  /** Things dev leaves out locally (e.g. `onFailure` destinations), one line each. */
  readonly notices: readonly string[];
}

interface FoundEvent {
  readonly name: string;
  readonly functionKey: string;
  /** The handler module (in-process runs only). */
  readonly module: HandlerModule | undefined;
  /** The mapping's `function`: a `local:` ref, or a Lambda function name with `invokeEndpoint`. */
  readonly functionRef: string;
  readonly mapping: PollerMapping;
}

/**
 * Builds the dev run config from the resolved service. Throws {@link ConfigError} listing every problem
 * (variables left unresolved, invalid events, missing handler modules, no `rocketmq` event at all).
 */
export function devConfigFromServerless(document: unknown, options: DevConfigOptions): DevConfig {
  const source = options.source ?? 'serverless.yml';
  const problems: string[] = [];
  const notices: string[] = [];
  // The document comes resolved (loadServerlessService); a variable left in a key dev reads is refused.
  const resolvedValue = (value: unknown, where: readonly (string | number)[]): unknown => {
    const left = findVariables(value, where);
    if (left.length === 0) return value;
    for (const use of left) {
      problems.push(
        `${use.key}: ${use.variable}: not resolved (read the service with loadServerlessService)`,
      );
    }
    return undefined;
  };

  const root = asPlainRecord(document);
  const functions = asPlainRecord(root?.functions);
  const found: FoundEvent[] = [];
  for (const [functionKey, definition] of Object.entries(functions ?? {})) {
    const fn = asPlainRecord(definition);
    const events = Array.isArray(fn?.events) ? (fn.events as unknown[]) : [];
    const rocketmqEvents = events.flatMap((entry, index) => {
      const event = asPlainRecord(entry);
      return event !== undefined && 'rocketmq' in event ? [{ index, value: event.rocketmq }] : [];
    });
    if (rocketmqEvents.length === 0) continue;
    const lambdaName =
      options.invokeEndpoint === undefined
        ? undefined
        : deployedFunctionName(root, fn, functionKey, options.stage, resolvedValue, problems);
    const handler = resolvedValue(fn?.handler, ['functions', functionKey, 'handler']);
    let module: HandlerModule | undefined;
    if (lambdaName !== undefined) {
      // The Invoke API endpoint runs the handler: its module is its business (it may be built by a plugin).
    } else if (typeof handler !== 'string') {
      if (handler !== undefined || !problems.some((p) => p.startsWith(`functions.${functionKey}.handler`)))
        problems.push(`functions.${functionKey}.handler: required (a handler such as src/orders.handler)`);
    } else {
      try {
        module = resolveHandlerModule(handler, options.serviceDir);
      } catch (error) {
        if (!(error instanceof RocketMQError)) throw error;
        problems.push(`functions.${functionKey}.handler: ${error.message}`);
      }
    }
    for (const { index, value } of rocketmqEvents) {
      const where = ['functions', functionKey, 'events', index, 'rocketmq'] as const;
      const resolved = resolvedValue(value, where);
      if (resolved === undefined) continue;
      const checked = validateWith(rocketmqEventSchema, resolved, where);
      if (!checked.ok) {
        problems.push(...checked.problems);
        continue;
      }
      const rules = eventRuleProblems(checked.value, where);
      problems.push(...rules);
      const functionRef =
        lambdaName ?? (module === undefined ? undefined : `local:${module.file}#${module.exportName}`);
      if (rules.length > 0 || functionRef === undefined || checked.value.enabled === false) continue;
      const { onFailure, ...event } = checked.value;
      if (onFailure !== undefined) {
        notices.push(`functions.${functionKey}: onFailure is not used locally (failures are only logged)`);
      }
      const name = rocketmqEvents.length === 1 ? functionKey : `${functionKey}-${index}`;
      found.push({
        name,
        functionKey,
        module,
        functionRef,
        mapping: { functionKey, functionArn: { Ref: `Function${found.length}` }, event },
      });
    }
  }

  const nameServers = nameServersOf(root, options, resolvedValue, problems);
  if (problems.length === 0 && found.length === 0) {
    problems.push('functions: no function has a rocketmq event (nothing for dev to run)');
  }
  if (problems.length > 0) throw new ConfigError([...new Set(problems)], { source });

  const sub = pollerConfigSub(
    {
      nameServers: nameServers ?? '',
      tls: options.deployedTls === true ? tlsOf(root, resolvedValue, problems) : false,
      offsetsTable: DEV_OFFSETS_TABLE,
      shutdownTimeoutMs: DEV_SHUTDOWN_TIMEOUT_MS,
    },
    found.map((f) => f.mapping),
  );
  const values = Object.fromEntries(found.map((f, index) => [`Function${index}`, f.functionRef]));
  const raw = JSON.parse(renderPollerConfig(sub, values)) as Record<string, unknown>;
  if (nameServers === undefined) delete raw.nameServer;
  // The deployed poller publishes its lag to CloudWatch for scaling; a dev loop has nothing to scale.
  delete raw.metrics;
  raw.offsets = {
    store: 'dynamodb',
    table: DEV_OFFSETS_TABLE,
    endpoint: options.dynamoDbEndpoint,
    region: 'us-east-1',
    createTable: true,
  };
  if (options.invokeEndpoint !== undefined) raw.lambda = { endpoint: options.invokeEndpoint };
  const mappings = Array.isArray(raw.mappings) ? (raw.mappings as Record<string, unknown>[]) : [];
  mappings.forEach((mapping, index) => {
    const name = found[index]?.name;
    if (name !== undefined) mapping.name = name;
  });
  const config = parseConfig(raw, {
    baseDir: options.serviceDir,
    env: options.env,
    source,
    checkModules: true,
  });
  const handlers = new Map<string, HandlerModule>();
  for (const f of found) if (f.module !== undefined) handlers.set(f.name, f.module);
  const functionKeys = new Map(found.map((f) => [f.name, f.functionKey]));
  return { config, handlers, functionKeys, notices };
}

/**
 * The name the framework deploys a function under (what serverless-offline's Invoke API resolves):
 * `functions.<fn>.name`, else `<service>-<stage>-<fn>` with the stage from `--stage`, else
 * `provider.stage`, else `dev`.
 */
function deployedFunctionName(
  root: Record<string, unknown> | undefined,
  fn: Record<string, unknown> | undefined,
  functionKey: string,
  stageOption: string | undefined,
  resolvedValue: (value: unknown, where: readonly (string | number)[]) => unknown,
  problems: string[],
): string | undefined {
  const explicit = resolvedValue(fn?.name, ['functions', functionKey, 'name']);
  if (typeof explicit === 'string' && explicit !== '') return explicit;
  const serviceValue = resolvedValue(root?.service, ['service']);
  const service = typeof serviceValue === 'string' ? serviceValue : asPlainRecord(serviceValue)?.name;
  if (typeof service !== 'string' || service === '') {
    problems.push('service: required to name the functions for --invoke-endpoint (<service>-<stage>-<fn>)');
    return undefined;
  }
  const providerStage = resolvedValue(asPlainRecord(root?.provider)?.stage, ['provider', 'stage']);
  const stage =
    stageOption ?? (typeof providerStage === 'string' && providerStage !== '' ? providerStage : 'dev');
  return `${service}-${stage}-${functionKey}`;
}

/** `--name-server`, else `custom.rocketmq.nameServers` (resolved), else undefined (the env fills it). */
function nameServersOf(
  root: Record<string, unknown> | undefined,
  options: DevConfigOptions,
  resolvedValue: (value: unknown, where: readonly (string | number)[]) => unknown,
  problems: string[],
): string | readonly string[] | undefined {
  if (options.nameServer !== undefined && options.nameServer !== '') return options.nameServer;
  const custom = asPlainRecord(asPlainRecord(root?.custom)?.rocketmq);
  if (custom?.nameServers === undefined) return undefined;
  const where = ['custom', 'rocketmq', 'nameServers'] as const;
  const value = resolvedValue(custom.nameServers, where);
  if (value === undefined) return undefined;
  const checked = validateWith(rocketmqCustomSchema.shape.nameServers, value, [
    'custom',
    'rocketmq',
    'nameServers',
  ]);
  if (!checked.ok) {
    problems.push(...checked.problems);
    return undefined;
  }
  if (typeof checked.value === 'string' || Array.isArray(checked.value)) return checked.value;
  problems.push(
    `${keyText(where)}: an intrinsic function cannot be resolved locally; pass --name-server host:port`,
  );
  return undefined;
}

/** `custom.rocketmq.tls` (resolved and checked as the plugin does), else off. */
function tlsOf(
  root: Record<string, unknown> | undefined,
  resolvedValue: (value: unknown, where: readonly (string | number)[]) => unknown,
  problems: string[],
): boolean | PollerTlsSettings {
  const custom = asPlainRecord(asPlainRecord(root?.custom)?.rocketmq);
  if (custom?.tls === undefined) return false;
  const where = ['custom', 'rocketmq', 'tls'] as const;
  const checked = validateWith(rocketmqCustomSchema.shape.tls, resolvedValue(custom.tls, where), [...where]);
  if (!checked.ok) {
    problems.push(...checked.problems);
    return false;
  }
  return checked.value ?? false;
}
