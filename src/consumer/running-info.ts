/**
 * Our answer to GET_CONSUMER_RUNNING_INFO (docs/protocol.md, "Requests the broker sends us"), built
 * from a runtime status: what `mqadmin consumerStatus` and the dashboard show for a Java consumer.
 */
import type { ConsumerRunningInfo, HeartbeatSubscription } from '../protocol/bodies.js';
import { mqVersionName } from '../protocol/mq-version.js';
import { CLIENT_VERSION } from '../protocol/remoting-command.js';
import { buildInfo } from '../util/build-info.js';
import type { ConsumerCounters } from './consumer-counters.js';
import type { ConsumerRuntimeStatus } from './consumer-status.js';

const MiB = 1024 * 1024;

/**
 * Names of the `MQVersion.Version` constants we may announce as request version (the enum's ordinal is
 * the wire value). Java clients put the name, not the number, in `PROP_CLIENT_VERSION`, and
 * `mqadmin consumerConnection` prints the same name in its `#Version` column.
 */
/**
 * The `MQVersion.Version` name of a request version, as mqadmin prints it (`401` → `V4_9_4`).
 */
export function clientVersionName(version: number = CLIENT_VERSION): string {
  return mqVersionName(version);
}

/**
 * What `#User Consume Info` says we are: the language column of `mqadmin consumerConnection` reads
 * JAVA, because we announce JAVA on the wire (see CLIENT_LANGUAGE), so an operator needs this line to
 * tell a poller from a Java consumer.
 */
export const CLIENT_RUNTIME = `rocketmq-lambda ${buildInfo().version} on Node.js ${process.version}`;

/**
 * Builds ConsumerRunningInfo (Java property and `ProcessQueueInfo` field names).
 */
export function buildRunningInfo(
  status: ConsumerRuntimeStatus,
  subscriptions: readonly HeartbeatSubscription[],
  facts: { orderly: boolean; maxConcurrency: number; nameServer?: string | undefined },
): ConsumerRunningInfo {
  const c = status.counters;
  const { statusTable, userConsumerInfo } = runningCounters(status.topic, c, {
    mapping: status.name,
    state: status.state,
    inFlightBatches: status.inFlightBatches,
    pendingMessages: status.pendingMessages,
  });
  return {
    properties: {
      PROP_CONSUME_TYPE: 'CONSUME_PASSIVELY',
      PROP_CONSUMEORDERLY: String(facts.orderly),
      PROP_THREADPOOL_CORE_SIZE: String(facts.maxConcurrency),
      PROP_CLIENT_VERSION: clientVersionName(CLIENT_VERSION),
      PROP_CONSUMER_START_TIMESTAMP: String(status.startedAtMs ?? 0),
      ...(facts.nameServer === undefined ? {} : { PROP_NAMESERVER_ADDR: facts.nameServer }),
    },
    subscriptionSet: subscriptions,
    mqTable: status.queues.map((q) => ({
      queue: q.queue,
      info: {
        commitOffset: q.committedOffset,
        cachedMsgMinOffset: q.cachedMinOffset ?? 0,
        cachedMsgMaxOffset: q.cachedMaxOffset ?? 0,
        cachedMsgCount: q.cachedMessageCount,
        cachedMsgSizeInMiB: Math.floor(q.cachedMessageBytes / MiB),
        transactionMsgMinOffset: 0,
        transactionMsgMaxOffset: 0,
        transactionMsgCount: 0,
        locked: q.locked,
        tryUnlockTimes: 0,
        lastLockTimestamp: q.lastLockTimestampMs,
        droped: q.dropped,
        lastPullTimestamp: q.lastPullTimestampMs,
        lastConsumeTimestamp: q.lastConsumeTimestampMs,
      },
    })),
    statusTable,
    // The pull consumer's own counter after the ones every consumer reports.
    userConsumerInfo: { ...userConsumerInfo, offsetMovedBackwards: String(c.offsetMovedBackwards) },
  };
}

/**
 * `statusTable` and `userConsumerInfo` of a ConsumerRunningInfo, as every consumer (pull and POP) reports
 * them: the failed count in Java's per-topic stats (we keep no rates: 0), and in `userConsumerInfo` who we
 * are, the mapping's state, its in-flight work and its counters.
 */
export function runningCounters(
  topic: string,
  counters: Readonly<Pick<ConsumerCounters, 'consumedOk' | 'consumedFailed' | 'sentBack' | 'filteredOut'>>,
  mapping: { mapping: string; state: string; inFlightBatches: number; pendingMessages: number },
): Required<Pick<ConsumerRunningInfo, 'statusTable' | 'userConsumerInfo'>> {
  return {
    statusTable: {
      [topic]: {
        pullRT: 0,
        pullTPS: 0,
        consumeRT: 0,
        consumeOKTPS: 0,
        consumeFailedTPS: 0,
        consumeFailedMsgs: counters.consumedFailed,
      },
    },
    userConsumerInfo: {
      clientRuntime: CLIENT_RUNTIME,
      mapping: mapping.mapping,
      state: mapping.state,
      inFlightBatches: String(mapping.inFlightBatches),
      pendingMessages: String(mapping.pendingMessages),
      consumedOk: String(counters.consumedOk),
      consumedFailed: String(counters.consumedFailed),
      sentBack: String(counters.sentBack),
      filteredOut: String(counters.filteredOut),
    },
  };
}
