/**
 * Pollers of the cluster scenarios: `rocketmq-lambda run` child processes of one consumer group, each
 * with its own ledger file written by cluster-ledger-handler.mjs, and the ledger lines read back with
 * the broker name, arrival time and batch of each handling, merged over all pollers in handling order.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MappingInput } from '../../../src/config/config-schema.js';
import type { ChildExit, PollerProcess } from '../cli/poller-process.js';
import { PollerSeries } from '../faults/fault-scenario.js';

/** The handler module of the cluster pollers. */
export const CLUSTER_LEDGER_HANDLER = fileURLToPath(new URL('./cluster-ledger-handler.mjs', import.meta.url));

/**
 * A mapping to {@link CLUSTER_LEDGER_HANDLER}, from the topic's beginning; `mapping` wins.
 *
 * @example
 * ```ts
 * const mapping = clusterLedgerMapping(dir, { topic, consumerGroup: group, orderly: true });
 * ```
 */
export function clusterLedgerMapping(
  dir: string,
  mapping: Pick<MappingInput, 'topic' | 'consumerGroup'> & Partial<MappingInput>,
): MappingInput {
  return {
    name: mapping.consumerGroup.slice(0, 64),
    function: `local:${path.relative(dir, CLUSTER_LEDGER_HANDLER)}#handler`,
    startingPosition: 'TRIM_HORIZON',
    ...mapping,
  };
}

/** One handling of one message, as a cluster poller's ledger line says. */
export interface ClusterLedgerEntry {
  messageId: string;
  queueId: number;
  queueOffset: number;
  brokerName: string;
  /** When the batch reached the handler (`Date.now()` of the poller process). */
  atMs: number;
  /** The batch's number in its poller process. */
  batch: number;
  /** The `shardKey` user property, when the message has one. */
  shardKey: string | undefined;
  /** The `seq` user property, when the message has one. */
  seq: number | undefined;
  /** The poller that handled it. */
  poller: string;
  /** The line's index in its poller's ledger (orders lines of one arrival time). */
  line: number;
}

/**
 * The lines of `file` written by poller `poller` (empty before the file exists).
 *
 * @example
 * ```ts
 * const entries = readClusterLedger(p1.ledgerFile, p1.name);
 * ```
 */
export function readClusterLedger(file: string, poller: string): ClusterLedgerEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((text, line) => {
      const [messageId = '', queueId, queueOffset, brokerName = '', atMs, batch, shardKey, seq] =
        text.split(' ');
      return {
        messageId,
        queueId: Number(queueId),
        queueOffset: Number(queueOffset),
        brokerName,
        atMs: Number(atMs),
        batch: Number(batch),
        shardKey: shardKey === undefined || shardKey === '-' ? undefined : shardKey,
        seq: seq === undefined || seq === '-' ? undefined : Number(seq),
        poller,
        line,
      };
    });
}

/**
 * Every poller's handlings in the order they happened: by arrival time, a poller's lines of one
 * millisecond in file order (a batch's lines stay together).
 *
 * @example
 * ```ts
 * const all = inHandlingOrder(pollers.map((p) => readClusterLedger(p.ledgerFile, p.name)));
 * ```
 */
export function inHandlingOrder(ledgers: readonly (readonly ClusterLedgerEntry[])[]): ClusterLedgerEntry[] {
  return ledgers
    .flat()
    .sort((a, b) => a.atMs - b.atMs || a.poller.localeCompare(b.poller) || a.line - b.line);
}

/**
 * `brokerName:queueId`, a queue's name in a cluster.
 *
 * @example
 * ```ts
 * queueName({ brokerName: 'broker-a', queueId: 2 }) // => 'broker-a:2'
 * ```
 */
export function queueName(entry: Pick<ClusterLedgerEntry, 'brokerName' | 'queueId'>): string {
  return `${entry.brokerName}:${entry.queueId}`;
}

/** How a cluster poller ended, if it has. */
export type PollerEnd = 'SIGKILL' | 'SIGTERM';

/**
 * One poller process of a scenario, with its own ledger and heartbeat files. Started once; ended by a
 * signal once (a poller that joins again is a new ClusterPoller).
 *
 * @example
 * ```ts
 * const p = new ClusterPoller(dir, 'p1', configFile, { HANDLER_DELAY_MS: '50' });
 * p.start();
 * await p.started();
 * await p.end('SIGKILL');
 * ```
 */
export class ClusterPoller {
  readonly name: string;
  readonly ledgerFile: string;
  readonly #series: PollerSeries;
  #process: PollerProcess | undefined;
  #startedAtMs: number | undefined;
  #runningAtMs: number | undefined;
  #end: { signal: PollerEnd; atMs: number; exit: ChildExit } | undefined;

  constructor(dir: string, name: string, configFile: string, env: Record<string, string> = {}) {
    this.name = name;
    this.ledgerFile = path.join(dir, `${name}.ledger`);
    this.#series = new PollerSeries(configFile, {
      ...env,
      LEDGER_FILE: this.ledgerFile,
      // The default heartbeat file is one per machine: every poller gets its own.
      ROCKETMQ_LAMBDA_HEALTH_FILE: path.join(dir, `${name}.health`),
    });
  }

  /** Spawns the process. */
  start(): void {
    this.#process = this.#series.start();
    this.#startedAtMs = Date.now();
  }

  /** Resolves once the process logged `poller started`. */
  async started(timeoutMs = 90_000): Promise<void> {
    await this.#series.started(timeoutMs);
    this.#runningAtMs ??= Date.now();
  }

  /** When {@link start} was called. */
  get startedAtMs(): number | undefined {
    return this.#startedAtMs;
  }

  /** When {@link started} saw the `poller started` line (undefined before). */
  get runningAtMs(): number | undefined {
    return this.#runningAtMs;
  }

  /** How it ended (undefined while it runs). */
  get ended(): { signal: PollerEnd; atMs: number; exit: ChildExit } | undefined {
    return this.#end;
  }

  /** Sends `signal` and resolves with the exit (SIGTERM: after the graceful stop). */
  async end(signal: PollerEnd): Promise<ChildExit> {
    const atMs = Date.now();
    const exit = await this.#series.end(signal);
    this.#end = { signal, atMs, exit };
    return exit;
  }

  /** The JSON log lines of the process (kept after it ended). */
  logs(): Record<string, unknown>[] {
    return this.#process?.logs() ?? [];
  }

  /** Its handlings so far. */
  entries(): ClusterLedgerEntry[] {
    return readClusterLedger(this.ledgerFile, this.name);
  }

  /** stderr and the end of stdout, for failure messages. */
  output(): string {
    return this.#series.output();
  }
}
