/**
 * The lifecycle every consume mode shares (mapping-consumer.ts): the state machine
 * created -> starting -> running -> (failed) -> stopping -> stopped, the lifecycle events and their
 * listeners, a start that runs once and cleans up after itself when it fails, an idempotent stop, and a
 * fatal error that takes a starting or running consumer to `failed` once. The consumer supplies only
 * what its mode does at each step.
 */
import { describeError } from '../util/describe-error.js';
import type { Logger } from '../util/logger.js';
import type { ConsumerRuntimeEvent, ConsumerState } from './consumer-status.js';

/** What a consumer does at the steps of its lifecycle. */
export interface ConsumerLifecycleSteps {
  /** Names the consumer in the error of a second start ("cannot start a <noun> in state running"). */
  readonly noun: string;
  readonly log: Logger;
  /**
   * Releases what the consumer holds; resolves with an error when the stop went through but not cleanly
   * (the stop then rejects with it, after `stopped`), or undefined.
   */
  readonly stop: () => Promise<unknown>;
  /** Logs that the consumer started (before the `started` event). */
  readonly started: () => void;
  /** Logs that the consumer stopped (before the `stopped` event). */
  readonly stopped: () => void;
}

/** The state, events, start and stop of one consumer; its owner supplies the steps. */
export class ConsumerLifecycle {
  private readonly steps: ConsumerLifecycleSteps;
  private readonly listeners = new Set<(event: ConsumerRuntimeEvent) => void>();
  private current: ConsumerState = 'created';
  private error: unknown;
  private startedAt: number | undefined;
  private stopping: Promise<void> | undefined;

  constructor(steps: ConsumerLifecycleSteps) {
    this.steps = steps;
  }

  get state(): ConsumerState {
    return this.current;
  }

  /** The fatal error, once `state` is `failed`. */
  get fatalError(): unknown {
    return this.error;
  }

  /** When start() was called (ms since the epoch); undefined before. */
  get startedAtMs(): number | undefined {
    return this.startedAt;
  }

  /** Starting or running: neither failed nor stopping. */
  get active(): boolean {
    return this.current === 'starting' || this.current === 'running';
  }

  /** Subscribes to lifecycle events; returns the unsubscribe function. */
  onEvent(listener: (event: ConsumerRuntimeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Runs `work` once, from `created`; when it fails, stops (releasing what it set up) and rejects with its
   * error. A fatal error during the start leaves the state `failed`, not `running`.
   */
  async start(work: () => Promise<void>): Promise<void> {
    if (this.current !== 'created')
      throw new Error(`cannot start a ${this.steps.noun} in state ${this.current}`);
    this.current = 'starting';
    this.startedAt = Date.now();
    try {
      await work();
    } catch (error) {
      this.steps.log.error({ err: error }, 'start failed');
      await this.stop();
      throw error;
    }
    if (this.current === 'starting') this.current = 'running';
    this.steps.started();
    this.emit({ type: 'started' });
  }

  /** Stops once (later calls get the same promise); see {@link ConsumerLifecycleSteps.stop}. */
  stop(): Promise<void> {
    this.stopping ??= this.runStop();
    return this.stopping;
  }

  /**
   * Takes a starting or running consumer to `failed`, logs and emits the error; false (and nothing done)
   * in any other state, so the first fatal error is the one kept.
   */
  fail(error: unknown, consequence: string): boolean {
    if (!this.active) return false;
    this.current = 'failed';
    this.error = error;
    this.steps.log.error({ err: error, reason: describeError(error) }, `fatal error: ${consequence}`);
    this.emit({ type: 'fatal', error });
    return true;
  }

  /** Tells every listener; one that throws is logged and the others still hear of it. */
  emit(event: ConsumerRuntimeEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.steps.log.error({ err: error, event: event.type }, 'event listener failed');
      }
    }
  }

  private async runStop(): Promise<void> {
    this.current = 'stopping';
    const unclean = await this.steps.stop();
    this.current = 'stopped';
    this.steps.stopped();
    this.emit({ type: 'stopped' });
    if (unclean !== undefined) throw unclean;
  }
}
