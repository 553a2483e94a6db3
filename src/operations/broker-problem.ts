/**
 * Why the brokers could not tell an operation what it asked, named as what it is. A topic no name server
 * knows is not an unreachable broker, and an operator fixes the two differently (create the topic; look
 * at the network): `status` printed both as "broker unreachable" before.
 */
import { BrokerError } from '../client/broker-error.js';
import { NoBrokerAddressError } from '../client/no-broker-address-error.js';
import { NoMasterError } from '../client/no-master-error.js';
import { ProtocolError } from '../protocol/errors.js';
import { ResponseCode } from '../protocol/response-code.js';
import { describeError } from '../util/describe-error.js';

/**
 * - `topic-missing`: TOPIC_NOT_EXIST (no name server knows the topic, or the broker does not have it);
 * - `group-missing`: SUBSCRIPTION_GROUP_NOT_EXIST (the broker knows no such consumer group);
 * - `no-route`: the route names a broker group without a (master) address;
 * - `refused`: NO_PERMISSION (ACL, or a topic or broker made unreadable);
 * - `failed`: the broker answered with another error code, or an answer that cannot be read;
 * - `unreachable`: no answer at all (connection refused or closed, a timeout).
 */
export type BrokerProblemKind =
  | 'topic-missing'
  | 'group-missing'
  | 'no-route'
  | 'refused'
  | 'failed'
  | 'unreachable';

/** A named problem: `message` is the sentence without its label (see {@link brokerProblemLine}). */
export interface BrokerProblem {
  readonly kind: BrokerProblemKind;
  readonly message: string;
}

/**
 * Names `error`, met while reading `what` (e.g. `the route of topic Orders`); `topic` and `group` are the
 * names a missing topic or group is reported by.
 */
export function brokerProblemOf(
  error: unknown,
  context: { what: string; topic?: string | undefined; group?: string | undefined },
): BrokerProblem {
  const detail = `${context.what}: ${describeError(error)}`;
  if (error instanceof BrokerError) {
    switch (error.code) {
      case ResponseCode.TOPIC_NOT_EXIST:
        return {
          kind: 'topic-missing',
          message:
            context.topic === undefined
              ? detail
              : `topic ${context.topic} does not exist (said ${error.address})`,
        };
      case ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST:
        return {
          kind: 'group-missing',
          message:
            context.group === undefined
              ? detail
              : `consumer group ${context.group} does not exist (said ${error.address})`,
        };
      case ResponseCode.NO_PERMISSION:
        return { kind: 'refused', message: detail };
      default:
        return { kind: 'failed', message: detail };
    }
  }
  if (error instanceof NoMasterError || error instanceof NoBrokerAddressError) {
    return { kind: 'no-route', message: detail };
  }
  if (error instanceof ProtocolError) return { kind: 'failed', message: detail };
  // What is left comes from the network layer: a connection refused, reset or closed, a timeout.
  return { kind: 'unreachable', message: detail };
}

/**
 * The line an operator reads: the missing topic or group as a sentence of its own, the other kinds
 * after a label. An unknown kind (a reader that only kept the text) reads as before: unreachable.
 */
export function brokerProblemLine(message: string, kind: BrokerProblemKind | undefined): string {
  switch (kind) {
    case 'topic-missing':
    case 'group-missing':
      return message;
    case 'no-route':
      return `no route: ${message}`;
    case 'refused':
      return `refused by the broker: ${message}`;
    case 'failed':
      return `broker error: ${message}`;
    default:
      return `broker unreachable: ${message}`;
  }
}
