/**
 * The checks a resolved serverless.yml passes before `rocketmq-lambda dev` runs it or the plugin deploys
 * it, without doing either: the plugin's (every `rocketmq` event and `custom.rocketmq` against the closed
 * schemas and cross-key rules, unknown keys with a did-you-mean, placeholders per stage, scaling) and
 * dev's (handler modules that exist, the run config the events become). For `rocketmq-lambda validate`.
 */
import { CONFIG_ENV } from '../config/config-env.js';
import { ConfigError } from '../config/config-error.js';
import type { RunConfig } from '../config/run-config.js';
import {
  compileRocketMQResources,
  frameworkTimeoutSeconds,
} from '../serverless/compile-rocketmq-resources.js';
import { RocketMQPluginError } from '../serverless/plugin-error.js';
import { serviceUnknownKeyProblems } from '../serverless/schema-problems.js';
import { asPlainRecord } from '../util/plain-record.js';
import { devConfigFromServerless } from './serverless-dev-config.js';

/** The name server dev's checks use when the service names none (they never dial it). */
const UNDIALLED_NAME_SERVER = '127.0.0.1:9876';
/** The DynamoDB endpoint dev's checks use (never called). */
const UNCALLED_DYNAMODB_ENDPOINT = 'http://127.0.0.1:1';

/**
 * What the checks found.
 */
export interface ServiceCheckResult {
  /** The enabled mappings dev would run (0 when there are problems). */
  readonly mappings: number;
  /** One line per problem, each naming its key; empty when the service is valid. */
  readonly problems: readonly string[];
  /** Lines the deployer should read (placeholders in a dev stage, settings dev leaves out locally). */
  readonly warnings: readonly string[];
  /**
   * The run config dev would use, when the service (or the environment) names its name servers: what
   * broker-side checks connect with. Undefined when there are problems or no name server.
   */
  readonly config: RunConfig | undefined;
}

/**
 * Inputs of {@link checkServerlessService}.
 */
export interface ServiceCheckOptions {
  /** The directory of serverless.yml (handler paths are relative to it). */
  readonly serviceDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The stage deployed to (placeholders are refused outside local and dev). @default provider.stage, else dev */
  readonly stage?: string | undefined;
  /** Named in problems. @default 'serverless.yml' */
  readonly source?: string | undefined;
}

/**
 * Runs the plugin's and dev's checks on a resolved service (see `loadServerlessService`); never throws
 * for a problem of the service.
 */
export function checkServerlessService(document: unknown, options: ServiceCheckOptions): ServiceCheckResult {
  const root = asPlainRecord(document);
  const functions = asPlainRecord(root?.functions) ?? {};
  const provider = asPlainRecord(root?.provider);
  const custom = asPlainRecord(root?.custom)?.rocketmq;
  const stage = options.stage ?? stringOr(provider?.stage, 'dev');
  const problems: string[] = [];
  const warnings: string[] = [];

  problems.push(
    ...serviceUnknownKeyProblems(
      Object.entries(functions).map(([key, definition]) => [key, eventsOf(definition)] as const),
      custom,
    ),
  );

  try {
    const compiled = compileRocketMQResources({
      custom,
      stage,
      functions: Object.entries(functions).map(([key, definition]) => {
        const fn = asPlainRecord(definition);
        return {
          key,
          logicalId: lambdaLogicalId(key),
          events: eventsOf(fn),
          timeoutSeconds: frameworkTimeoutSeconds(fn?.timeout) ?? frameworkTimeoutSeconds(provider?.timeout),
        };
      }),
    });
    warnings.push(...compiled.warnings);
  } catch (error) {
    if (!(error instanceof RocketMQPluginError)) throw error;
    problems.push(...error.problems);
  }

  let config: RunConfig | undefined;
  const nameServerGiven = hasNameServer(custom, options.env);
  try {
    const dev = devConfigFromServerless(document, {
      serviceDir: options.serviceDir,
      env: options.env,
      stage: options.stage,
      // Only when the service and the environment name none: its absence is the plugin's problem above.
      nameServer: nameServerGiven ? undefined : UNDIALLED_NAME_SERVER,
      dynamoDbEndpoint: UNCALLED_DYNAMODB_ENDPOINT,
      source: options.source,
    });
    config = dev.config;
    warnings.push(...dev.notices);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  const unique = [...new Set(problems)];
  const valid = unique.length === 0 ? config : undefined;
  return {
    mappings: valid?.mappings.length ?? 0,
    problems: unique,
    warnings: [...new Set(warnings)],
    config: nameServerGiven ? valid : undefined,
  };
}

/** The Framework's logical id of a function's `AWS::Lambda::Function` (its naming.getLambdaLogicalId). */
function lambdaLogicalId(functionKey: string): string {
  const normalized = functionKey
    .replace(/-/g, 'Dash')
    .replace(/_/g, 'Underscore')
    .replace(/[^A-Za-z0-9]/g, '');
  return `${normalized.charAt(0).toUpperCase()}${normalized.slice(1)}LambdaFunction`;
}

function hasNameServer(custom: unknown, env: Readonly<Record<string, string | undefined>>): boolean {
  if (asPlainRecord(custom)?.nameServers !== undefined) return true;
  return CONFIG_ENV.nameServer.some((name) => (env[name]?.trim() ?? '') !== '');
}

/** A function's `events` list (empty when it has none or it is not a list). */
function eventsOf(definition: unknown): readonly unknown[] {
  const events = asPlainRecord(definition)?.events;
  return Array.isArray(events) ? events : [];
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}
