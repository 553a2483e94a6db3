/**
 * What an operator acts on: the mappings of a poller, a RocketMQ client for its name servers (with its
 * ACL and TLS), and each mapping's offset store, resolved from one of three sources:
 *
 * 1. A poller config (what `rocketmq-lambda run` reads).
 * 2. A serverless.yml (given, or `./serverless.yml` when no config is given) while `rocketmq-lambda dev`
 *    runs for it: the session's `.rocketmq-lambda/dev.json` names its name server and its embedded
 *    DynamoDB.
 * 3. The same serverless.yml without a dev session: the deployed settings, resolved as dev and the
 *    plugin resolve them (`custom.rocketmq.nameServers`, the offsets table of `custom.rocketmq.offsetsTable`
 *    or the `offsetsTable` option, the region of the `region` option/`provider.region`/AWS_REGION; ACL
 *    keys from the environment as `run` reads them).
 *
 * Use: `const target = await openTarget(options, { env })`, then `target.mapping(name)`, `target.client`,
 * `target.offsetStore(mapping)` (one store per mapping, built like the poller's), and
 * `await target.close()` in a finally. Nothing connects before it is used: opening a target reads files
 * only. The CLI's operator commands open it from their options (cli/target-options.ts); an admin surface
 * would from its request.
 */

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RocketMQClient } from '../client/rocketmq-client.js';
import { loadConfig, parseConfig } from '../config/load-config.js';
import type { MappingConfig, RunConfig } from '../config/run-config.js';
import { RocketMQError } from '../errors.js';
import type { OffsetStore } from '../offsets/offset-store.js';
import { type OffsetStoreKind, OffsetStores, offsetStoreKindOf } from '../poller/offset-stores.js';
import { rocketMQClientOf } from '../poller/rocketmq-client-of-config.js';
import { DEV_STATE_DIR, type DevState, readDevState } from '../serverless-service/dev-state-file.js';
import { loadServerlessService } from '../serverless-service/load-serverless-service.js';
import { DEV_OFFSETS_TABLE, devConfigFromServerless } from '../serverless-service/serverless-dev-config.js';
import { isServiceFile } from '../serverless-service/service-file.js';
import { closestKey } from '../util/closest-key.js';
import type { Logger } from '../util/logger.js';
import { asPlainRecord } from '../util/plain-record.js';

/** The serverless.yml a target is read from when no config is given, looked for in the working directory. */
export const DEFAULT_SERVICE_FILES = ['serverless.yml', 'serverless.yaml'] as const;

/**
 * Where a target comes from (the CLI's `--config`, `--stage`, ... options).
 */
export interface TargetOptions {
  /** A poller config, or a serverless.yml (`serverless.*`). @default ./serverless.yml when it exists */
  readonly config?: string | undefined;
  /** serverless.yml only: `--stage`. */
  readonly stage?: string | undefined;
  /** serverless.yml only: `--region` (the offsets table's region without a dev session). */
  readonly region?: string | undefined;
  /** serverless.yml without a dev session: the offsets table when CloudFormation named it. */
  readonly offsetsTable?: string | undefined;
  /** Relative paths are relative to this directory. @default process.cwd() */
  readonly cwd?: string | undefined;
}

/**
 * One mapping as operations see it.
 */
export interface TargetMapping {
  readonly name: string;
  readonly topic: string;
  readonly consumerGroup: string;
  readonly messageModel: MappingConfig['messageModel'];
  /** Where the mapping starts a queue without a committed offset. */
  readonly startingPosition: MappingConfig['startingPosition'];
  readonly startingPositionTimestampMs: number | undefined;
  /** Which store holds its offsets (`file`/`memory` for broadcasting mappings or such configs). */
  readonly offsetStoreKind: OffsetStoreKind;
  /**
   * PUSH: the pollers hold queues and commit to the offset store. POP: the broker keeps the group's
   * position (docs/protocol.md, POP consumption) and the offset store holds nothing of the mapping.
   */
  readonly consumeMode: MappingConfig['consumeMode'];
}

/**
 * The resolved target of an operation. Close it when done.
 */
export interface Target {
  /** Where the settings came from, for messages: `poller.yaml`, `dev session (pid 4242) of serverless.yml`, ... */
  readonly source: string;
  /** Every mapping, in config order. */
  readonly mappings: readonly TargetMapping[];
  /** The run config behind the mappings (name servers, offsets settings). */
  readonly config: RunConfig;
  /** A client for the name servers, with the config's ACL and TLS. Connects on first use. */
  readonly client: RocketMQClient;
  /**
   * The mapping named `name`; without a name, the only mapping. Throws {@link TargetError} when
   * there is no such mapping (listing the known names, with a did-you-mean) or when several exist.
   */
  mapping(name?: string | undefined): TargetMapping;
  /** The mapping named `name` (throws as {@link mapping} does); every mapping without a name. */
  select(name?: string | undefined): readonly TargetMapping[];
  /** The offset store of `mapping` (built once per mapping, like the poller's; not loaded). */
  offsetStore(mapping: TargetMapping): OffsetStore;
  /** Closes the stores and the client. */
  close(): Promise<void>;
}

/**
 * A target that cannot be resolved: no config and no serverless.yml, an unknown mapping, a missing
 * table name. Permanent: the request or the files must change (the CLI exits 2 on it).
 */
export class TargetError extends RocketMQError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, permanent: true });
  }
}

/** What opening a target reads of its process: the environment (variables of the configs), a logger. */
export interface TargetContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger?: Logger | undefined;
}

/**
 * Resolves the target of an operation (see the file header for the sources, in order). Throws
 * {@link ConfigError} for an invalid config or serverless.yml and {@link TargetError} when
 * nothing says what to act on.
 */
export async function openTarget(options: TargetOptions, context: TargetContext): Promise<Target> {
  const cwd = options.cwd ?? process.cwd();
  const given = options.config === undefined ? undefined : path.resolve(cwd, options.config);
  const serviceFile =
    given === undefined
      ? DEFAULT_SERVICE_FILES.map((file) => path.join(cwd, file)).find((file) => existsSync(file))
      : isServiceFile(given)
        ? given
        : undefined;
  if (given !== undefined && serviceFile === undefined) {
    const config = await loadConfig(given, { env: context.env });
    return createTarget(options.config ?? given, config, context.logger);
  }
  if (serviceFile === undefined) {
    throw new TargetError(
      `no --config given and no ${DEFAULT_SERVICE_FILES.join(' or ')} in ${cwd}: pass --config <poller config or serverless.yml>`,
    );
  }
  const serviceDir = path.dirname(serviceFile);
  const session = await readDevState(path.join(serviceDir, DEV_STATE_DIR));
  if (session !== undefined && path.resolve(session.configFile) === serviceFile) {
    return createTarget(
      `dev session (pid ${session.pid}) of ${path.relative(cwd, serviceFile) || serviceFile}`,
      configOfDevSession(session, context.env),
      context.logger,
    );
  }
  const config = await deployedConfig(serviceFile, options, context.env);
  return createTarget(`${path.relative(cwd, serviceFile) || serviceFile} (deployed)`, config, context.logger);
}

/**
 * The run config of a running dev session: its name server, its embedded DynamoDB, its mappings (all
 * clustering: dev keeps every offset in its DynamoDB).
 */
export function configOfDevSession(
  session: DevState,
  env: Readonly<Record<string, string | undefined>>,
): RunConfig {
  const table = session.mappings[0]?.offsetsTable;
  return parseConfig(
    {
      nameServer: session.nameServer,
      offsets: {
        store: 'dynamodb',
        table: table ?? DEV_OFFSETS_TABLE,
        endpoint: session.dynamoDbEndpoint,
        region: session.region,
      },
      mappings: session.mappings.map((mapping) => ({
        name: mapping.name,
        topic: mapping.topic,
        consumerGroup: mapping.consumerGroup,
        function: mapping.functionName,
      })),
    },
    { baseDir: session.serviceDir, env, source: session.configFile },
  );
}

/**
 * The deployed poller's settings of a service: its mappings and name servers as dev reads them, the
 * offsets table and region the plugin deploys.
 */
async function deployedConfig(
  serviceFile: string,
  options: TargetOptions,
  env: Readonly<Record<string, string | undefined>>,
): Promise<RunConfig> {
  const serviceDir = path.dirname(serviceFile);
  const { document } = await loadServerlessService(serviceFile, {
    env,
    stage: options.stage,
    region: options.region,
    stateDir: path.join(serviceDir, DEV_STATE_DIR),
  });
  const root = asPlainRecord(document);
  const custom = asPlainRecord(asPlainRecord(root?.custom)?.rocketmq);
  const tableSettings = asPlainRecord(custom?.offsetsTable);
  const table = options.offsetsTable ?? text(tableSettings?.existing) ?? text(tableSettings?.name);
  if (table === undefined) {
    throw new TargetError(
      `${path.basename(serviceFile)}: the offsets table's name was generated by CloudFormation: pass --offsets-table <name> (the stack output RocketMQOffsetsTableName)`,
    );
  }
  // Functions are named by their deployed name: no handler module is needed to read offsets.
  const { config } = devConfigFromServerless(document, {
    serviceDir,
    env,
    stage: options.stage,
    dynamoDbEndpoint: 'http://127.0.0.1:1',
    invokeEndpoint: 'http://127.0.0.1:1',
    source: serviceFile,
    deployedTls: true,
  });
  const region = options.region ?? text(asPlainRecord(root?.provider)?.region) ?? env.AWS_REGION;
  const endpoint = env.ROCKETMQ_LAMBDA_DYNAMODB_ENDPOINT ?? env.AWS_ENDPOINT_URL_DYNAMODB;
  return {
    ...config,
    offsets: {
      store: 'dynamodb',
      table,
      region,
      endpoint,
      createTable: false,
      path: config.offsets.path,
      persistIntervalMs: config.offsets.persistIntervalMs,
    },
  };
}

function createTarget(source: string, config: RunConfig, logger: Logger | undefined): Target {
  const client = rocketMQClientOf(config, { logger });
  // An operator's stores read and reset; they never watch for resets as a poller's do.
  const stores = new OffsetStores(config.offsets, client.clientId, { resetWatchIntervalMs: false });
  const built = new Map<string, OffsetStore>();
  const mappings: TargetMapping[] = config.mappings.map((mapping) => ({
    name: mapping.name,
    topic: mapping.topic,
    consumerGroup: mapping.consumerGroup,
    messageModel: mapping.messageModel,
    startingPosition: mapping.startingPosition,
    startingPositionTimestampMs: mapping.startingPositionTimestampMs,
    offsetStoreKind: offsetStoreKindOf(config.offsets, mapping),
    consumeMode: mapping.consumeMode,
  }));
  const names = mappings.map((m) => m.name);
  const mapping = (name: string | undefined): TargetMapping => {
    if (name === undefined) {
      const [only] = mappings;
      if (only !== undefined && mappings.length === 1) return only;
      throw new TargetError(
        mappings.length === 0
          ? `${source} has no mappings`
          : `${source} has ${mappings.length} mappings: pass --mapping <${names.join('|')}>`,
      );
    }
    const found = mappings.find((m) => m.name === name);
    if (found !== undefined) return found;
    const guess = closestKey(name, names);
    throw new TargetError(
      `no mapping ${JSON.stringify(name)} in ${source}${guess === undefined ? '' : ` (did you mean ${guess}?)`}; its mappings: ${names.join(', ') || '(none)'}`,
    );
  };
  return {
    source,
    mappings,
    config,
    client,
    mapping,
    select: (name) => (name === undefined ? mappings : [mapping(name)]),
    offsetStore(mapping) {
      let store = built.get(mapping.name);
      if (store === undefined) {
        store = stores.forMapping(mapping);
        built.set(mapping.name, store);
      }
      return store;
    },
    async close() {
      try {
        await stores.close();
      } finally {
        await client.close();
      }
    },
  };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
