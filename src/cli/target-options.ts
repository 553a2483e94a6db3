/**
 * The options every operator command (`status`, `offsets`, `dlq`) takes to say what it acts on, and how
 * it opens that target (operations/target.ts) and reports the reasons it cannot: exit 2 for an invalid
 * config or a target that cannot be resolved, 1 for anything else our own code threw.
 *
 * Two ways to name a target: a file (`--config`, `--mapping`, `--stage`), or ad hoc, no file
 * (`--group`, `--topic`, `--name-server`, as mqadmin's `-g`/`-t`/`-n`). The name server is
 * `--name-server` in every command (as `send` and `dev` take it), never `-n`: mqadmin users read `-n` as
 * the name server, so no command of ours gives `-n` another meaning either.
 */
import type { Command } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { RocketMQError } from '../errors.js';
import {
  openTarget as openOperationsTarget,
  type Target,
  TargetError,
  type TargetMapping,
  type TargetOptions,
} from '../operations/target.js';
import { CliExit } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';

/**
 * The parsed target options.
 */
export interface TargetOptionValues {
  config?: string;
  stage?: string;
  region?: string;
  offsetsTable?: string;
  mapping?: string;
  nameServer?: string;
  group?: string;
  topic?: string;
  offsetsEndpoint?: string;
  tls?: boolean;
  tlsCaFile?: string;
}

/** What a command declared of its target options (openTarget reads it back). */
interface DeclaredTarget {
  readonly offsetsTable: boolean;
}

const declared = new WeakMap<Command, DeclaredTarget>();

/**
 * Adds the target options to `command`: `--config`, `--mapping`, `--stage`, `--region`, the ad hoc
 * `--name-server`, `--group`, `--topic`, `--tls`, `--tls-ca-file` and, for a command that reads the
 * offsets table, `--offsets-table` and `--offsets-endpoint`. A command without the offsets table (dlq)
 * needs no `--topic` ad hoc.
 */
export function declareTargetOptions(
  command: Command,
  { offsetsTable = true }: { readonly offsetsTable?: boolean } = {},
): Command {
  declared.set(command, { offsetsTable });
  command
    .option(
      '-c, --config <file>',
      'a poller config (YAML/JSON), or a serverless.yml (default: ./serverless.yml: its running dev session, else its deployed settings)',
    )
    .option(
      '-m, --mapping <name>',
      'one mapping (default: every mapping; required when an action needs one and there are several)',
    )
    .option('--stage <stage>', 'serverless.yml: the stage')
    .option(
      '--region <region>',
      offsetsTable
        ? 'serverless.yml, or ad hoc with --offsets-table: the region of the offsets table'
        : 'serverless.yml: the region',
    );
  if (offsetsTable) {
    command.option(
      '--offsets-table <name>',
      "the offsets table: of a serverless.yml, when CloudFormation named it; ad hoc, the group's DynamoDB table (without it: the brokers' copy of the group's offsets)",
    );
  }
  command
    .option(
      '--name-server <addr>',
      'ad hoc (no config file): host:port[;host:port] (default: ROCKETMQ_NAME_SERVER, NAMESRV_ADDR)',
    )
    .option('-g, --group <consumerGroup>', 'ad hoc: the consumer group (a mapping named after it)')
    .option(
      '-t, --topic <topic>',
      offsetsTable
        ? 'ad hoc: the topic the group consumes (required with --group)'
        : 'ad hoc: the topic the group consumes',
    );
  if (offsetsTable) {
    command.option(
      '--offsets-endpoint <url>',
      'ad hoc: the endpoint of the offsets table (a local DynamoDB)',
    );
  }
  return command
    .option('--tls', 'ad hoc: TLS towards the name servers and brokers (the public CAs)')
    .option('--tls-ca-file <file>', 'ad hoc: TLS, the servers signed by the CAs of this PEM file');
}

/**
 * Opens the target `options` name. Ends the command when it cannot, saying why (prefixed with the
 * command's name): exit 2 for an invalid config or an unresolvable target, 1 for another of our errors.
 */
export async function openTarget(command: Command, options: TargetOptions, io: CliIo): Promise<Target> {
  const readsOffsetsTable = declared.get(command)?.offsetsTable ?? true;
  try {
    const target = await openOperationsTarget(
      {
        config: options.config,
        stage: options.stage,
        region: options.region,
        // dlq reads no offsets table: the name it passes for a deployed service means nothing ad hoc.
        offsetsTable: readsOffsetsTable || options.group === undefined ? options.offsetsTable : undefined,
        nameServer: options.nameServer,
        group: options.group,
        topic: options.topic,
        topicOptional: !readsOffsetsTable,
        offsetsEndpoint: options.offsetsEndpoint,
        tls: options.tls,
        tlsCaFile: options.tlsCaFile,
        cwd: options.cwd,
      },
      io,
    );
    const [mapping] = target.mappings;
    if (readsOffsetsTable && mapping?.offsetStoreKind === 'broker') {
      // Said on stderr (stdout may be --json): which offsets these are, and how to read the poller's own.
      io.stderr.write(
        `${command.name()}: no --offsets-table: these are the brokers' copy of group ${mapping.consumerGroup}'s offsets (what Java consumers and mqadmin consumerProgress use); a rocketmq-lambda poller keeps its own in its DynamoDB table: --offsets-table <name> --region <region> reads that\n`,
      );
    }
    return target;
  } catch (error) {
    if (error instanceof ConfigError) {
      const source = error.source ?? options.config ?? 'config';
      throw new CliExit(
        EXIT_USAGE,
        error.problems.map((problem) => `${command.name()}: ${source}: ${problem}\n`).join(''),
      );
    }
    if (error instanceof TargetError) throw new CliExit(EXIT_USAGE, `${command.name()}: ${error.message}\n`);
    if (error instanceof RocketMQError)
      throw new CliExit(EXIT_FAILURE, `${command.name()}: ${error.message}\n`);
    throw error;
  }
}

/**
 * The frame of every command that reads a target: opens it, runs `action` with the mappings `--mapping`
 * selects (all without it), and closes the target whatever the action did. A `--mapping` that names no
 * mapping ends the command with exit 2.
 */
export async function withTarget(
  command: Command,
  options: TargetOptionValues & { cwd?: string | undefined },
  io: CliIo,
  action: (target: Target, mappings: readonly TargetMapping[]) => Promise<number>,
): Promise<number> {
  const target = await openTarget(command, options, io);
  try {
    return await action(
      target,
      targetCall(command, () => target.select(options.mapping)),
    );
  } finally {
    await target.close();
  }
}

/**
 * The one mapping an action works on: `name`, or the only mapping without it. Ends the command with
 * exit 2 when it names no mapping, or names none while there are several.
 */
export function selectMapping(command: Command, target: Target, name: string | undefined): TargetMapping {
  return targetCall(command, () => target.mapping(name));
}

/** `call`, with a {@link TargetError} turned into the end of the command (exit 2, the reason on stderr). */
function targetCall<T>(command: Command, call: () => T): T {
  try {
    return call();
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    throw new CliExit(EXIT_USAGE, `${command.name()}: ${error.message}\n`);
  }
}
