/**
 * Gets a consumer back to work soon after what it lacked returns. The periodic tasks run every 20-30 s
 * (route refresh, heartbeat, rebalance), so a consumer that started while its name server answered
 * nonsense first pulled 45 s after the name server turned sane: 30 s to learn the route, 15 more until
 * a heartbeat registered it and a rebalance handed it queues. While the topic has no route, a broker it
 * names has not taken our heartbeat, or the last rebalance could not decide the queues, this checks
 * again on a short backoff (1 s doubling to 5 s, jittered) instead; a broker that appears in a route, or
 * takes a heartbeat after failing them, is heartbeated and triggers a rebalance at once. Once everything
 * is in place the checks stop and the periodic tasks go on at their usual intervals.
 */

import type { Logger } from '../../util/logger.js';
import { backoffDelayMs } from '../../util/retry.js';
import type { ConsumerHeartbeat } from './consumer-heartbeat.js';
import type { TopicRouteTable } from './topic-route-table.js';

/** The first check after a failed one waits this long (jittered between half and all of it). */
export const RECOVERY_INITIAL_DELAY_MS = 1000;
/**
 * The longest wait between two checks while something is missing: a name server or broker that comes
 * back is used within it (plus a lookup, a heartbeat and a rebalance), and one that stays down hears
 * from each consumer at most every 2.5-5 s.
 */
export const RECOVERY_MAX_DELAY_MS = 5000;

/** Options of {@link MembershipRecovery}. */
export interface MembershipRecoveryOptions {
  /** The subscribed topic: the one whose route must be known. */
  topic: string;
  routes: Pick<TopicRouteTable, 'route' | 'allBrokerAddresses'>;
  /** Looks up the routes of every subscribed topic (failures are the route table's to log). */
  refreshRoutes: () => Promise<unknown>;
  heartbeat: Pick<ConsumerHeartbeat, 'sendTo' | 'isRegistered'>;
  /** Shares the queues out again. @default none: nothing to rebalance (a POP consumer) */
  rebalance?: (() => Promise<void>) | undefined;
  /** Whether the last rebalance decided this consumer's queues of the topic. @default always */
  decided?: (() => boolean) | undefined;
  log: Logger;
  /** Source of the jitter (tests fix it). @default Math.random */
  random?: (() => number) | undefined;
}

/**
 * Fast retries while a consumer lacks a route, a registered broker or a rebalance decision.
 */
export class MembershipRecovery {
  private readonly o: MembershipRecoveryOptions;
  private started = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** A kick arrived while a check ran: check again once it ends. */
  private kickedWhileRunning = false;
  /** Checks in a row that found something missing (0: all was well at the last one). */
  private failedChecks = 0;
  private troubleSinceMs: number | undefined;

  constructor(options: MembershipRecoveryOptions) {
    this.o = options;
  }

  /** True while checks are scheduled because something is missing. */
  get recovering(): boolean {
    return this.failedChecks > 0;
  }

  /** Starts checking: at once, then on the backoff while something is missing. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.kick();
  }

  /**
   * Checks now (after the running check, if one runs). A check finds nothing to do without I/O when
   * all is in place, so callers kick after every periodic task. Ignored before {@link start}.
   */
  kick(): void {
    if (!this.started || this.stopped) return;
    if (this.running !== undefined) {
      this.kickedWhileRunning = true;
      return;
    }
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.kickedWhileRunning) {
        this.kickedWhileRunning = false;
        this.kick();
      }
    });
  }

  /** Stops checking and waits for a running check. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async run(): Promise<void> {
    let ready = false;
    try {
      ready = await this.check();
    } catch (error) {
      this.o.log.warn({ err: error }, 'recovery check failed');
    }
    if (this.stopped) return;
    if (ready) {
      if (this.failedChecks > 0) {
        this.o.log.info(
          { topic: this.o.topic, afterMs: Date.now() - (this.troubleSinceMs ?? Date.now()) },
          'route and brokers usable again',
        );
      }
      this.failedChecks = 0;
      this.troubleSinceMs = undefined;
      return;
    }
    this.troubleSinceMs ??= Date.now();
    this.failedChecks++;
    const random = this.o.random ?? Math.random;
    const delayMs = backoffDelayMs(this.failedChecks, {
      initialDelayMs: RECOVERY_INITIAL_DELAY_MS,
      maxDelayMs: RECOVERY_MAX_DELAY_MS,
      // Between half and all of the exponential step: never a burst of checks at a down server.
      random: () => 0.5 + random() / 2,
    });
    this.o.log.debug({ topic: this.o.topic, delayMs, checks: this.failedChecks }, 'recovery: checking again');
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, delayMs);
  }

  /**
   * Looks up the routes when the topic has none or no broker of them took a heartbeat (the brokers may
   * have moved), heartbeats every broker not registered yet, rebalances when one was just registered or
   * the last rebalance decided nothing. Resolves with whether everything is now in place.
   */
  private async check(): Promise<boolean> {
    const o = this.o;
    if (!this.usable()) await o.refreshRoutes();
    if (this.stopped) return false;
    const pending = o.routes.allBrokerAddresses().filter((address) => !o.heartbeat.isRegistered(address));
    let joined = 0;
    if (pending.length > 0) joined = (await o.heartbeat.sendTo(pending)).accepted;
    if (this.stopped) return false;
    const decided = o.decided ?? (() => true);
    if (o.rebalance !== undefined && (joined > 0 || !decided())) await o.rebalance();
    return (
      this.usable() &&
      o.routes.allBrokerAddresses().every((address) => o.heartbeat.isRegistered(address)) &&
      decided()
    );
  }

  /** The topic has a route and some broker of the routes took our heartbeat. */
  private usable(): boolean {
    const { routes, heartbeat, topic } = this.o;
    if (routes.route(topic) === undefined) return false;
    return routes.allBrokerAddresses().some((address) => heartbeat.isRegistered(address));
  }
}
