/**
 * Tells a refusal that will not heal from a passing failure, so a consumer that cannot do its job stops
 * and says why instead of retrying for ever while reporting healthy.
 *
 * A permanent refusal is an error flagged `permanent` anywhere in its cause chain: NO_PERMISSION from a
 * broker (wrong or unknown ACL credentials, a group or topic this identity may not use), an untrusted or
 * rejected TLS certificate, TLS spoken on one side only, a missing offsets table or denied access to it.
 * Brokers also answer NO_PERMISSION for states an operator sets on purpose and undoes (a broker made
 * write-only for maintenance refuses send-backs), so one refusal among successes is not enough: the
 * consumer stops once refusals keep coming with no broker call succeeding for {@link REFUSAL_CONFIRM_MS}.
 * Offset-store refusals stop it at once (no maintenance state explains a missing table).
 */
import { RocketMQError } from '../errors.js';
import { anyInCauseChain } from '../util/cause-chain.js';
import { describeError } from '../util/describe-error.js';

/** Refusals with no broker success for this long stop the consumer. */
export const REFUSAL_CONFIRM_MS = 15_000;
/** ...and at least this many of them. */
export const REFUSAL_MIN_COUNT = 2;

/**
 * True when `error`, or an error in its cause chain, is flagged `permanent`.
 */
export function isPermanentRefusal(error: unknown): boolean {
  return anyInCauseChain(error, (candidate) => (candidate as { permanent?: unknown }).permanent === true);
}

/**
 * The error a consumer stops with after permanent refusals: its message names what refused and why.
 */
export class ConsumerRefusedError extends RocketMQError {
  constructor(what: string, cause: unknown) {
    super(`${what}: ${describeError(cause)}`, { cause, permanent: true });
  }
}

/**
 * Watches broker call outcomes of one consumer.
 */
export class RefusalWatch {
  private firstRefusalMs: number | undefined;
  private refusals = 0;
  private tripped = false;

  constructor(
    private readonly onRefused: (error: ConsumerRefusedError) => void,
    private readonly confirmMs: number = REFUSAL_CONFIRM_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A broker call succeeded: earlier refusals were not the whole story. */
  succeeded(): void {
    this.firstRefusalMs = undefined;
    this.refusals = 0;
  }

  /** A broker call failed with `error`. */
  failed(error: unknown): void {
    if (this.tripped || !isPermanentRefusal(error)) return;
    const nowMs = this.now();
    this.firstRefusalMs ??= nowMs;
    this.refusals++;
    if (this.refusals >= REFUSAL_MIN_COUNT && nowMs - this.firstRefusalMs >= this.confirmMs) {
      this.trip(new ConsumerRefusedError('the brokers refuse this consumer', error));
    }
  }

  /** A refusal that needs no confirmation (offset store, or every broker at start). */
  refusedNow(what: string, error: unknown): void {
    if (!this.tripped) this.trip(new ConsumerRefusedError(what, error));
  }

  private trip(error: ConsumerRefusedError): void {
    this.tripped = true;
    this.onRefused(error);
  }
}
