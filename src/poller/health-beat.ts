/**
 * The poller's health signal for container health checks. Every few seconds the poller writes a small
 * JSON file with its verdict (healthy, or the problems of each mapping: see consumer-health.ts);
 * `rocketmq-lambda health` reads it and fails when the verdict is unhealthy or the file is stale. A
 * stuck event loop or a stopped poller lets the file go stale; a poller that runs but consumes nothing
 * (every broker refusing, offsets not written) writes "unhealthy" with the reason. Either way the
 * orchestrator replaces the task, and the reason is in the health check's output and in the log.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from '../util/logger.js';
import type { MappingHealth, PollerHealth } from './poller-health.js';

/** The environment variable that moves the heartbeat file. */
export const HEALTH_FILE_ENV = 'ROCKETMQ_LAMBDA_HEALTH_FILE';
/** How often the file is rewritten. */
export const HEALTH_BEAT_INTERVAL_MS = 10_000;
/** How old the file may be before `rocketmq-lambda health` reports unhealthy. */
export const HEALTH_MAX_AGE_MS = 60_000;

/**
 * The content of the heartbeat file.
 */
export interface HealthReport {
  readonly healthy: boolean;
  /** When the verdict was made (ISO 8601). */
  readonly at: string;
  /** One line per problem, each starting with the mapping's name. */
  readonly problems: readonly string[];
  /** Each mapping's verdict and consume state (poller-health.ts); absent in files of older versions. */
  readonly mappings?: readonly MappingHealth[] | undefined;
}

/**
 * The heartbeat file's path: `ROCKETMQ_LAMBDA_HEALTH_FILE`, else `<tmpdir>/rocketmq-lambda/health`.
 */
export function healthFilePath(env: Readonly<Record<string, string | undefined>>): string {
  return env[HEALTH_FILE_ENV] || join(tmpdir(), 'rocketmq-lambda', 'health');
}

/**
 * Writes the verdict of `assess()` to `path` every `intervalMs` (atomically: readers never see half a
 * file) and logs each change of verdict; `stop()` ends the beat and removes the file.
 */
export class HealthBeat {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private lastProblems: string | undefined;

  constructor(
    private readonly options: {
      path: string;
      assess: () => PollerHealth;
      log: Logger;
      intervalMs?: number;
    },
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.beat();
    this.timer = setInterval(() => this.beat(), this.options.intervalMs ?? HEALTH_BEAT_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.writing;
    await rm(this.options.path, { force: true }).catch((error: unknown) =>
      this.options.log.warn({ err: error, path: this.options.path }, 'could not remove the health file'),
    );
  }

  private beat(): void {
    const { path, log } = this.options;
    let verdict: PollerHealth;
    try {
      verdict = this.options.assess();
    } catch (error) {
      verdict = { healthy: false, problems: [`the health check itself failed: ${String(error)}`] };
    }
    const report: HealthReport = {
      healthy: verdict.healthy,
      at: new Date().toISOString(),
      problems: verdict.problems,
      ...(verdict.mappings === undefined ? {} : { mappings: verdict.mappings }),
    };
    const problems = report.problems.join('\n');
    if (problems !== (this.lastProblems ?? '')) {
      if (report.healthy) log.info('healthy again');
      else log.error({ problems: report.problems }, 'unhealthy');
    }
    this.lastProblems = problems;
    this.writing = this.writing
      .then(async () => {
        await mkdir(dirname(path), { recursive: true });
        const temp = `${path}.tmp`;
        await writeFile(temp, `${JSON.stringify(report)}\n`);
        await rename(temp, path);
      })
      .catch((error: unknown) => log.warn({ err: error, path }, 'could not write the health file'));
  }
}
