/**
 * What `dlq show` and `dlq redrive` share: opening the target (target-options.ts), finding the mapping's
 * DLQ and its queues (operations/dead-letters.ts), and turning the known failures (no DLQ yet, a DLQ
 * clients may not read) into their messages and exit codes.
 */
import type { Command } from 'commander';
import { BrokerError } from '../client/broker-error.js';
import type { RoutedQueue } from '../client/queue-reader.js';
import type { DeadLetterQueue } from '../operations/dead-letter-queue.js';
import { openDeadLetters } from '../operations/dead-letters.js';
import type { Target, TargetMapping } from '../operations/target.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { ResponseCode } from '../protocol/response-code.js';
import { describeError } from '../util/describe-error.js';
import { CliExit } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { EXIT_FAILURE, EXIT_OK } from './exit-codes.js';
import { openTarget, selectMapping, type TargetOptionValues } from './target-options.js';

/**
 * The environment the dlq subcommands read (for their help).
 */
export const DLQ_ENVIRONMENT: Readonly<Record<string, string>> = {
  'ROCKETMQ_NAME_SERVER, NAMESRV_ADDR': 'name servers when the config has no nameServer',
  'ROCKETMQ_ACCESS_KEY, ROCKETMQ_SECRET_KEY': 'ACL credentials when the config has no acl',
  NO_COLOR: 'no colour even on a terminal',
};

/**
 * What the dlq commands take from outside the command line (tests replace it).
 */
export interface DlqCommandDeps {
  /**
   * Asks the operator a yes/no question; given as undefined: nobody can answer (then only --yes sends).
   * @default a prompt on stdin when it is a terminal, else nobody
   */
  readonly confirm?: ((question: string) => Promise<boolean>) | undefined;
  /** Relative paths (the config) are relative to it. @default process.cwd() */
  readonly cwd?: string | undefined;
}

/**
 * What a dlq subcommand works on.
 */
export interface DlqContext {
  readonly target: Target;
  readonly mapping: TargetMapping;
  readonly dlq: DeadLetterQueue;
  readonly queues: readonly RoutedQueue[];
}

/**
 * Opens the target, finds the mapping's DLQ and its queues, and runs `body` with them; turns the known
 * failures into their messages and exit codes, and closes the target. `precheck` may end the command
 * (throw a CliExit) before anything connects; `notes` receives the "no dead letters" line.
 */
export async function withDeadLetterQueue(
  command: Command,
  io: CliIo,
  deps: DlqCommandDeps,
  options: TargetOptionValues,
  body: (context: DlqContext) => Promise<number>,
  precheck?: (target: Target, mapping: TargetMapping) => void,
  notes: CliIo['stdout'] = io.stdout,
): Promise<number> {
  const target = await openTarget(
    command,
    // dlq never touches the offsets table, so a deployed service whose table name CloudFormation
    // generated needs no --offsets-table: any name does.
    { ...options, offsetsTable: 'unused-by-dlq', cwd: deps.cwd },
    io,
  );
  try {
    const mapping = selectMapping(command, target, options.mapping);
    precheck?.(target, mapping);
    const { dlq, queues } = await openDeadLetters(target, mapping);
    if (queues.length === 0) {
      notes.write(
        `no dead letters for group ${mapping.consumerGroup} (${dlq.topic} does not exist yet: RocketMQ creates it with the group's first dead letter)\n`,
      );
      return EXIT_OK;
    }
    const unreadable = queues.find((q) => !q.readable);
    if (unreadable !== undefined) {
      throw new CliExit(EXIT_FAILURE, await permissionHint(dlq, unreadable.queue, target));
    }
    try {
      return await body({ target, mapping, dlq, queues });
    } catch (error) {
      if (error instanceof BrokerError && error.code === ResponseCode.NO_PERMISSION) {
        throw new CliExit(
          EXIT_FAILURE,
          `${command.name()}: ${error.message}\n${await permissionHint(dlq, queues[0]?.queue, target)}`,
        );
      }
      throw error;
    }
  } catch (error) {
    if (error instanceof CliExit) throw error;
    throw new CliExit(EXIT_FAILURE, `${command.name()}: ${describeError(error)}\n`);
  } finally {
    await target.close();
  }
}

/** Why a DLQ cannot be read, and the mqadmin line that fixes it. */
async function permissionHint(
  dlq: DeadLetterQueue,
  queue: MessageQueue | undefined,
  target: Target,
): Promise<string> {
  let broker = '<broker address>';
  if (queue !== undefined) {
    try {
      broker = await dlq.masterAddress(queue);
    } catch (error) {
      broker = `<broker address of ${queue.brokerName}: ${describeError(error)}>`;
    }
  }
  return unreadableDlqHint(dlq.topic, target.config.nameServerAddresses, broker);
}

/**
 * What to do about a DLQ topic clients may not read (a pull refused with NO_PERMISSION, or a route without
 * the READ bit): 5.3.3 creates DLQs readable (perm 6); older (4.x) brokers created them write-only (perm 2).
 */
export function unreadableDlqHint(
  topic: string,
  nameServers: readonly string[],
  brokerAddress: string,
): string {
  return (
    `${topic} is not readable: older brokers (4.x) create DLQ topics write-only (perm 2). Make it readable (perm 6, read+write):\n` +
    `  mqadmin updateTopicPerm -n '${nameServers.join(';')}' -b ${brokerAddress} -t '${topic}' -p 6\n`
  );
}

/**
 * `%DLQ%G on broker-a#0`.
 */
export function queueLabel(queue: MessageQueue): string {
  return `${queue.topic} on ${queue.brokerName}#${queue.queueId}`;
}
