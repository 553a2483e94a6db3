/**
 * Which pollers of a consumer group run, as the brokers know them (GET_CONSUMER_LIST_BY_GROUP): a file
 * store must not be reset under a running poller, and a POP group's pollers share its backlog.
 */
import type { BrokerClient } from '../client/broker-client.js';
import { BrokerError } from '../client/broker-error.js';
import { ResponseCode } from '../protocol/response-code.js';
import { describeError } from '../util/describe-error.js';

/**
 * The client ids of the group's consumers the brokers at `addresses` know (any broker of the topic
 * answers for the group), or the reason none could be asked.
 */
export async function runningPollers(
  broker: Pick<BrokerClient, 'getConsumerListByGroup'>,
  consumerGroup: string,
  addresses: readonly string[],
): Promise<{ ids: string[] } | { unknown: string }> {
  const ids = new Set<string>();
  let failure: unknown;
  let answered = false;
  for (const address of addresses) {
    try {
      for (const id of await broker.getConsumerListByGroup(address, consumerGroup)) ids.add(id);
      answered = true;
    } catch (error) {
      // A broker that knows no consumer of the group answers SYSTEM_ERROR (its only refusal of this request).
      if (error instanceof BrokerError && error.code === ResponseCode.SYSTEM_ERROR) answered = true;
      else failure = error;
    }
  }
  return answered ? { ids: [...ids] } : { unknown: describeError(failure) };
}
