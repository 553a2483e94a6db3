/**
 * Reading the group's committed offset from a broker's answers, across versions (docs/protocol.md,
 * "Broker versions"). A 5.x broker answers QUERY_CONSUMER_OFFSET with `setZeroIfNotFound: false`
 * exactly: an offset, or QUERY_NOT_FOUND. A 4.x broker ignores that flag and answers 0 for a group
 * without an offset while the queue still starts at 0 in memory, the same bytes as a committed 0. Its
 * GET_ALL_CONSUMER_OFFSET table then settles it: a committed 0 has an entry, "no offset" has none.
 */
import type { BrokerClient, ConsumerOffsetAnswer } from '../../client/broker-client.js';
import { BrokerError } from '../../client/broker-error.js';
import { type ConsumerOffsetTable, committedOffsetOf } from '../../protocol/consumer-offset-table.js';
import type { MessageQueue } from '../../protocol/message-queue.js';
import { isVersionCodeBefore5 } from '../../protocol/mq-version.js';
import { ResponseCode } from '../../protocol/response-code.js';

/**
 * What a QUERY_CONSUMER_OFFSET answer says on its own.
 */
export type ConsumerOffsetReading =
  | { kind: 'none' }
  | { kind: 'committed'; offset: number }
  /** 0 from a broker before 5.0: a committed 0, or no offset at all. */
  | { kind: 'ambiguous-zero' };

/**
 * Classifies an answer. A 0 from a broker whose version code is unknown (0) counts as committed: only
 * a broker known to be older than 5.0 is doubted.
 */
export function readConsumerOffsetAnswer(answer: ConsumerOffsetAnswer): ConsumerOffsetReading {
  const { offset, brokerVersion } = answer;
  if (offset === undefined || !Number.isSafeInteger(offset) || offset < 0) return { kind: 'none' };
  if (offset === 0 && isVersionCodeBefore5(brokerVersion)) return { kind: 'ambiguous-zero' };
  return { kind: 'committed', offset };
}

/**
 * Settles an ambiguous 0 with the broker's offset table: the group's entry for the queue if it has
 * one, else undefined (no offset). Without a table (the broker could not be asked) it stays 0, what
 * Java's consumer starts at on 4.x: a new group may then consume a young queue from its start (more
 * messages), where reading a committed 0 as "none" would skip messages.
 */
export function settleAmbiguousZero(
  table: ConsumerOffsetTable | undefined,
  consumerGroup: string,
  queue: MessageQueue,
): number | undefined {
  if (table === undefined) return 0;
  return committedOffsetOf(table, consumerGroup, queue.topic, queue.queueId);
}

/**
 * Reads a group's committed offsets from the brokers, one queue at a time: the answer classified, a 4.x
 * broker's ambiguous 0 settled with its offset table (asked once per broker and kept: make one reader
 * per operation). A broker that does not know the group has no offset of it.
 */
export class BrokerCommittedOffsets {
  readonly #tables = new Map<string, Promise<ConsumerOffsetTable | undefined>>();

  constructor(
    private readonly broker: Pick<BrokerClient, 'queryConsumerOffsetAnswer' | 'getAllConsumerOffset'>,
    private readonly consumerGroup: string,
  ) {}

  /** The group's committed offset of `queue` at the master `address`; undefined when it has none. */
  async read(address: string, queue: MessageQueue): Promise<number | undefined> {
    let answer: ConsumerOffsetAnswer;
    try {
      answer = await this.broker.queryConsumerOffsetAnswer(address, {
        consumerGroup: this.consumerGroup,
        topic: queue.topic,
        queueId: queue.queueId,
        setZeroIfNotFound: false,
        bname: queue.brokerName,
      });
    } catch (error) {
      if (error instanceof BrokerError && error.code === ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST) {
        return undefined;
      }
      throw error;
    }
    const reading = readConsumerOffsetAnswer(answer);
    switch (reading.kind) {
      case 'none':
        return undefined;
      case 'committed':
        return reading.offset;
      case 'ambiguous-zero': {
        let table = this.#tables.get(address);
        if (table === undefined) {
          table = this.broker.getAllConsumerOffset(address).catch(() => undefined);
          this.#tables.set(address, table);
        }
        return settleAmbiguousZero(await table, this.consumerGroup, queue);
      }
    }
  }
}
