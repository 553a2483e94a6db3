/**
 * What an operator acts on: the mappings of a poller, a RocketMQ client for its name servers (with its
 * ACL and TLS), and each mapping's offset store, resolved from one of four sources:
 *
 * 0. Ad hoc, no file at all (`group` given, as mqadmin and kafka-consumer-groups work): one mapping named
 *    after the consumer group, on `topic`, the name servers of `nameServer` (else ROCKETMQ_NAME_SERVER /
 *    NAMESRV_ADDR), ACL keys from the environment as `run` reads them; its offsets are the DynamoDB
 *    table `offsetsTable` (with `region`, `offsetsEndpoint`) when given, else the brokers' copy of the
 *    group's offsets (broker-offset-store.ts: what Java consumers and mqadmin use).
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
import { ConfigError } from '../config/config-error.js';
import { loadConfig, parseConfig } from '../config/load-config.js';
import type { MappingConfig, RunConfig } from '../config/run-config.js';
import { retryTopicOf } from '../consumer/consumer-options.js';
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
import { BrokerOffsetStore } from './broker-offset-store.js';
import { operatorWriterId } from './operator-writer.js';

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
  /**
   * serverless.yml without a dev session: the offsets table when CloudFormation named it. Ad hoc: the
   * DynamoDB table of the group's offsets (without it, the brokers' copy is read).
   */
  readonly offsetsTable?: string | undefined;
  /** Ad hoc: the name servers, `host:port[;host:port]`. @default ROCKETMQ_NAME_SERVER, else NAMESRV_ADDR */
  readonly nameServer?: string | undefined;
  /** Ad hoc: the consumer group; given, the target is ad hoc (no config file is read). */
  readonly group?: string | undefined;
  /** Ad hoc: the topic the group consumes. Required unless `topicOptional`. */
  readonly topic?: string | undefined;
  /**
   * Ad hoc: the caller reads no topic (the DLQ commands: the group's DLQ is named after the group); the
   * mapping's topic is then the group's retry topic, where a dead letter without a recorded original
   * topic goes back to.
   */
  readonly topicOptional?: boolean | undefined;
  /** Ad hoc: the endpoint of the offsets table (a local DynamoDB). @default ROCKETMQ_LAMBDA_DYNAMODB_ENDPOINT */
  readonly offsetsEndpoint?: string | undefined;
  /** Ad hoc: TLS towards name servers and brokers (public CAs unless `tlsCaFile`). */
  readonly tls?: boolean | undefined;
  /** Ad hoc: the PEM file of a private CA (implies `tls`). */
  readonly tlsCaFile?: string | undefined;
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
  /**
   * Which store holds its offsets (`file`/`memory` for broadcasting mappings or such configs; `broker`:
   * the brokers' copy, for an ad hoc target without an offsets table).
   */
  readonly offsetStoreKind: TargetOffsetStoreKind;
  /**
   * PUSH: the pollers hold queues and commit to the offset store. POP: the broker keeps the group's
   * position (docs/protocol.md, POP consumption) and the offset store holds nothing of the mapping.
   */
  readonly consumeMode: MappingConfig['consumeMode'];
}

/** Where a target mapping's offsets are: a poller's store, or the brokers' copy (ad hoc, no table). */
export type TargetOffsetStoreKind = OffsetStoreKind | 'broker';

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
  if (isAdHoc(options)) return adHocTarget(options, cwd, context);
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

/** The options only an ad hoc target takes, with their flags (for messages). */
const AD_HOC_OPTIONS = [
  ['group', '--group'],
  ['nameServer', '--name-server'],
  ['topic', '--topic'],
  ['offsetsEndpoint', '--offsets-endpoint'],
  ['tls', '--tls'],
  ['tlsCaFile', '--tls-ca-file'],
] as const satisfies readonly (readonly [keyof TargetOptions, string])[];

/**
 * Whether `options` ask for an ad hoc target. Throws {@link TargetError} for ad hoc options without
 * `group`, and for ad hoc options mixed with a config's.
 */
function isAdHoc(options: TargetOptions): boolean {
  const given = AD_HOC_OPTIONS.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
  if (given.length === 0) return false;
  if (options.group === undefined) {
    throw new TargetError(
      `${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} for a target without a config file: add --group <consumerGroup>${options.topicOptional === true ? '' : ' and --topic <topic>'}`,
    );
  }
  const fileOptions = [
    ['--config', options.config],
    ['--stage', options.stage],
  ].flatMap(([flag, value]) => (value === undefined ? [] : [flag]));
  if (fileOptions.length > 0) {
    throw new TargetError(
      `--group names a target without a config file: drop ${fileOptions.join(' and ')}, or drop --group and pick a mapping of the config with --mapping`,
    );
  }
  return true;
}

/** The ad hoc target of `options` (source 0 of the file header). */
function adHocTarget(options: TargetOptions, cwd: string, context: TargetContext): Target {
  const group = options.group as string;
  if (options.topic === undefined && options.topicOptional !== true) {
    throw new TargetError(`--group ${group} needs --topic <topic>: the topic the group consumes`);
  }
  const offsets =
    options.offsetsTable === undefined
      ? { store: 'memory' }
      : {
          store: 'dynamodb',
          table: options.offsetsTable,
          region: options.region,
          endpoint: options.offsetsEndpoint,
          createTable: false,
        };
  const tls =
    options.tlsCaFile !== undefined ? { caFile: options.tlsCaFile } : options.tls === true ? true : undefined;
  let config: RunConfig;
  try {
    config = parseConfig(adHocConfigInput(options, group, offsets, tls), {
      baseDir: cwd,
      env: context.env,
      source: 'ad hoc',
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Said in the words of the command line: its flags, not the config keys behind them.
    throw new ConfigError(error.problems.map(inFlagTerms), { source: 'ad hoc', cause: error });
  }
  const where = config.nameServerAddresses.join(';');
  const store =
    options.offsetsTable === undefined
      ? "the brokers' copy of its offsets"
      : `offsets table ${options.offsetsTable}`;
  return createTarget(`group ${group} on ${where} (${store})`, config, context.logger, {
    brokerOffsets: options.offsetsTable === undefined,
  });
}

/** The config keys an ad hoc target fills, and the flags that fill them. */
const FLAG_OF_KEY: readonly (readonly [string, string])[] = [
  ['nameServer', '--name-server'],
  ['tls.caFile', '--tls-ca-file'],
  ['tls', '--tls'],
  ['offsets.table', '--offsets-table'],
  ['offsets.region', '--region'],
  ['offsets.endpoint', '--offsets-endpoint'],
  ['mappings[0].topic', '--topic'],
  ['mappings[0].consumerGroup', '--group'],
  ['mappings[0].name', '--group'],
];

/** A config problem (`key: what is wrong`) with the key replaced by its flag. */
function inFlagTerms(problem: string): string {
  for (const [key, flag] of FLAG_OF_KEY) {
    if (problem.startsWith(`${key}:`)) return `${flag}${problem.slice(key.length)}`;
  }
  return problem;
}

/** The config of an ad hoc target, as a config file would say it. */
function adHocConfigInput(
  options: TargetOptions,
  group: string,
  offsets: object,
  tls: object | true | undefined,
): object {
  return {
    nameServer: options.nameServer,
    ...(tls === undefined ? {} : { tls }),
    offsets,
    mappings: [
      {
        name: group,
        topic: options.topic ?? retryTopicOf(group),
        consumerGroup: group,
        // Never invoked: an operator's target reads and moves offsets only.
        function: 'ad-hoc-target',
      },
    ],
  };
}

/**
 * The target of a run config already loaded (a running dev session's own, for its console): `source`
 * names it in messages. Close it when done.
 */
export function createTarget(
  source: string,
  config: RunConfig,
  logger: Logger | undefined,
  { brokerOffsets = false }: { readonly brokerOffsets?: boolean } = {},
): Target {
  const client = rocketMQClientOf(config, { logger });
  // An operator's stores read and reset; they never watch for resets as a poller's do, and their writes
  // carry an operator writer id so that readers see a reset as one.
  const stores = new OffsetStores(config.offsets, operatorWriterId(client.clientId), {
    resetWatchIntervalMs: false,
  });
  const built = new Map<string, OffsetStore>();
  const mappings: TargetMapping[] = config.mappings.map((mapping) => ({
    name: mapping.name,
    topic: mapping.topic,
    consumerGroup: mapping.consumerGroup,
    messageModel: mapping.messageModel,
    startingPosition: mapping.startingPosition,
    startingPositionTimestampMs: mapping.startingPositionTimestampMs,
    offsetStoreKind: brokerOffsets ? 'broker' : offsetStoreKindOf(config.offsets, mapping),
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
        store =
          mapping.offsetStoreKind === 'broker'
            ? new BrokerOffsetStore(client, mapping.consumerGroup)
            : stores.forMapping(mapping);
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
