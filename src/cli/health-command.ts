/**
 * `rocketmq-lambda health`: the container health check. Exit 0 when the running poller's heartbeat file
 * (see `ROCKETMQ_LAMBDA_HEALTH_FILE`) was rewritten within the last 60 s and says healthy, else 1 with
 * the reason (one line per problem); `--json` prints the verdict and each mapping's consume state
 * (consume-state.ts) as one document.
 */
import { readFile, stat } from 'node:fs/promises';
import { CONSUME_STATES } from '../consumer/consume-state.js';
import { PULL_STALL_MS } from '../consumer/consumer-health.js';
import { CONSUMER_OPTION_SPECS } from '../consumer/consumer-option-specs.js';
import {
  HEALTH_FILE_ENV,
  HEALTH_MAX_AGE_MS,
  type HealthReport,
  healthFilePath,
} from '../poller/health-beat.js';
import type { MappingHealth } from '../poller/poller-health.js';
import { type CommandHelp, declareCommand, parseArgs } from './cli-command.js';
import { cliCommand } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { EXIT_FAILURE, EXIT_OK } from './exit-codes.js';
import { positiveInteger } from './option-parsers.js';

/** What `health --help` says beyond its options. */
export const HEALTH_HELP: CommandHelp = {
  name: 'health',
  description: `Exits 0 when the poller running on this host is healthy: its heartbeat file was rewritten within the last ${HEALTH_MAX_AGE_MS / 1000} s and says every mapping does its job (running, pulling every queue it holds within ${PULL_STALL_MS / 1000} s, writing offsets, and able to consume: a topic or group missing, a subscription refused or no queue assigned for longer than ${CONSUMER_OPTION_SPECS.readinessGraceMs.default / 1000} s is unhealthy; this command reads the heartbeat, rewritten every 10 s, where /readyz answers from the live verdict). A standby that holds no queue because the group has more pollers than queues is healthy and printed as waiting. Else exits 1 and prints why. Used by the container HEALTHCHECK. With --json, prints one JSON document on stdout whatever the verdict: {healthy, ageMs, path, problems, mappings: [{mapping, healthy, state, reason, since, problems}]} (ageMs null when there is no readable heartbeat).`,
  examples: [
    'rocketmq-lambda health',
    'rocketmq-lambda health --max-age-ms 120000',
    'rocketmq-lambda health --json',
  ],
  exitCodes: {
    [EXIT_OK]: 'healthy',
    [EXIT_FAILURE]: 'unhealthy, or no poller runs here (one line per problem)',
  },
  environment: { [HEALTH_FILE_ENV]: 'the heartbeat file (default <tmpdir>/rocketmq-lambda/health)' },
};

/**
 * What `health --json` prints: the verdict, the heartbeat's age and the mappings' states.
 */
export interface HealthJson {
  readonly healthy: boolean;
  /** How old the heartbeat file is; null when there is none, or it is not a health report. */
  readonly ageMs: number | null;
  readonly path: string;
  readonly problems: readonly string[];
  readonly mappings: readonly MappingHealth[];
}

/**
 * Runs `health`; resolves with the exit code.
 */
export const healthCommand = cliCommand(
  async (args: readonly string[], io: CliIo, nowMs: number = Date.now()): Promise<number> => {
    const command = declareCommand(HEALTH_HELP, io)
      .option(
        '--max-age-ms <ms>',
        'how old the heartbeat may be',
        positiveInteger('--max-age-ms'),
        HEALTH_MAX_AGE_MS,
      )
      .option('--json', 'one JSON document on stdout: healthy, ageMs, path, problems, mappings');
    const { maxAgeMs, json } = parseArgs<{ maxAgeMs: number; json?: boolean }>(command, args).options;
    const path = healthFilePath(io.env);
    const verdict = await readVerdict(path, maxAgeMs, nowMs);
    if (json === true) {
      io.stdout.write(`${JSON.stringify(verdict)}\n`);
      return verdict.healthy ? EXIT_OK : EXIT_FAILURE;
    }
    if (!verdict.healthy) {
      const problems = verdict.problems.length === 0 ? ['(no reason given)'] : verdict.problems;
      io.stderr.write(problems.map((problem) => `unhealthy: ${problem}\n`).join(''));
      return EXIT_FAILURE;
    }
    io.stdout.write(`healthy: heartbeat ${verdict.ageMs ?? 0} ms old\n`);
    // A healthy mapping that is not consuming says so (a standby waiting for a queue).
    for (const mapping of verdict.mappings) {
      if (mapping.state === undefined || mapping.state === 'consuming') continue;
      io.stdout.write(
        `${mapping.mapping}: ${mapping.state}${mapping.reason === undefined ? '' : ` (${mapping.reason})`}\n`,
      );
    }
    return EXIT_OK;
  },
);

/** The verdict of the heartbeat file at `path`: unhealthy when missing, stale or not a health report. */
async function readVerdict(path: string, maxAgeMs: number, nowMs: number): Promise<HealthJson> {
  const unhealthy = (problem: string, ageMs: number | null = null): HealthJson => ({
    healthy: false,
    ageMs,
    path,
    problems: [problem],
    mappings: [],
  });
  let modifiedMs: number;
  try {
    modifiedMs = (await stat(path)).mtimeMs;
  } catch {
    return unhealthy(`no heartbeat file at ${path} (is the poller running?)`);
  }
  const ageMs = Math.max(0, Math.round(nowMs - modifiedMs));
  if (ageMs > maxAgeMs) {
    return unhealthy(`the heartbeat at ${path} is ${ageMs} ms old (limit ${maxAgeMs} ms)`, ageMs);
  }
  let report: HealthReport | undefined;
  try {
    report = parseReport(await readFile(path, 'utf8'));
  } catch {
    report = undefined;
  }
  if (report === undefined) return unhealthy(`the heartbeat at ${path} is not a health report`);
  return {
    healthy: report.healthy,
    ageMs,
    path,
    problems: report.problems,
    mappings: report.mappings ?? [],
  };
}

function parseReport(text: string): HealthReport | undefined {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) return undefined;
  const { healthy, at, problems, mappings } = value as Record<string, unknown>;
  if (typeof healthy !== 'boolean' || typeof at !== 'string' || !Array.isArray(problems)) return undefined;
  return {
    healthy,
    at,
    problems: problems.map(String),
    mappings: Array.isArray(mappings) ? mappings.flatMap(parseMapping) : undefined,
  };
}

/** A mapping entry of the file, or none when it is not one (the file is ours, but read defensively). */
function parseMapping(value: unknown): MappingHealth[] {
  if (typeof value !== 'object' || value === null) return [];
  const entry = value as Record<string, unknown>;
  if (typeof entry.mapping !== 'string' || typeof entry.healthy !== 'boolean') return [];
  const text = (field: unknown) => (typeof field === 'string' ? field : undefined);
  const state = CONSUME_STATES.find((name) => name === entry.state);
  return [
    {
      mapping: entry.mapping,
      healthy: entry.healthy,
      state,
      reason: text(entry.reason),
      since: text(entry.since),
      problems: Array.isArray(entry.problems) ? entry.problems.map(String) : [],
    },
  ];
}
