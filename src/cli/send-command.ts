/**
 * `rocketmq-lambda send`: sends test messages to a topic (tags, keys, properties, a delay level, a queue
 * picked by an orderly key) and prints where each one went. The name server comes from the options, a
 * poller config, the running `rocketmq-lambda dev` session, or the environment (producer-connection.ts).
 */
import { InvalidArgumentError } from 'commander';
import { DEFAULT_MAX_MESSAGE_BYTES, type SendResult } from '../client/producer.js';
import { ConfigError } from '../config/config-error.js';
import {
  bodyTooLarge,
  type MessageFieldNames,
  MessageSender,
  outgoingMessageProblem,
} from '../operations/message-send.js';
import { DevStateFileError } from '../serverless-service/dev-state-file.js';
import { describeError } from '../util/describe-error.js';
import { componentLogger } from '../util/logger.js';
import { type CommandHelp, declareCommand, parseArgs, usageExit } from './cli-command.js';
import { CliExit, cliCommand } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { stderrLogger } from './cli-logger.js';
import { collect } from './collect-option.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { BodySourceError, readMessageBodies } from './message-bodies.js';
import { positiveInteger } from './option-parsers.js';
import { NoNameServerError, resolveProducerConnection } from './producer-connection.js';

/** RocketMQ's delay levels (broker `messageDelayLevel`: 1s 5s 10s 30s 1m 2m ... 2h). */
export const MAX_DELAY_LEVEL = 18;
/** The delay of each level under the broker's default `messageDelayLevel`, for the help. */
const DELAY_LEVELS = '1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h';

/** What `send --help` says beyond its options. */
export const SEND_HELP: CommandHelp = {
  name: 'send',
  description: `Sends messages to a topic and prints, per message, its id and where it was stored:
<msgId> <broker>/<queueId> offset <queueOffset> (or a JSON line each with --json).

The body is --body's text, --file's bytes (binary is fine) or standard input; --lines sends one
message per line, --count N sends it all N times. --orderly-key picks the queue by the key's hash,
so messages with the same key land on one queue, in order (what an orderly mapping consumes in
order). Bodies over the broker's default limit (${DEFAULT_MAX_MESSAGE_BYTES} bytes) are refused before anything
is sent.

The name server is --name-server, else --config's nameServer (with its acl and tls), else the
running rocketmq-lambda dev session of this directory (.rocketmq-lambda/dev.json, or --state-dir),
else ROCKETMQ_NAME_SERVER.`,
  examples: [
    'rocketmq-lambda send --topic orders --body hello',
    'rocketmq-lambda send --topic orders --tags created --keys order-1 --property region=eu --file order.json',
    'seq 1 100 | rocketmq-lambda send --topic orders --lines --orderly-key customer-7 --json',
    'rocketmq-lambda send --topic orders --body ping --count 10 --delay-level 3 --name-server 127.0.0.1:9876',
  ],
  exitCodes: {
    [EXIT_OK]: 'every message was sent',
    [EXIT_FAILURE]: 'a send failed (stderr names the message and the reason; the ones before it were sent)',
    [EXIT_USAGE]: 'bad arguments, no body, a body too large, no name server, or an invalid --config',
  },
  environment: {
    'ROCKETMQ_NAME_SERVER, NAMESRV_ADDR': 'the name server when no option and no dev session gives one',
    'ROCKETMQ_ACCESS_KEY, ROCKETMQ_SECRET_KEY': 'ACL credentials (a --config with acl wins)',
    LOG_LEVEL: 'pino level of the client logs on stderr (default warn)',
  },
};

/** The options of `send`, as commander parses them. */
interface SendOptions {
  readonly topic: string;
  readonly tags?: string;
  readonly keys: string[];
  readonly property: string[];
  readonly body?: string;
  readonly file?: string;
  readonly lines?: boolean;
  readonly count: number;
  readonly orderlyKey?: string;
  readonly delayLevel?: number;
  readonly nameServer?: string;
  readonly config?: string;
  readonly stateDir?: string;
  readonly json?: boolean;
}

/**
 * Standard input as `send` reads it.
 */
export type SendStdin = AsyncIterable<Buffer | string> & { readonly isTTY?: boolean | undefined };

/**
 * Runs `send` with the arguments after the command name; resolves with the exit code. Reads the body from
 * `stdin` when neither `--body` nor `--file` is given and it is not a terminal.
 */
export const sendCommand = cliCommand(
  async (args: readonly string[], io: CliIo, stdin: SendStdin = process.stdin): Promise<number> => {
    const command = declareCommand(SEND_HELP, io)
      .requiredOption('-t, --topic <topic>', 'the topic')
      .option('--tags <tag>', "the message's tag (what a mapping's filter matches)")
      .option('--keys <key>', 'a business key, indexed by the broker (repeatable)', collect, [])
      .option('--property <key=value>', 'a user property (repeatable)', collect, [])
      .option('--body <text>', 'the body (UTF-8)')
      .option('--file <file>', 'the body: the bytes of this file')
      .option('--lines', 'one message per line of --file, standard input or --body (empty lines skipped)')
      .option('--count <n>', 'send it all n times', positiveInteger('--count'), 1)
      .option('--orderly-key <key>', 'pick the queue by this key (same key, same queue)')
      .option('--delay-level <level>', `deliver later: 1..${MAX_DELAY_LEVEL} (${DELAY_LEVELS})`, delayLevel)
      .option('--name-server <addr>', 'host:port[;host:port]')
      .option('-c, --config <file>', 'a poller config: its nameServer, acl and tls')
      .option('--state-dir <dir>', "a dev session's state directory (default ./.rocketmq-lambda)")
      .option('--json', 'a JSON line per message instead of text');
    const { options } = parseArgs<SendOptions>(command, args);

    const problem = argumentProblem(options, stdin);
    if (problem !== undefined) throw usageExit(command, problem);
    const properties = propertiesOf(options.property);

    let bodies: Buffer[];
    try {
      bodies = await readMessageBodies({
        body: options.body,
        file: options.file,
        stdin: options.body === undefined && options.file === undefined ? stdin : undefined,
        lines: options.lines === true,
        count: options.count,
      });
    } catch (error) {
      if (error instanceof BodySourceError) throw usageExit(command, error.message);
      throw error;
    }
    const oversize = bodies.findIndex((body) => body.length > DEFAULT_MAX_MESSAGE_BYTES);
    if (oversize !== -1) {
      const which = bodies.length === 1 ? 'the body' : `message ${oversize + 1}`;
      throw usageExit(command, bodyTooLarge(which, bodies[oversize]?.length ?? 0));
    }

    let resolved: Awaited<ReturnType<typeof resolveProducerConnection>>;
    try {
      resolved = await resolveProducerConnection(options, io.env);
    } catch (error) {
      if (error instanceof ConfigError) {
        const source = error.source ?? options.config ?? 'config';
        throw new CliExit(EXIT_USAGE, error.problems.map((line) => `${source}: ${line}\n`).join(''));
      }
      if (error instanceof NoNameServerError || error instanceof DevStateFileError) {
        throw usageExit(command, error.message);
      }
      throw error;
    }

    const logger = stderrLogger(io, 'warn');
    const log = componentLogger('cli.send', logger);
    const sender = await MessageSender.start(resolved.connection, logger);
    let sent = 0;
    try {
      for (const [index, body] of bodies.entries()) {
        let result: SendResult;
        try {
          result = await sender.send({
            topic: options.topic,
            body,
            tags: options.tags,
            keys: options.keys,
            properties,
            delayLevel: options.delayLevel,
            orderlyKey: options.orderlyKey,
          });
        } catch (error) {
          log.debug({ err: error, topic: options.topic, message: index + 1 }, 'send failed');
          const which = bodies.length === 1 ? 'the message' : `message ${index + 1} of ${bodies.length}`;
          const before = sent === 0 ? '' : ` (${sent} sent before it)`;
          io.stderr.write(
            `rocketmq-lambda send: ${which} was not sent to ${options.topic} via ${resolved.source}: ${describeError(error)}${before}\n`,
          );
          return EXIT_FAILURE;
        }
        sent += 1;
        io.stdout.write(`${formatSendResult(result, options.topic, options.json === true)}\n`);
      }
      return EXIT_OK;
    } finally {
      await sender.close();
    }
  },
);

/**
 * One printed line for a stored message: `<msgId> <broker>/<queueId> offset <queueOffset>` (plus the
 * status when it is not SEND_OK), or its JSON.
 */
export function formatSendResult(result: SendResult, topic: string, json: boolean): string {
  if (json) {
    return JSON.stringify({
      msgId: result.msgId,
      offsetMsgId: result.offsetMsgId,
      topic,
      brokerName: result.brokerName,
      queueId: result.queueId,
      queueOffset: result.queueOffset,
      status: result.status,
    });
  }
  const status = result.status === 'SEND_OK' ? '' : ` ${result.status}`;
  return `${result.msgId} ${result.brokerName}/${result.queueId} offset ${result.queueOffset}${status}`;
}

/** The first problem of options that parsed but do not go together, or undefined. */
/** How `send`'s problems name a message's fields: its options. */
const SEND_FIELD_NAMES: MessageFieldNames = {
  topic: '--topic',
  tags: '--tags',
  keys: '--keys',
  property: '--property',
  systemAlternatives: '--tags, --keys or --delay-level',
  severalKeys: 'repeat --keys for several',
};

function argumentProblem(options: SendOptions, stdin: SendStdin): string | undefined {
  if (options.topic.trim() === '') return '--topic must not be empty';
  if (options.body !== undefined && options.file !== undefined) return 'use --body or --file, not both';
  if (options.body === undefined && options.file === undefined && stdin.isTTY === true) {
    return 'no body: give --body <text> or --file <file>, or pipe it on standard input';
  }
  const badProperty = options.property.find((entry) => !/^[^=\s]+=/.test(entry));
  if (badProperty !== undefined) return `--property must be key=value, got ${JSON.stringify(badProperty)}`;
  const problem = outgoingMessageProblem(
    {
      topic: options.topic,
      tags: options.tags,
      keys: options.keys,
      properties: propertiesOf(options.property),
    },
    SEND_FIELD_NAMES,
  );
  if (problem !== undefined) return problem;
  if (options.orderlyKey === '') return '--orderly-key must not be empty';
  return undefined;
}

/** `--property key=value` entries as properties (a later key wins). */
function propertiesOf(entries: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    entries.map((entry) => {
      const at = entry.indexOf('=');
      return [entry.slice(0, at), entry.slice(at + 1)];
    }),
  );
}

/** Parses `--delay-level` (commander's custom option processing). */
function delayLevel(value: string): number {
  const level = Number(value);
  if (!/^\d+$/.test(value.trim()) || level < 1 || level > MAX_DELAY_LEVEL) {
    throw new InvalidArgumentError(`--delay-level must be 1..${MAX_DELAY_LEVEL} (${DELAY_LEVELS}).`);
  }
  return level;
}
