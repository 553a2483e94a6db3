import type { MessageExt } from '../../../src/protocol/message.js';

/**
 * A dead letter as a 5.3.3 broker stores it after CONSUMER_SEND_MSG_BACK (properties as seen on the
 * real broker: RETRY_TOPIC, ORIGIN_MESSAGE_ID, DELAY, WAIT, CLUSTER, ... beside the user's).
 */
export function deadLetter(offset: number, overrides: Partial<MessageExt> = {}): MessageExt {
  const msgId = `C0A8000100002A9F0000000000${String(offset).padStart(6, '0')}`;
  return {
    topic: '%DLQ%G',
    queueId: 0,
    queueOffset: offset,
    physicalOffset: 1000 + offset,
    sysFlag: 0,
    flag: 0,
    bornTimestamp: 1_764_583_200_000,
    bornHost: '127.0.0.1:50000',
    storeTimestamp: 1_764_583_260_000 + offset,
    storeHost: '127.0.0.1:10911',
    reconsumeTimes: 1,
    preparedTransactionOffset: 0,
    bodyCrc: 0,
    storeSize: 300,
    body: Buffer.from(`{"order":${offset}}`),
    properties: {
      ORIGIN_MESSAGE_ID: `7F00000100002A9F00000000000000${String(offset).padStart(2, '0')}`,
      RETRY_TOPIC: 'Orders',
      MSG_REGION: 'DefaultRegion',
      UNIQ_KEY: msgId,
      CLUSTER: 'DefaultCluster',
      DELAY: '0',
      TAGS: 'created',
      KEYS: `order-${offset} x`,
      WAIT: 'false',
      TRACE_ON: 'true',
      REAL_TOPIC: '%RETRY%G',
      REAL_QID: '0',
      RECONSUME_TIME: '1',
      MAX_RECONSUME_TIMES: '3',
      tenant: 't1',
    },
    offsetMsgId: `7F00000100002A9F00000000000010${String(offset).padStart(2, '0')}`,
    msgId,
    tags: 'created',
    keys: [`order-${offset}`, 'x'],
    ...overrides,
  };
}

/**
 * What describeDeadLetter reads of the origin and identity of a {@link deadLetter}: the fields its view
 * and the view's JSON line both carry.
 */
export function deadLetterIdentity(message: MessageExt) {
  return {
    msgId: message.msgId,
    offsetMsgId: message.offsetMsgId,
    originalTopic: 'Orders',
    originalMsgId: message.properties.ORIGIN_MESSAGE_ID,
    reconsumeTimes: 1,
    storeTimestamp: message.storeTimestamp,
  };
}
