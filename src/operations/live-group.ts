/**
 * A consumer group as the brokers see it now, not as the offset store last recorded it: the clients
 * connected to the brokers (GET_CONSUMER_CONNECTION_LIST, what `mqadmin consumerConnection` shows) and
 * the queues each one holds (GET_CONSUMER_RUNNING_INFO sent to a broker, which forwards it to the client
 * and relays its answer, what `mqadmin consumerStatus` shows; our pollers answer it from
 * consumer/running-info.ts, a Java consumer answers it too).
 *
 * The offset store only knows who wrote an offset last; this view tells a poller that runs but holds
 * nothing (a topic that does not exist yet, more pollers than queues, a refused subscription) from a
 * poller that holds its queues, and a queue an operator just reset from a queue somebody holds.
 *
 * Which brokers are asked: the masters of the mapping's topic (every consumer heartbeats to the brokers
 * of its topics), else, when the topic has no route, the masters of the group's `%RETRY%<group>` topic
 * (as mqadmin does). Each client's running info is asked with a bound ({@link DEFAULT_RUNNING_INFO_TIMEOUT_MS});
 * a client that does not answer in time is reported as such, never waited for. Read-only, and failures
 * are reported, not thrown.
 */
import type { BrokerAdminClient } from '../client/admin-client.js';
import type { BrokerClient } from '../client/broker-client.js';
import { BrokerError } from '../client/broker-error.js';
import type { NameServerClient } from '../client/name-server-client.js';
import { retryTopicOf } from '../consumer/consumer-options.js';
import type { StoredOffsetRecord } from '../offsets/offset-store.js';
import type { ConsumerConnection } from '../protocol/consumer-connection.js';
import { peerText } from '../protocol/consumer-connection.js';
import { type MessageQueue, messageQueueKey } from '../protocol/message-queue.js';
import { mqVersionName } from '../protocol/mq-version.js';
import { ResponseCode } from '../protocol/response-code.js';
import { masterAddress, type TopicRouteData } from '../protocol/route-data.js';
import { describeError } from '../util/describe-error.js';
import { forEachConcurrently } from '../util/for-each-concurrently.js';
import { type BrokerProblem, brokerProblemOf } from './broker-problem.js';
import { isOperatorWriter } from './operator-writer.js';
import type { TargetMapping } from './target.js';

/** How long one client's running info is waited for (the broker forwards it; the client may be stuck). */
export const DEFAULT_RUNNING_INFO_TIMEOUT_MS = 3000;

/** How long one broker's connection list is waited for. */
export const DEFAULT_CONNECTION_LIST_TIMEOUT_MS = 3000;

/**
 * How many clients of one group are asked for their running info; the others are listed as not asked.
 * A group rarely has more clients than its topic has queues (the extra ones hold nothing).
 */
export const MAX_RUNNING_INFO_CLIENTS = 64;

/** How many running-info requests are in flight at once. */
export const RUNNING_INFO_CONCURRENCY = 8;

/** What {@link readLiveGroup} needs of a client (a `RocketMQClient` has it). */
export interface LiveGroupClient {
  readonly nameServer: Pick<NameServerClient, 'getRoute'>;
  readonly broker: Pick<BrokerClient, 'getConsumerConnectionList'>;
  readonly admin: Pick<BrokerAdminClient, 'getConsumerRunningInfo'>;
}

/** What a client said about the queues it holds. */
export type RunningInfoAnswer =
  | {
      readonly state: 'answered';
      /** The queues it holds (its running info's `mqTable` without the dropped ones), sorted. */
      readonly queues: readonly MessageQueue[];
      /** What it says it is (`userConsumerInfo.clientRuntime`: our pollers name themselves there). */
      readonly runtime: string | undefined;
      /** When its consumer started (PROP_CONSUMER_START_TIMESTAMP), ms since epoch. */
      readonly startedAtMs: number | undefined;
      /**
       * Messages its mapping's filter criteria dropped before the invoke since it started
       * (`userConsumerInfo.filteredOut`: our pollers say it; undefined from other clients).
       */
      readonly filteredOut: number | undefined;
    }
  /** It was asked and did not answer in time, or its broker answered for it with an error. */
  | { readonly state: 'no-answer'; readonly reason: string }
  /** More clients than {@link MAX_RUNNING_INFO_CLIENTS}: this one was not asked. */
  | { readonly state: 'not-asked'; readonly reason: string };

/** One client of the group connected to the brokers. */
export interface LiveClient {
  readonly clientId: string;
  /** Its address as the first broker listing it sees the connection (`ip:port`). */
  readonly clientAddr: string;
  /** What it announces (our pollers announce JAVA: see `runtime` to tell them apart). */
  readonly language: string;
  /** Its version code and the RocketMQ version it names (`401`, `V4_9_4`). */
  readonly version: number;
  readonly versionName: string;
  /** The brokers (addresses) it is connected to, of those asked. */
  readonly brokers: readonly string[];
  readonly runningInfo: RunningInfoAnswer;
}

/** The live group, or why it could not be read. */
export interface LiveGroup {
  readonly consumerGroup: string;
  /** Every client connected to the brokers asked, by client id. */
  readonly clients: readonly LiveClient[];
  /** What the group's heartbeats said (from the first broker that listed a client). */
  readonly consumeType: string | undefined;
  readonly messageModel: string | undefined;
  readonly subscriptions: readonly { readonly topic: string; readonly expression: string }[];
  /** How many brokers were asked, and how many answered (an answer without clients included). */
  readonly brokersAsked: number;
  readonly brokersAnswered: number;
  /** Why no broker, or not every broker, could be asked (undefined: all answered). */
  readonly problem: BrokerProblem | undefined;
}

/** Bounds of {@link readLiveGroup} (tests shorten them). */
export interface LiveGroupOptions {
  readonly runningInfoTimeoutMs?: number | undefined;
  readonly connectionListTimeoutMs?: number | undefined;
  readonly maxRunningInfoClients?: number | undefined;
  /**
   * Ask the clients what they hold. A POP group's clients hold no queue (the broker hands out messages),
   * but our POP pollers answer with their counters (`filteredOut`): `false` lists the clients without asking.
   * @default true
   */
  readonly askRunningInfo?: boolean | undefined;
}

/**
 * Reads the live group of `mapping`'s consumer group (see the file header). Never throws for a broker
 * that cannot be asked or a client that does not answer: the result says so.
 */
export async function readLiveGroup(
  client: LiveGroupClient,
  mapping: Pick<TargetMapping, 'topic' | 'consumerGroup'>,
  options: LiveGroupOptions = {},
): Promise<LiveGroup> {
  const group = mapping.consumerGroup;
  const empty = {
    consumerGroup: group,
    clients: [],
    consumeType: undefined,
    messageModel: undefined,
    subscriptions: [],
    brokersAnswered: 0,
  };
  const found = await brokersOf(client, mapping);
  if ('problem' in found) return { ...empty, brokersAsked: 0, problem: found.problem };
  const { addresses } = found;
  let problem: BrokerProblem | undefined;
  let answered = 0;
  let first: ConsumerConnection | undefined;
  const byId = new Map<string, { entry: ConsumerConnection['connections'][number]; brokers: string[] }>();
  await Promise.all(
    addresses.map(async (address) => {
      try {
        const connection = await client.broker.getConsumerConnectionList(address, group, {
          timeoutMs: options.connectionListTimeoutMs ?? DEFAULT_CONNECTION_LIST_TIMEOUT_MS,
        });
        answered += 1;
        if (connection.connections.length > 0) first ??= connection;
        for (const entry of connection.connections) {
          const known = byId.get(entry.clientId);
          if (known === undefined) byId.set(entry.clientId, { entry, brokers: [address] });
          else known.brokers.push(address);
        }
      } catch (error) {
        // The broker knows no client of the group: an answer, and an empty one.
        if (error instanceof BrokerError && error.code === ResponseCode.CONSUMER_NOT_ONLINE) answered += 1;
        else
          problem ??= brokerProblemOf(error, { what: `the clients of group ${group} at ${address}`, group });
      }
    }),
  );
  const listed = [...byId.values()].sort((a, b) => a.entry.clientId.localeCompare(b.entry.clientId));
  const ask = options.askRunningInfo !== false;
  const limit = ask ? (options.maxRunningInfoClients ?? MAX_RUNNING_INFO_CLIENTS) : 0;
  const answers = new Map<string, RunningInfoAnswer>();
  await forEachConcurrently(listed.slice(0, limit), RUNNING_INFO_CONCURRENCY, async ({ entry, brokers }) => {
    answers.set(
      entry.clientId,
      await askRunningInfo(client, brokers[0] as string, group, entry.clientId, options),
    );
  });
  const clients = listed.map(
    ({ entry, brokers }): LiveClient => ({
      clientId: entry.clientId,
      clientAddr: entry.clientAddr,
      language: entry.language,
      version: entry.version,
      versionName: mqVersionName(entry.version),
      brokers: [...brokers].sort(),
      runningInfo: answers.get(entry.clientId) ?? {
        state: 'not-asked',
        reason: ask
          ? `only the first ${limit} clients of a group are asked`
          : 'a POP consumer holds no queue',
      },
    }),
  );
  return {
    consumerGroup: group,
    clients,
    consumeType: first?.consumeType,
    messageModel: first?.messageModel,
    subscriptions: (first?.subscriptions ?? []).map((s) => ({ topic: s.topic, expression: s.subString })),
    brokersAsked: addresses.length,
    brokersAnswered: answered,
    problem,
  };
}

/** The masters to ask: of the topic's route, else of the group's retry topic's; or why there are none. */
async function brokersOf(
  client: LiveGroupClient,
  mapping: Pick<TargetMapping, 'topic' | 'consumerGroup'>,
): Promise<{ addresses: string[] } | { problem: BrokerProblem }> {
  let route: TopicRouteData;
  try {
    route = await client.nameServer.getRoute(mapping.topic);
  } catch (error) {
    const problem = brokerProblemOf(error, {
      what: `the route of topic ${mapping.topic}`,
      topic: mapping.topic,
    });
    if (problem.kind !== 'topic-missing') return { problem };
    // No topic: its consumers may still be connected to the brokers of their group's retry topic.
    try {
      route = await client.nameServer.getRoute(retryTopicOf(mapping.consumerGroup));
    } catch {
      return { problem };
    }
  }
  const addresses = [
    ...new Set(route.brokerDatas.map(masterAddress).filter((address) => address !== undefined)),
  ].sort();
  if (addresses.length === 0) {
    return {
      problem: { kind: 'no-route', message: `no master address known for the brokers of ${mapping.topic}` },
    };
  }
  return { addresses };
}

async function askRunningInfo(
  client: LiveGroupClient,
  address: string,
  consumerGroup: string,
  clientId: string,
  options: LiveGroupOptions,
): Promise<RunningInfoAnswer> {
  const timeoutMs = options.runningInfoTimeoutMs ?? DEFAULT_RUNNING_INFO_TIMEOUT_MS;
  try {
    const info = await client.admin.getConsumerRunningInfo(
      address,
      { consumerGroup, clientId, jstackEnable: false },
      { timeoutMs },
    );
    const queues = info.mqTable
      .filter(({ info: queueInfo }) => !(isObject(queueInfo) && queueInfo.droped === true))
      .map(({ queue }) => ({
        topic: peerText(queue.topic),
        brokerName: peerText(queue.brokerName),
        queueId: queue.queueId,
      }))
      .sort(compareQueues);
    const runtime = info.userConsumerInfo.clientRuntime;
    const started = Number(info.properties.PROP_CONSUMER_START_TIMESTAMP);
    const filteredOut = Number(info.userConsumerInfo.filteredOut ?? Number.NaN);
    return {
      state: 'answered',
      queues,
      runtime: runtime === undefined ? undefined : peerText(runtime),
      startedAtMs: Number.isSafeInteger(started) && started > 0 ? started : undefined,
      filteredOut: Number.isSafeInteger(filteredOut) && filteredOut >= 0 ? filteredOut : undefined,
    };
  } catch (error) {
    return { state: 'no-answer', reason: peerText(describeError(error)) };
  }
}

/** Queues in the order status lists them: by topic, broker, then id. */
export function compareQueues(a: MessageQueue, b: MessageQueue): number {
  return a.topic.localeCompare(b.topic) || a.brokerName.localeCompare(b.brokerName) || a.queueId - b.queueId;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * Whether every broker asked listed the group's clients: only then does a client missing from the list
 * not run (at least not connected to these brokers).
 */
export function isComplete(live: LiveGroup): boolean {
  return live.brokersAsked > 0 && live.brokersAnswered === live.brokersAsked && live.problem === undefined;
}

/**
 * The clients that say they hold `queue` (usually one; two while a rebalance moves it, every client of
 * a broadcasting group); undefined when not every broker listed the group's clients, or when a client
 * did not answer and none of the others holds the queue (it may be the holder).
 */
export function liveHoldersOf(live: LiveGroup, queue: MessageQueue): string[] | undefined {
  if (!isComplete(live)) return undefined;
  const key = messageQueueKey(queue);
  const holders = live.clients
    .filter(
      (c) =>
        c.runningInfo.state === 'answered' && c.runningInfo.queues.some((q) => messageQueueKey(q) === key),
    )
    .map((c) => c.clientId);
  const unknown = live.clients.some((c) => c.runningInfo.state !== 'answered');
  return holders.length === 0 && unknown ? undefined : holders;
}

/**
 * What the store's last write of a queue was: `commit` (a poller's offset), `release` (a poller handed the
 * queue over, or stopped), `reset` (an operator's `offsets reset`, not yet adopted); undefined without a
 * record, or for a store local to one poller (it names no writer).
 *
 * A reset is written under an operator writer id (operator-writer.ts), so it is recognised whatever runs.
 * A record written before those ids existed (a reset under the command's bare client id) is still read as
 * one when it is released, of a bumped generation, by a client not connected to the group while a
 * connected client holds the queue; otherwise it reads as a release.
 */
export function lastWriteOf(
  record: StoredOffsetRecord | undefined,
  live: LiveGroup | undefined,
  queue: MessageQueue,
): 'commit' | 'release' | 'reset' | undefined {
  if (record === undefined || record.holder === undefined) return undefined;
  if (isOperatorWriter(record.holder)) return 'reset';
  if (!record.released) return 'commit';
  if (
    live !== undefined &&
    isComplete(live) &&
    record.generation > 0 &&
    !live.clients.some((c) => c.clientId === record.holder)
  ) {
    const holders = liveHoldersOf(live, queue) ?? [];
    if (holders.length > 0) return 'reset';
  }
  return 'release';
}

/** Whether a connected client holds nothing: it runs, but consumes nothing (PUSH groups only). */
export function holdsNothing(client: LiveClient): boolean {
  return client.runningInfo.state === 'answered' && client.runningInfo.queues.length === 0;
}
