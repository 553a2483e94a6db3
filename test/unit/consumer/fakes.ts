import type { ConsumeServiceContext } from '../../../src/consumer/consume/consume-service.js';
import { MessageSendBack } from '../../../src/consumer/consume/message-send-back.js';
import type { ConsumerClient } from '../../../src/consumer/consumer-client.js';
import { newConsumerCounters } from '../../../src/consumer/consumer-counters.js';
import { type ConsumerOptions, normalizeConsumerOptions } from '../../../src/consumer/consumer-options.js';
import { TopicRouteTable } from '../../../src/consumer/membership/topic-route-table.js';
import type { ConsumeResult, MessageListener } from '../../../src/consumer/message-listener.js';
import type { ProcessQueue } from '../../../src/consumer/pull/process-queue.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import type { MessageExt } from '../../../src/protocol/message.js';
import { rootLogger } from '../../../src/util/logger.js';

export const queueA = { topic: 'T', brokerName: 'b', queueId: 0 };
export const queueB = { topic: 'T', brokerName: 'b', queueId: 1 };

export function msg(
  queueOffset: number,
  fields: Partial<MessageExt> & { bodyBytes?: number } = {},
): MessageExt {
  const { bodyBytes, ...rest } = fields;
  return {
    topic: 'T',
    queueId: 0,
    queueOffset,
    physicalOffset: 1000 + queueOffset,
    sysFlag: 0,
    flag: 0,
    bornTimestamp: 0,
    bornHost: '127.0.0.1:1',
    storeTimestamp: 0,
    storeHost: '127.0.0.1:2',
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
    bodyCrc: 0,
    storeSize: 0,
    body: Buffer.alloc(bodyBytes ?? 10),
    properties: {},
    offsetMsgId: `o${queueOffset}`,
    msgId: `m${queueOffset}`,
    tags: undefined,
    keys: [],
    ...rest,
  };
}

export const msgs = (from: number, to: number, fields: Partial<MessageExt> = {}) =>
  Array.from({ length: to - from }, (_, i) => msg(from + i, fields));

export function options(overrides: Partial<ConsumerOptions> = {}) {
  return normalizeConsumerOptions({ name: 'm', topic: 'T', consumerGroup: 'G', ...overrides });
}

/** A listener whose batches resolve when the test says so. */
export class ControlledListener implements MessageListener {
  readonly calls: {
    messages: MessageExt[];
    topics: string[];
    /** What the listener got, as it got it. */
    consumed: readonly { message: MessageExt; topic: string }[];
    resolve: (r: ConsumeResult) => void;
    reject: (e: unknown) => void;
    signal: AbortSignal;
  }[] = [];

  consume(
    messages: readonly { message: MessageExt; topic: string }[],
    context: { signal: AbortSignal },
  ): Promise<ConsumeResult> {
    return new Promise((resolve, reject) => {
      this.calls.push({
        messages: messages.map((m) => m.message),
        topics: messages.map((m) => m.topic),
        consumed: messages.slice(),
        resolve,
        reject,
        signal: context.signal,
      });
    });
  }
}

export type SendBackCall = {
  address: string;
  offset: number;
  delayLevel: number;
  originTopic?: string | undefined;
  maxReconsumeTimes?: number | undefined;
};

/** A client whose broker calls are scripted per test. */
export function fakeClient(
  overrides: Partial<ConsumerClient['broker']> = {},
): ConsumerClient & { sendBacks: SendBackCall[] } {
  const sendBacks: SendBackCall[] = [];
  const unexpected = (name: string) => async () => {
    throw new Error(`unexpected ${name}`);
  };
  return {
    clientId: '127.0.0.1@1#me',
    sendBacks,
    nameServer: { getRoute: unexpected('getRoute') },
    requestHandler: {
      onConsumerIdsChanged: () => () => undefined,
      setRunningInfoProvider: () => () => undefined,
    },
    broker: {
      heartbeat: unexpected('heartbeat'),
      unregisterClient: unexpected('unregisterClient'),
      getConsumerListByGroup: unexpected('getConsumerListByGroup'),
      pullMessage: unexpected('pullMessage'),
      consumerSendMsgBack: async (address, header) => {
        sendBacks.push({
          address,
          offset: header.offset,
          delayLevel: header.delayLevel,
          originTopic: header.originTopic,
          maxReconsumeTimes: header.maxReconsumeTimes,
        });
      },
      lockBatchMQ: unexpected('lockBatchMQ'),
      unlockBatchMQ: unexpected('unlockBatchMQ'),
      unlockBatchMQOneway: unexpected('unlockBatchMQOneway'),
      getMaxOffset: unexpected('getMaxOffset'),
      getMinOffset: unexpected('getMinOffset'),
      firstOffsetAtOrAfter: unexpected('firstOffsetAtOrAfter'),
      // The broker keeps no offset of the test groups unless a test says otherwise.
      queryConsumerOffset: async () => undefined,
      queryConsumerOffsetAnswer: async () => ({ offset: undefined, brokerVersion: 479 }),
      getAllConsumerOffset: unexpected('getAllConsumerOffset'),
      checkClientConfig: async () => undefined,
      updateConsumerOffsetOneway: async () => undefined,
      ...overrides,
    },
  };
}

export function serviceContext(
  overrides: Partial<ConsumerOptions>,
  listener: MessageListener,
  client = fakeClient(),
  held: ProcessQueue[] = [],
) {
  const o = options(overrides);
  const offsetStore = new MemoryOffsetStore();
  const fatal: unknown[] = [];
  const context: ConsumeServiceContext = {
    options: o,
    client,
    routes: new TopicRouteTable({ nameServer: client.nameServer, log: rootLogger }),
    offsetStore,
    listener,
    sendBack: new MessageSendBack({
      broker: client.broker,
      masterAddress: () => '127.0.0.1:10911',
      consumerGroup: o.consumerGroup,
      maxReconsumeTimes: o.maxReconsumeTimes,
    }),
    counters: newConsumerCounters(),
    heldQueues: () => held,
    onFatal: (error) => fatal.push(error),
    log: rootLogger,
  };
  return { context, offsetStore, client, fatal };
}
