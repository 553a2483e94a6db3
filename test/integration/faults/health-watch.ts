/**
 * What `rocketmq-lambda health` says about a poller, asked again and again while the poller runs: the
 * container health check's view of a fault. The command runs in-process (the same code as the CLI's
 * `health`, reading the same heartbeat file), so that asking every half second costs no process start.
 */
import { onTestFinished } from 'vitest';
import { healthCommand } from '../../../src/cli/health-command.js';
import { HEALTH_FILE_ENV } from '../../../src/poller/health-beat.js';
import { fakeCliIo } from '../../support/fake-cli-io.js';

/** How often the check is run. */
const DEFAULT_INTERVAL_MS = 500;

/** One run of the health check. */
export interface HealthVerdict {
  atMs: number;
  /** 0 healthy, 1 unhealthy. */
  exitCode: number;
  /** What it printed (stdout and stderr). */
  output: string;
}

/**
 * Runs `health` against one heartbeat file every `intervalMs` until stopped.
 *
 * @example
 * ```ts
 * const watch = new HealthWatch(healthFile);
 * watch.start();
 * // ... the poller runs into a refusal and exits
 * await watch.stop();
 * expect(watch.healthyVerdicts()).toEqual([]);
 * ```
 */
export class HealthWatch {
  readonly verdicts: HealthVerdict[] = [];
  readonly #file: string;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(file: string, options: { intervalMs?: number } = {}) {
    this.#file = file;
    this.#intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  }

  /** Runs the check once now, then every interval (until stopped, at the latest when the test ends). */
  start(): void {
    if (this.#timer !== undefined) return;
    onTestFinished(() => this.stop());
    this.#tick();
    this.#timer = setInterval(() => this.#tick(), this.#intervalMs);
  }

  /** Stops checking; resolves once the check under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** Runs the check once and keeps its verdict. */
  async check(): Promise<HealthVerdict> {
    const io = fakeCliIo({ [HEALTH_FILE_ENV]: this.#file });
    const exitCode = await healthCommand([], io);
    const verdict = { atMs: Date.now(), exitCode, output: io.output().trim() };
    this.verdicts.push(verdict);
    return verdict;
  }

  /** The verdicts that said healthy. */
  healthyVerdicts(): HealthVerdict[] {
    return this.verdicts.filter((verdict) => verdict.exitCode === 0);
  }

  /** Distinct outputs (ages left out) in the order first seen, for notes and failure messages. */
  distinctOutputs(): string[] {
    return [...new Set(this.verdicts.map((verdict) => verdict.output.replace(/\d+ ms old/g, '<age> old')))];
  }

  #tick(): void {
    // One check at a time: a slow disk must not pile them up.
    this.#running = this.#running.then(async () => {
      await this.check();
    });
  }
}
