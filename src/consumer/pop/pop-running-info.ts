/**
 * A POP poller's answer to GET_CONSUMER_RUNNING_INFO (running-info.ts gives the pull consumer's): it holds
 * no queue (the broker hands out messages), so its table of queues is empty; what it says is who it is and
 * its counters, `filteredOut` included, which `status` sums per group (operations/live-group.ts).
 */
import type { ConsumerRunningInfo, HeartbeatSubscription } from '../../protocol/bodies.js';
import { CLIENT_VERSION } from '../../protocol/remoting-command.js';
import { clientVersionName, runningCounters } from '../running-info.js';
import type { PopConsumerStatus } from './pop-status.js';

/** ConsumerRunningInfo of a POP consumer (Java property and field names; `mqTable` empty). */
export function buildPopRunningInfo(
  status: PopConsumerStatus,
  subscriptions: readonly HeartbeatSubscription[],
  facts: { maxConcurrency: number },
): ConsumerRunningInfo {
  const c = status.counters;
  return {
    properties: {
      PROP_CONSUME_TYPE: 'CONSUME_POP',
      PROP_CONSUMEORDERLY: 'false',
      PROP_THREADPOOL_CORE_SIZE: String(facts.maxConcurrency),
      PROP_CLIENT_VERSION: clientVersionName(CLIENT_VERSION),
      PROP_CONSUMER_START_TIMESTAMP: String(status.startedAtMs ?? 0),
    },
    subscriptionSet: subscriptions,
    mqTable: [],
    ...runningCounters(status.topic, c, {
      mapping: status.name,
      state: status.state,
      inFlightBatches: status.inFlightBatches,
      pendingMessages: status.inFlightMessages,
    }),
  };
}
