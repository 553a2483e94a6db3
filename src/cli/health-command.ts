/**
 * `rocketmq-lambda health`: the container health check. Exit 0 when the running poller's heartbeat file
 * (see `ROCKETMQ_LAMBDA_HEALTH_FILE`) was rewritten within the last 60 s and says healthy, else 1 with
 * the reason (one line per problem).
 */
import { readFile, stat } from 'node:fs/promises';
import { PULL_STALL_MS } from '../consumer/consumer-health.js';
import {
  HEALTH_FILE_ENV,
  HEALTH_MAX_AGE_MS,
  type HealthReport,
  healthFilePath,
} from '../poller/health-beat.js';
import { type CommandHelp, declareCommand, parseArgs } from './cli-command.js';
import { cliCommand } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { EXIT_FAILURE, EXIT_OK } from './exit-codes.js';
import { positiveInteger } from './option-parsers.js';

/** What `health --help` says beyond its options. */
export const HEALTH_HELP: CommandHelp = {
  name: 'health',
  description: `Exits 0 when the poller running on this host is healthy: its heartbeat file was rewritten within the last ${HEALTH_MAX_AGE_MS / 1000} s and says every mapping does its job (running, pulling every queue it holds within ${PULL_STALL_MS / 1000} s, writing offsets). Else exits 1 and prints why. Used by the container HEALTHCHECK.`,
  examples: ['rocketmq-lambda health', 'rocketmq-lambda health --max-age-ms 120000'],
  exitCodes: {
    [EXIT_OK]: 'healthy',
    [EXIT_FAILURE]: 'unhealthy, or no poller runs here (one line per problem)',
  },
  environment: { [HEALTH_FILE_ENV]: 'the heartbeat file (default <tmpdir>/rocketmq-lambda/health)' },
};

/**
 * Runs `health`; resolves with the exit code.
 */
export const healthCommand = cliCommand(
  async (args: readonly string[], io: CliIo, nowMs: number = Date.now()): Promise<number> => {
    const command = declareCommand(HEALTH_HELP, io).option(
      '--max-age-ms <ms>',
      'how old the heartbeat may be',
      positiveInteger('--max-age-ms'),
      HEALTH_MAX_AGE_MS,
    );
    const maxAgeMs = parseArgs<{ maxAgeMs: number }>(command, args).options.maxAgeMs;
    const path = healthFilePath(io.env);
    let modifiedMs: number;
    try {
      modifiedMs = (await stat(path)).mtimeMs;
    } catch {
      io.stderr.write(`unhealthy: no heartbeat file at ${path} (is the poller running?)\n`);
      return EXIT_FAILURE;
    }
    const ageMs = Math.max(0, Math.round(nowMs - modifiedMs));
    if (ageMs > maxAgeMs) {
      io.stderr.write(`unhealthy: the heartbeat at ${path} is ${ageMs} ms old (limit ${maxAgeMs} ms)\n`);
      return EXIT_FAILURE;
    }
    let report: HealthReport | undefined;
    try {
      report = parseReport(await readFile(path, 'utf8'));
    } catch {
      report = undefined;
    }
    if (report === undefined) {
      io.stderr.write(`unhealthy: the heartbeat at ${path} is not a health report\n`);
      return EXIT_FAILURE;
    }
    if (!report.healthy) {
      const problems = report.problems.length === 0 ? ['(no reason given)'] : report.problems;
      io.stderr.write(problems.map((problem) => `unhealthy: ${problem}\n`).join(''));
      return EXIT_FAILURE;
    }
    io.stdout.write(`healthy: heartbeat ${ageMs} ms old\n`);
    return 0;
  },
);

function parseReport(text: string): HealthReport | undefined {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) return undefined;
  const { healthy, at, problems } = value as Record<string, unknown>;
  if (typeof healthy !== 'boolean' || typeof at !== 'string' || !Array.isArray(problems)) return undefined;
  return { healthy, at, problems: problems.map(String) };
}
