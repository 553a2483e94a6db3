/**
 * The fault suite's report (test/integration/faults): each scenario records one row per consumer
 * ({@link recordFaultOutcome}, a JSON file under `.fault-report/`), and this file, run as a script
 * after the suite (`npm run test:faults`), prints them as one Markdown table for the README's
 * Reliability section. `--clear` removes the rows of earlier runs instead.
 *
 *   tsx test/support/fault-report.ts           prints the table
 *   tsx test/support/fault-report.ts --clear   empties .fault-report/
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Where the rows go (gitignored). */
export const FAULT_REPORT_DIR = fileURLToPath(new URL('../../.fault-report/', import.meta.url));

/** The command that reproduces the table. */
export const FAULT_SUITE_COMMAND = 'npm run test:faults';

/** How one process of a scenario ended: `SIGKILL`, `exit 0`, `exit 143`, or `running` (never ended). */
export type ProcessOutcome = string;

/**
 * What one consumer went through in one fault scenario.
 *
 * @example
 * ```ts
 * const row: FaultOutcome = {
 *   scenario: 'poller SIGKILL ×3 during a stream', consumer: 'rocketmq-lambda',
 *   sent: 20000, delivered: 20000, lost: 0, duplicates: 4100, orderViolations: null,
 *   processOutcomes: ['SIGKILL', 'SIGKILL', 'SIGKILL', 'exit 0'], notes: '8 queues, ~1500 msgs/s',
 *   durationMs: 41000,
 * };
 * ```
 */
export interface FaultOutcome {
  /** The scenario, as the table shows it. */
  scenario: string;
  /** Who consumed: `rocketmq-lambda`, or the reference peer (Apache's Java push consumer). */
  consumer: string;
  /** Messages produced (send succeeded). */
  sent: number;
  /** Distinct produced messages the handler saw. */
  delivered: number;
  /** Produced messages the handler never saw: must be 0. */
  lost: number;
  /** Deliveries beyond the first of each message. */
  duplicates: number;
  /** Orderly mappings: messages first delivered after a later message of their queue (must be 0); null when not orderly. */
  orderViolations: number | null;
  /** Each process of the consumer, in start order, as it ended. */
  processOutcomes: ProcessOutcome[];
  /** What else the scenario measured (rates, retries, dead letters, ratios). */
  notes: string;
  /** How long the scenario took. */
  durationMs: number;
}

/** A row as stored: the outcome and when it was recorded. */
export interface RecordedFaultOutcome extends FaultOutcome {
  /** ISO 8601. */
  recordedAt: string;
}

/**
 * Writes `row` to `.fault-report/<scenario>--<consumer>.json` (replacing the row of an earlier run)
 * and echoes it on stdout. Scenarios record before they assert, so that a failing scenario still
 * shows its figures.
 *
 * @example
 * ```ts
 * await recordFaultOutcome({ scenario: 'DynamoDB down 30 s', consumer: 'rocketmq-lambda', ...summary,
 *   orderViolations: null, processOutcomes: ['exit 0', 'exit 0'], notes: '', durationMs: 52000 });
 * ```
 */
export async function recordFaultOutcome(row: FaultOutcome): Promise<void> {
  // Field by field: callers spread richer objects (ledger summaries) into the row.
  const recorded: RecordedFaultOutcome = {
    scenario: row.scenario,
    consumer: row.consumer,
    sent: row.sent,
    delivered: row.delivered,
    lost: row.lost,
    duplicates: row.duplicates,
    orderViolations: row.orderViolations,
    processOutcomes: row.processOutcomes,
    notes: row.notes,
    durationMs: row.durationMs,
    recordedAt: new Date().toISOString(),
  };
  await mkdir(FAULT_REPORT_DIR, { recursive: true });
  const file = join(FAULT_REPORT_DIR, `${slug(row.scenario)}--${slug(row.consumer)}.json`);
  await writeFile(file, `${JSON.stringify(recorded, null, 2)}\n`, 'utf8');
  process.stdout.write(`[fault] ${JSON.stringify(recorded)}\n`);
}

/**
 * The rows recorded so far, ordered by scenario, ours before the reference peer (an empty list
 * without a report).
 *
 * @example
 * ```ts
 * const rows = await readFaultOutcomes();
 * ```
 */
export async function readFaultOutcomes(dir = FAULT_REPORT_DIR): Promise<RecordedFaultOutcome[]> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((name) => name.endsWith('.json'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const rows: RecordedFaultOutcome[] = [];
  for (const name of files) {
    rows.push(JSON.parse(await readFile(join(dir, name), 'utf8')) as RecordedFaultOutcome);
  }
  return rows.sort(
    (a, b) =>
      a.scenario.localeCompare(b.scenario) ||
      Number(isReference(a)) - Number(isReference(b)) ||
      a.consumer.localeCompare(b.consumer),
  );
}

/**
 * The rows as a Markdown table, followed by the command that reproduces it.
 *
 * @example
 * ```ts
 * process.stdout.write(renderFaultTable(await readFaultOutcomes()));
 * ```
 */
export function renderFaultTable(rows: readonly FaultOutcome[]): string {
  const header = [
    'Scenario',
    'Consumer',
    'Sent',
    'Delivered',
    'Lost',
    'Duplicates',
    'Order violations',
    'Processes',
    'Time',
    'Notes',
  ];
  const lines = [row(header), row(header.map((_, i) => (i >= 2 && i <= 6 ? '---:' : '---')))];
  for (const outcome of rows) {
    lines.push(
      row([
        outcome.scenario,
        outcome.consumer,
        count(outcome.sent),
        count(outcome.delivered),
        count(outcome.lost),
        count(outcome.duplicates),
        outcome.orderViolations === null ? 'n/a' : count(outcome.orderViolations),
        outcome.processOutcomes.join(', '),
        `${Math.round(outcome.durationMs / 1000)} s`,
        outcome.notes,
      ]),
    );
  }
  return `${lines.join('\n')}\n\nReproduce with \`${FAULT_SUITE_COMMAND}\` (a real RocketMQ 5.3.3, dynalite and the test Lambda Invoke API, all local).\n`;
}

/** A row of a peer we compare with (Apache's Java client), not of rocketmq-lambda. */
function isReference(outcome: FaultOutcome): boolean {
  return !outcome.consumer.startsWith('rocketmq-lambda');
}

function row(cells: readonly string[]): string {
  return `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

async function main(args: readonly string[]): Promise<void> {
  if (args.includes('--clear')) {
    await rm(FAULT_REPORT_DIR, { recursive: true, force: true });
    return;
  }
  const rows = await readFaultOutcomes();
  if (rows.length === 0) {
    process.stderr.write(`no fault outcomes under ${FAULT_REPORT_DIR}: run \`${FAULT_SUITE_COMMAND}\`\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`\n${renderFaultTable(rows)}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
