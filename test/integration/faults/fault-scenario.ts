/**
 * What the fault scenarios share: a temp directory per scenario, poller config files, a poller that
 * is started again after each fault (its exits kept for the report), and waiting for ledgers to
 * hold every produced message.
 *
 * A scenario (`<scenario>.test.ts` in this directory, run by `npm run test:faults` and by the
 * integration project) follows one shape:
 * 1. produce with ids kept (`startSteadyStream`, or `produce` from the consumer helpers);
 * 2. consume with our poller (`PollerSeries` over `writePollerConfig`; the `ledgerMapping` handler
 *    writes a ledger file) and/or Apache's Java peer (`startJavaLedgerConsumer`), inject the fault,
 *    and end every process through `PollerSeries.end` / the peer's `kill`/`stop` so that each exit is
 *    kept;
 * 3. `waitForLedgers`, then `summarizeLedger` (orderly: `{ orderly: true }`);
 * 4. `recordFaultOutcome` first, then assert: lost 0 (and orderViolations 0 when orderly).
 * Scenarios that need a broker of their own (kill, wipe, ACL, TLS) pass its `nameServer` to
 * `writePollerConfig` and to `newClient`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import type { MappingInput, RunConfigInput } from '../../../src/config/config-schema.js';
import type { JvmExit } from '../../../src/local-broker/jvm-process.js';
import { testBroker } from '../../support/broker.js';
import type { ProcessOutcome } from '../../support/fault-report.js';
import { waitFor } from '../../support/wait-for.js';
import {
  type ChildExit,
  LEDGER_HANDLER,
  type LedgerEntry,
  type PollerProcess,
  spawnCli,
} from '../cli/poller-process.js';
import { DeliveryLedger } from './delivery-ledger.js';

/** Ledger files grow to ~1 MB; reading them more often costs CPU the consumers need. */
const LEDGER_POLL_MS = 500;

/**
 * A temp directory removed when the test ends.
 *
 * @example
 * ```ts
 * const dir = await scenarioDir('kill');
 * ```
 */
export async function scenarioDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `rl-fault-${prefix}-`));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A mapping to the ledger handler fixture (`local:`, one `messageId queueId queueOffset` line per
 * record in $LEDGER_FILE), from the topic's beginning; `overrides` win.
 *
 * @example
 * ```ts
 * const mapping = ledgerMapping(dir, { topic, consumerGroup: group, orderly: true });
 * ```
 */
export function ledgerMapping(
  dir: string,
  mapping: Pick<MappingInput, 'topic' | 'consumerGroup'> & Partial<MappingInput>,
): MappingInput {
  return {
    name: mapping.consumerGroup.slice(0, 64),
    function: `local:${path.relative(dir, LEDGER_HANDLER)}#handler`,
    startingPosition: 'TRIM_HORIZON',
    ...mapping,
  };
}

/**
 * Writes `<dir>/poller.json`: `config`, on the shared test broker's name server unless it names
 * another, with a 10 s shutdown timeout unless it sets one; returns its path.
 *
 * @example
 * ```ts
 * const file = await writePollerConfig(dir, {
 *   offsets: { store: 'dynamodb', table: 'offsets', endpoint: db.endpoint, createTable: true },
 *   mappings: [ledgerMapping(dir, { topic, consumerGroup: group })],
 * });
 * ```
 */
export async function writePollerConfig(
  dir: string,
  config: Omit<RunConfigInput, 'nameServer'> & Partial<Pick<RunConfigInput, 'nameServer'>>,
): Promise<string> {
  const file = path.join(dir, 'poller.json');
  const full: RunConfigInput = { nameServer: testBroker().namesrvAddr, shutdownTimeoutMs: 10_000, ...config };
  await writeFile(file, JSON.stringify(full, null, 2));
  return file;
}

/**
 * How a process ended, as the report shows it.
 *
 * @example
 * ```ts
 * exitOutcome({ code: null, signal: 'SIGKILL' }) // => 'SIGKILL'
 * exitOutcome({ exitCode: 0, signal: null }) // => 'exit 0'
 * ```
 */
export function exitOutcome(exit: ChildExit | JvmExit): ProcessOutcome {
  if (exit.signal !== null) return exit.signal;
  const code = 'code' in exit ? exit.code : exit.exitCode;
  return `exit ${String(code)}`;
}

/**
 * Our poller (`rocketmq-lambda run --config <file>` as a child process) through a scenario: started,
 * killed or stopped, started again, each end kept for the report. A process still running when the
 * test ends is killed by `spawnCli`'s cleanup.
 *
 * @example
 * ```ts
 * const poller = new PollerSeries(configFile, { LEDGER_FILE: ledger });
 * poller.start();
 * await poller.end('SIGKILL');
 * poller.start();
 * expect(await poller.end('SIGTERM')).toEqual({ code: 0, signal: null });
 * poller.outcomes // => ['SIGKILL', 'exit 0']
 * ```
 */
export class PollerSeries {
  readonly outcomes: ProcessOutcome[] = [];
  readonly #configFile: string;
  readonly #env: Record<string, string>;
  #current: PollerProcess | undefined;
  /** The latest process, running or ended (for failure messages). */
  #latest: PollerProcess | undefined;

  constructor(configFile: string, env: Record<string, string>) {
    this.#configFile = configFile;
    this.#env = env;
  }

  /** The running process (throws when none is). */
  get current(): PollerProcess {
    if (this.#current === undefined) throw new Error('no poller is running');
    return this.#current;
  }

  /** Starts a poller process; the previous one must have ended. */
  start(): PollerProcess {
    if (this.#current !== undefined) throw new Error('a poller is still running');
    this.#current = spawnCli(['run', '--config', this.#configFile], this.#env);
    this.#latest = this.#current;
    return this.#current;
  }

  /** Resolves once the running poller logged `poller started`. */
  async started(timeoutMs = 60_000): Promise<void> {
    await this.current.waitForLog('the poller to start', (line) => line.msg === 'poller started', timeoutMs);
  }

  /**
   * Sends `signal` to the running poller and resolves with its exit (SIGTERM: after its graceful
   * stop). The exit is appended to {@link outcomes}.
   */
  async end(signal: 'SIGKILL' | 'SIGTERM'): Promise<ChildExit> {
    const poller = this.current;
    poller.child.kill(signal);
    const exit = await poller.exited;
    this.#current = undefined;
    this.outcomes.push(exitOutcome(exit));
    return exit;
  }

  /** stderr and the end of stdout of the latest poller, for failure messages. */
  output(): string {
    const latest = this.#latest;
    return latest === undefined
      ? 'no poller was started'
      : `stderr:\n${latest.stderr()}\nstdout (end):\n${latest.stdout().slice(-4000)}`;
  }
}

/**
 * Resolves when the ledgers hold every id of `sent`; fails after `timeoutMs`, its cause saying how
 * many are missing from which ledger.
 *
 * @example
 * ```ts
 * await waitForLedgers(sent, { ours: () => readLedger(ours), java: () => readLedger(java) }, 120_000);
 * ```
 */
export async function waitForLedgers(
  sent: readonly string[],
  ledgers: Record<string, () => Iterable<LedgerEntry>>,
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    `${sent.length} messages in ${Object.keys(ledgers).join(', ')}`,
    timeoutMs,
    () => {
      const missing: string[] = [];
      for (const [name, read] of Object.entries(ledgers)) {
        const ledger = new DeliveryLedger(sent);
        ledger.add(read());
        if (ledger.delivered < sent.length)
          missing.push(`${name}: ${sent.length - ledger.delivered} missing`);
      }
      // Thrown, the shortfall is the timeout error's cause.
      if (missing.length > 0) throw new Error(missing.join(', '));
      return true;
    },
    { intervalMs: LEDGER_POLL_MS },
  );
}

/**
 * Lines in a ledger file (0 before it exists); cheaper than `readLedger` when only progress counts.
 *
 * @example
 * ```ts
 * const before = ledgerLines(file);
 * ```
 */
export function ledgerLines(file: string): number {
  if (!existsSync(file)) return 0;
  const bytes = readFileSync(file);
  let lines = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) lines++;
  return lines;
}
