/**
 * A stoppable periodic async task: runs `task` every `intervalMs` (never two runs at once), logs its
 * failures, and `stop()` resolves only after a running execution has finished.
 */
import type { Logger } from './logger.js';
import { ThrottledLog } from './throttled-log.js';

/**
 * A timer-driven background task.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly warnings: ThrottledLog;

  constructor(
    readonly name: string,
    private readonly intervalMs: number,
    private readonly task: () => Promise<unknown>,
    private readonly log: Logger,
  ) {
    this.warnings = new ThrottledLog(log);
  }

  /** Schedules the first run after `initialDelayMs` (default: one interval). Idempotent. */
  start(initialDelayMs = this.intervalMs): void {
    if (this.stopped || this.timer !== undefined) return;
    this.schedule(initialDelayMs);
  }

  /** Runs the task now unless it is running; resolves when that run ended. */
  runNow(): Promise<void> {
    if (this.running !== undefined) return this.running;
    this.running = this.task()
      .then(() => this.warnings.clear('failed'))
      .catch((error: unknown) =>
        this.warnings.warn('failed', { err: error, task: this.name }, 'periodic task failed'),
      )
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Stops scheduling and waits for a running execution. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.runNow()
        .then(() => {
          if (!this.stopped) this.schedule(this.intervalMs);
        })
        .catch((error: unknown) =>
          this.log.error({ err: error, task: this.name }, 'periodic task scheduling failed'),
        );
    }, delayMs);
  }
}
