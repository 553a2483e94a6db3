import { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import type { PullMessageRequestHeader } from '../../../src/protocol/headers.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import { buildPullSysFlag } from '../../../src/protocol/pull-sys-flag.js';
import { testBroker } from '../../support/broker.js';
import { waitFor } from '../../support/wait-for.js';

// The tests import the shared wait from here with the other client helpers.
export { waitFor };

/** A client of the test broker; closed by the caller (use `onTestFinished`). */
export function newClient(options: { nameServerAddresses?: string[] } = {}): RocketMQClient {
  return new RocketMQClient({
    nameServerAddresses: options.nameServerAddresses ?? [testBroker().namesrvAddr],
  });
}

/**
 * A fixed pause, for what is a length of time in itself: a producer's pace, a retry's delay, how long
 * an injected fault lasts. Waiting for something to happen is `waitFor`; watching that nothing more
 * happens is `expectQuietFor` (test/support/quiet-window.ts).
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Creates a topic with `queues` read/write queues and waits until the name server routes it. */
export async function createTopic(client: RocketMQClient, topic: string, queues: number): Promise<void> {
  await client.admin.createTopic(testBroker().brokerAddr, { topic, readQueueNums: queues });
  await waitFor(`route of ${topic}`, 15_000, async () => {
    const route = await client.nameServer.getRoute(topic, { refresh: true });
    return route.queueDatas[0]?.writeQueueNums === queues ? route : undefined;
  });
}

/** A pull header with Java's defaults; SUBSCRIPTION bit set unless `subscription` is null. */
export function pullHeader(options: {
  group: string;
  topic: string;
  queueId: number;
  queueOffset: number;
  suspend?: boolean;
  subscription?: string | null;
  expressionType?: 'TAG' | 'SQL92';
  subVersion?: number;
  maxMsgNums?: number;
}): PullMessageRequestHeader {
  const withSubscription = options.subscription !== null;
  return {
    consumerGroup: options.group,
    topic: options.topic,
    queueId: options.queueId,
    queueOffset: options.queueOffset,
    maxMsgNums: options.maxMsgNums ?? 32,
    sysFlag: buildPullSysFlag({ suspend: options.suspend ?? false, subscription: withSubscription }),
    commitOffset: 0,
    suspendTimeoutMillis: 15_000,
    subscription: withSubscription ? (options.subscription ?? '*') : undefined,
    expressionType: options.expressionType ?? 'TAG',
    subVersion: options.subVersion ?? 0,
    bname: testBroker().brokerName,
  };
}

/**
 * Pulls one queue from `fromOffset` (no long polling) until `count` messages arrived and the queue is read
 * to its end, or `timeoutMs` passed. A pull that fails (a topic not created yet) counts as "not yet".
 */
export async function pullMessages(
  client: RocketMQClient,
  options: {
    group: string;
    topic: string;
    queueId: number;
    count: number;
    fromOffset?: number;
    subscription?: string | null;
    expressionType?: 'TAG' | 'SQL92';
    subVersion?: number;
    timeoutMs?: number;
  },
): Promise<MessageExt[]> {
  const { brokerAddr } = testBroker();
  const messages: MessageExt[] = [];
  let offset = options.fromOffset ?? 0;
  const pulled = await waitFor(
    `${options.count} messages from ${options.topic}#${options.queueId}`,
    options.timeoutMs ?? 15_000,
    async () => {
      // Back to back while messages come; "not yet" (the next try after a pause) once a pull finds none.
      for (;;) {
        const result = await client.broker.pullMessage(
          brokerAddr,
          pullHeader({ ...options, queueOffset: offset }),
        );
        if (result.status === 'FOUND') {
          // Returned, not thrown: a thrown error would only mean "not yet".
          if (result.decodeError) return { decodeError: result.decodeError };
          messages.push(...result.messages);
        }
        const atEnd = result.nextBeginOffset >= result.maxOffset;
        offset = result.nextBeginOffset;
        if (messages.length >= options.count && atEnd) return { messages };
        if (result.status !== 'FOUND') {
          throw new Error(`pulled ${messages.length} of ${options.count} messages (last ${result.status})`);
        }
      }
    },
  );
  if ('decodeError' in pulled) throw pulled.decodeError;
  return pulled.messages;
}
