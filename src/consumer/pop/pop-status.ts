/**
 * What a POP consumer reports: its counters, per-broker progress, status snapshot and health verdict.
 * Health follows the pull consumer's rule (consumer-health.ts): judged by progress, with the same
 * stall threshold for a broker that has completed no pop.
 */

import { describeError } from '../../util/describe-error.js';
import { type ConsumeState, consumeStateProblem } from '../consume-state.js';
import type { ConsumerCounters } from '../consumer-counters.js';
import { type ConsumerHealth, PULL_STALL_MS } from '../consumer-health.js';
import type { ConsumerState } from '../consumer-status.js';

/** Counters only POP has; the shared ones (`pullRequests` = pops, `consumedOk`, ...) are in {@link ConsumerCounters}. */
export interface PopCounters {
  /** ACK_MESSAGE calls the broker took. */
  acks: number;
  /** ACK_MESSAGE calls that failed (the message comes back after its invisible time: a duplicate). */
  ackFailures: number;
  /** Failed messages given a later visibility (CHANGE_MESSAGE_INVISIBLETIME). */
  invisibleTimeChanges: number;
  /** CHANGE_MESSAGE_INVISIBLETIME calls that failed (the message comes back after its first invisible time). */
  invisibleTimeChangeFailures: number;
  /** Acks or changes the broker answered NO_MESSAGE to (the queue no longer holds the offset). */
  gone: number;
  /** Popped messages dropped by the client-side tag re-check (acked unconsumed). */
  filteredAcks: number;
}

/** A zeroed {@link PopCounters}. */
export function newPopCounters(): PopCounters {
  return {
    acks: 0,
    ackFailures: 0,
    invisibleTimeChanges: 0,
    invisibleTimeChangeFailures: 0,
    gone: 0,
    filteredAcks: 0,
  };
}

/** The progress of the pop loop of one broker group. */
export interface PopBrokerProgress {
  readonly brokerName: string;
  /** The master address popped last, if any. */
  readonly address: string | undefined;
  /** The last pop that completed (any answer), or the loop's start; ms since the epoch. */
  readonly lastProgressMs: number;
  readonly lastError: unknown;
  /** The broker's last `restNum`: messages left in the queues it looked at. */
  readonly restNum: number;
  /** Waiting for a batch to settle before popping more (flow control: the function is the bottleneck). */
  readonly waitingForSlot: boolean;
}

/**
 * A snapshot of a POP consumer.
 */
export interface PopConsumerStatus {
  /** Which consume mode (mapping-consumer.ts). */
  readonly mode: 'POP';
  readonly name: string;
  readonly consumerGroup: string;
  readonly topic: string;
  readonly clientId: string;
  readonly state: ConsumerState;
  /** The fatal error, when `state` is `failed`. */
  readonly error: unknown;
  readonly startedAtMs: number | undefined;
  readonly brokers: readonly PopBrokerProgress[];
  readonly inFlightBatches: number;
  readonly inFlightMessages: number;
  readonly counters: Readonly<ConsumerCounters>;
  readonly popCounters: Readonly<PopCounters>;
}

/**
 * Judges a POP consumer: unhealthy when not running, when it could not consume (consume-state.ts) for
 * longer than its grace, or when a broker's loop has completed no pop for {@link PULL_STALL_MS} without
 * waiting for its batches to settle.
 */
export function assessPopHealth(
  status: PopConsumerStatus,
  nowMs: number,
  consume?: { readonly state: ConsumeState; readonly graceMs: number },
): ConsumerHealth {
  const state = consume?.state;
  const withState = (health: ConsumerHealth): ConsumerHealth =>
    state === undefined ? health : { ...health, state };
  if (status.state !== 'running') {
    const why = status.error === undefined ? '' : `: ${describeError(status.error)}`;
    return withState({ healthy: false, problems: [`consumer is ${status.state}${why}`] });
  }
  const problems: string[] = [];
  const cannotConsume =
    consume === undefined ? undefined : consumeStateProblem(consume.state, consume.graceMs, nowMs);
  if (cannotConsume !== undefined) problems.push(cannotConsume);
  if (
    cannotConsume === undefined &&
    status.brokers.length === 0 &&
    nowMs - (status.startedAtMs ?? nowMs) > PULL_STALL_MS
  ) {
    problems.push(`topic ${status.topic} has no broker to pop from`);
  }
  for (const broker of status.brokers) {
    const idleMs = nowMs - broker.lastProgressMs;
    if (idleMs <= PULL_STALL_MS || broker.waitingForSlot) continue;
    const why = broker.lastError === undefined ? '' : ` (${describeError(broker.lastError)})`;
    problems.push(`broker ${broker.brokerName}: no pop completed for ${Math.round(idleMs / 1000)} s${why}`);
  }
  return withState({ healthy: problems.length === 0, problems });
}
