/**
 * What a mapping's consumer can do right now, named so that an operator knows what to fix: it consumes,
 * it waits as a standby (healthy), or it cannot consume, and why (the topic or the group does not exist,
 * the broker refuses the subscription, or the group's queues all went to other members). A consumer
 * that runs but cannot consume used to read as healthy, with 0 queues held and 0 lag, until a stall
 * threshold of minutes; the state names the topic from the first failed lookup, and the health verdict
 * (consumer-health.ts) turns unhealthy once a cannot-consume state lasted longer than the mapping's
 * `readinessGraceMs` (above a broker restart, ~20 s; well below a minute). docs/operating.md,
 * "Readiness", lists the states.
 *
 * A standby is not a fault: a group with more pollers than queues leaves some of them nothing to hold,
 * and they take over when a holder leaves. Holding nothing while the group has no more members than
 * queues is a fault (`unassigned`): the allocation should have given this poller some.
 */
import { BrokerError } from '../client/broker-error.js';
import { ResponseCode } from '../protocol/response-code.js';
import { describeError } from '../util/describe-error.js';
import type { ConsumerState } from './consumer-status.js';

/**
 * The states, as the `state` label of `rocketmq_lambda_mapping_state` spells them.
 */
export const CONSUME_STATES = [
  'starting',
  'consuming',
  'waiting',
  'topic_missing',
  'group_missing',
  'subscription_refused',
  'unassigned',
  'stopped',
  'failed',
] as const;

/** One of {@link CONSUME_STATES}. */
export type ConsumeStateName = (typeof CONSUME_STATES)[number];

/** The states in which the mapping cannot consume: unhealthy once one lasted longer than the grace. */
export const CANNOT_CONSUME_STATES: ReadonlySet<ConsumeStateName> = new Set<ConsumeStateName>([
  'topic_missing',
  'group_missing',
  'subscription_refused',
  'unassigned',
]);

/**
 * A mapping's state, the sentence that explains it (naming the topic and group) and since when it holds.
 */
export interface ConsumeState {
  readonly state: ConsumeStateName;
  /** Why, in one sentence naming the topic; undefined while consuming. */
  readonly reason: string | undefined;
  /** Since when the facts behind the state hold (ms since the epoch), when known. */
  readonly sinceMs: number | undefined;
}

/** The outcome of the last rebalance that decided the subscribed topic's queues. */
export interface AllocationFacts {
  /** Readable queues of the topic. */
  readonly queues: number;
  /** Members of the group the broker listed (0 in broadcasting: every member holds every queue). */
  readonly members: number;
  /** Whether the broker listed this client among them. */
  readonly listed: boolean;
  /** Queues of the topic the allocation gave this client. */
  readonly assigned: number;
}

/** The progress of one held queue (or, for POP, one broker group popped). */
export interface ProgressFacts {
  /** Last completed pull (or pop), or the loop's start. */
  readonly lastProgressMs: number;
  /** The error of the last failed pull since then, if any. */
  readonly lastError: unknown;
}

/** What {@link assessPushConsumeState} reads of a PUSH consumer. */
export interface PushConsumeFacts {
  readonly lifecycle: ConsumerState;
  readonly topic: string;
  readonly consumerGroup: string;
  readonly startedAtMs: number | undefined;
  /** Whether a route of the topic is known (fetched once at least). */
  readonly routeKnown: boolean;
  /** Readable queues of the known route. */
  readonly readableQueues: number;
  /** Why the last route lookup failed (undefined when it succeeded). */
  readonly routeFailure: unknown;
  /** Since when the route lookups have been failing (undefined when the last succeeded). */
  readonly routeFailingSinceMs: number | undefined;
  /** The last rebalance decision of the topic, if any. */
  readonly allocation: AllocationFacts | undefined;
  /** Why the rebalances since the last decision could not decide (undefined when the last did). */
  readonly decisionError: unknown;
  /** When the last rebalance decided (ms since the epoch). */
  readonly lastDecisionMs: number | undefined;
  /** Since when this client has held none of the topic's queues (undefined while it holds some). */
  readonly holdingNoneSinceMs: number | undefined;
  /** The held queues of the topic (the retry topic's left out). */
  readonly held: readonly ProgressFacts[];
}

/**
 * The state of a PUSH consumer (see the file comment). Held queues come first: a consumer that holds
 * queues consumes unless every one of them fails for one reason the broker keeps giving.
 */
export function assessPushConsumeState(facts: PushConsumeFacts): ConsumeState {
  const lifecycleState = lifecycleConsumeState(facts.lifecycle);
  if (lifecycleState !== undefined) return lifecycleState;
  const { topic, consumerGroup } = facts;
  if (facts.held.length > 0) {
    return heldQueuesState(facts.held, topic, consumerGroup, 'queue') ?? consuming();
  }
  const since = facts.holdingNoneSinceMs ?? facts.startedAtMs;
  if (!facts.routeKnown) return noRouteState(topic, facts.routeFailure, facts.routeFailingSinceMs ?? since);
  if (facts.readableQueues === 0) {
    return { state: 'topic_missing', reason: `topic ${topic} has no readable queue`, sinceMs: since };
  }
  const allocation = facts.allocation;
  if (facts.decisionError !== undefined || allocation === undefined) {
    const why = facts.decisionError === undefined ? 'no rebalance yet' : describeError(facts.decisionError);
    return {
      state: 'unassigned',
      reason: `no queue of topic ${topic} assigned: ${why}`,
      sinceMs: facts.lastDecisionMs ?? since,
    };
  }
  if (!allocation.listed) {
    return {
      state: 'unassigned',
      reason: `the brokers do not list this client in group ${consumerGroup} (${allocation.members} other member(s)): it is given no queue of topic ${topic}`,
      sinceMs: since,
    };
  }
  if (allocation.assigned > 0) {
    return {
      state: 'unassigned',
      reason: `${allocation.assigned} queue(s) of topic ${topic} assigned, none taken yet (waiting for the previous holder to hand over, or the start offset unavailable)`,
      sinceMs: since,
    };
  }
  if (allocation.members > allocation.queues) {
    return {
      state: 'waiting',
      reason: `standby: group ${consumerGroup} has ${allocation.members} members for the ${allocation.queues} queue(s) of topic ${topic}; this one holds none until a holder leaves`,
      sinceMs: since,
    };
  }
  return {
    state: 'unassigned',
    reason: `holds none of the ${allocation.queues} queue(s) of topic ${topic} though group ${consumerGroup} has only ${allocation.members} member(s) (does every member use the same allocateStrategy?)`,
    sinceMs: since,
  };
}

/** What {@link assessPopConsumeState} reads of a POP consumer. */
export interface PopConsumeFacts {
  readonly lifecycle: ConsumerState;
  readonly topic: string;
  readonly consumerGroup: string;
  readonly startedAtMs: number | undefined;
  readonly routeKnown: boolean;
  readonly routeFailure: unknown;
  readonly routeFailingSinceMs: number | undefined;
  /** The pop loop of each broker group serving the topic. */
  readonly brokers: readonly ProgressFacts[];
}

/**
 * The state of a POP consumer: every poller of a POP group pops every queue, so there is no standby;
 * it consumes while it has a broker to pop from that does not refuse it.
 */
export function assessPopConsumeState(facts: PopConsumeFacts): ConsumeState {
  const lifecycleState = lifecycleConsumeState(facts.lifecycle);
  if (lifecycleState !== undefined) return lifecycleState;
  const { topic, consumerGroup } = facts;
  if (facts.brokers.length > 0) {
    return heldQueuesState(facts.brokers, topic, consumerGroup, 'broker') ?? consuming();
  }
  if (!facts.routeKnown) {
    return noRouteState(topic, facts.routeFailure, facts.routeFailingSinceMs ?? facts.startedAtMs);
  }
  return {
    state: 'topic_missing',
    reason: `topic ${topic} has no readable queue on any broker master`,
    sinceMs: facts.routeFailingSinceMs ?? facts.startedAtMs,
  };
}

/**
 * The problem a state makes once it lasted longer than `graceMs` (undefined while it may still heal, or
 * for a state that is not a fault).
 */
export function consumeStateProblem(state: ConsumeState, graceMs: number, nowMs: number): string | undefined {
  if (!CANNOT_CONSUME_STATES.has(state.state)) return undefined;
  const lastedMs = nowMs - (state.sinceMs ?? nowMs);
  if (lastedMs <= graceMs) return undefined;
  return `cannot consume (${state.state}) for ${Math.round(lastedMs / 1000)} s: ${state.reason ?? 'no reason known'}`;
}

/** The error a broker keeps giving that tells what cannot be consumed, classified. */
export function refusalState(
  error: unknown,
): 'topic_missing' | 'group_missing' | 'subscription_refused' | undefined {
  if (!(error instanceof BrokerError)) return undefined;
  switch (error.code) {
    case ResponseCode.TOPIC_NOT_EXIST:
      return 'topic_missing';
    case ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST:
      return 'group_missing';
    case ResponseCode.SUBSCRIPTION_PARSE_FAILED:
    case ResponseCode.SUBSCRIPTION_NOT_EXIST:
    case ResponseCode.SUBSCRIPTION_NOT_LATEST:
    case ResponseCode.FILTER_DATA_NOT_EXIST:
    case ResponseCode.NO_PERMISSION:
      return 'subscription_refused';
    case ResponseCode.SYSTEM_ERROR:
      // A broker without enablePropertyFilter answers every SQL92 pull this way (PullMessageProcessor).
      return /does not support .*filter/i.test(error.remark ?? '') ? 'subscription_refused' : undefined;
    default:
      return undefined;
  }
}

function lifecycleConsumeState(lifecycle: ConsumerState): ConsumeState | undefined {
  switch (lifecycle) {
    case 'running':
      return undefined;
    case 'created':
    case 'starting':
      return { state: 'starting', reason: 'the consumer is starting', sinceMs: undefined };
    case 'failed':
      return { state: 'failed', reason: 'the consumer failed', sinceMs: undefined };
    default:
      return { state: 'stopped', reason: `the consumer is ${lifecycle}`, sinceMs: undefined };
  }
}

function consuming(): ConsumeState {
  return { state: 'consuming', reason: undefined, sinceMs: undefined };
}

/** The topic has no route: missing when the name servers say so, else unknown for another reason. */
function noRouteState(topic: string, failure: unknown, sinceMs: number | undefined): ConsumeState {
  const why = failure === undefined ? 'no route looked up yet' : describeError(failure);
  const missing = failure instanceof BrokerError && failure.code === ResponseCode.TOPIC_NOT_EXIST;
  return {
    state: 'topic_missing',
    reason: missing
      ? `topic ${topic} does not exist (the name servers know no route of it)`
      : `no route of topic ${topic} known: ${why}`,
    sinceMs,
  };
}

/**
 * When every held queue (or popped broker) has been failing with one classified refusal, that state,
 * since the most recent progress of any of them; else undefined (consuming).
 */
function heldQueuesState(
  held: readonly ProgressFacts[],
  topic: string,
  consumerGroup: string,
  what: 'queue' | 'broker',
): ConsumeState | undefined {
  const states = new Set(held.map((queue) => refusalState(queue.lastError)));
  if (states.size !== 1) return undefined;
  const [state] = states;
  if (state === undefined) return undefined;
  const sinceMs = Math.max(...held.map((queue) => queue.lastProgressMs));
  const error = describeError(held[0]?.lastError);
  const scope = what === 'queue' ? `every held queue of topic ${topic}` : `every broker of topic ${topic}`;
  const reasons = {
    topic_missing: `the brokers do not have topic ${topic}: ${scope} fails (${error})`,
    group_missing: `the brokers do not have subscription group ${consumerGroup} (create it, or enable autoCreateSubscriptionGroup): ${scope} fails (${error})`,
    subscription_refused: `the brokers refuse the subscription of group ${consumerGroup} to topic ${topic}: ${scope} fails (${error})`,
  } as const;
  return { state, reason: reasons[state], sinceMs };
}
