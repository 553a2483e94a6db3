/**
 * The poller's liveness signal for container health checks: while every mapping runs, a small file is
 * rewritten every few seconds; `rocketmq-lambda health` checks that it is fresh. A stuck event loop, a
 * failed mapping or a stopped poller lets the file go stale, and the orchestrator replaces the task.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from '../util/logger.js';

/** The environment variable that moves the heartbeat file. */
export const HEALTH_FILE_ENV = 'ROCKETMQ_LAMBDA_HEALTH_FILE';
/** How often the file is rewritten while healthy. */
export const HEALTH_BEAT_INTERVAL_MS = 10_000;
/** How old the file may be before `rocketmq-lambda health` reports unhealthy. */
export const HEALTH_MAX_AGE_MS = 60_000;

/**
 * The heartbeat file's path: `ROCKETMQ_LAMBDA_HEALTH_FILE`, else `<tmpdir>/rocketmq-lambda/health`.
 *
 * @example
 * ```ts
 * healthFilePath({}); // '/tmp/rocketmq-lambda/health' on Linux
 * ```
 */
export function healthFilePath(env: Readonly<Record<string, string | undefined>>): string {
  return env[HEALTH_FILE_ENV] || join(tmpdir(), 'rocketmq-lambda', 'health');
}

/**
 * Rewrites `path` every `intervalMs` while `isHealthy()` holds; `stop()` ends the beat and removes the file.
 *
 * @example
 * ```ts
 * const beat = new HealthBeat({ path: healthFilePath(process.env), isHealthy: () => allRunning(), log });
 * beat.start();
 * // ... on shutdown:
 * await beat.stop();
 * ```
 */
export class HealthBeat {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: {
      path: string;
      isHealthy: () => boolean;
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
    if (!this.options.isHealthy()) return;
    const { path, log } = this.options;
    this.writing = this.writing
      .then(async () => {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, `${new Date().toISOString()}\n`);
      })
      .catch((error: unknown) => log.warn({ err: error, path }, 'could not write the health file'));
  }
}
