/**
 * What the `ours-function-worker` experiment sends to its worker thread per batch, and how both sides
 * read it: the batch's stored records copied into one transferable buffer (a pull body's neighbouring
 * records in one copy) and, per message, where it was read (topic, broker, queue) and its
 * `reconsumeTimes` (a local retry raises it after decoding).
 */

import type { ConsumedMessage, ConsumeResult } from '../src/consumer/message-listener.js';
import { storedRecordOf } from '../src/protocol/decoded-message.js';
import type { MessageExt } from '../src/protocol/message.js';
import { decodeMessages } from '../src/protocol/message-decoder.js';

/**
 * One batch on its way to the worker.
 *
 * @example
 * ```ts
 * const batch = packBatch(7, messages);
 * worker.postMessage(batch, [batch.records]);
 * ```
 */
export interface WorkerBatch {
  readonly id: number;
  /** The stored records, in batch order. */
  readonly records: ArrayBuffer;
  /**
   * The distinct topics and broker names of the batch; `topicOf` (the message's real topic),
   * `queueTopicOf` (the topic of the queue it was read from: a retry topic for a redelivery) and
   * `brokerOf` index them.
   */
  readonly names: readonly string[];
  readonly topicOf: Uint16Array;
  readonly queueTopicOf: Uint16Array;
  readonly brokerOf: Uint16Array;
  readonly queueIds: Int32Array;
  readonly reconsumeTimes: Int32Array;
  /** How many copies packing made: one per run of neighbouring records of a pull body. */
  readonly copies: number;
}

/**
 * The worker's answer to batch `id`: the listener's result, or why it threw (`fatal` as InvokeError has it).
 *
 * @example
 * ```ts
 * const reply: WorkerReply = { id: 7, result: { status: 'SUCCESS' } };
 * ```
 */
export type WorkerReply =
  | { readonly id: number; readonly result: ConsumeResult }
  | { readonly id: number; readonly error: string; readonly fatal: boolean };

/**
 * Packs `messages` for the worker. Throws for a message that keeps no stored record (a compressed body):
 * the experiment's backlog has none.
 *
 * @example
 * ```ts
 * const batch = packBatch(nextId++, messages);
 * ```
 */
export function packBatch(id: number, messages: readonly ConsumedMessage[]): WorkerBatch {
  const count = messages.length;
  const names: string[] = [];
  const nameIndex = (name: string): number => {
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return index;
  };
  const topicOf = new Uint16Array(count);
  const queueTopicOf = new Uint16Array(count);
  const brokerOf = new Uint16Array(count);
  const queueIds = new Int32Array(count);
  const reconsumeTimes = new Int32Array(count);
  // Runs of neighbouring records of one pull body: [view of the first, byte length of the run].
  const runs: [Buffer, number][] = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    const consumed = messages[i] as ConsumedMessage;
    const record = storedRecordOf(consumed.message);
    if (record === undefined) {
      throw new Error(`message ${consumed.message.msgId} keeps no stored record (a compressed body?)`);
    }
    const last = runs[runs.length - 1];
    if (
      last !== undefined &&
      last[0].buffer === record.buffer &&
      last[0].byteOffset + last[1] === record.byteOffset
    ) {
      last[1] += record.length;
    } else {
      runs.push([record, record.length]);
    }
    total += record.length;
    topicOf[i] = nameIndex(consumed.topic);
    queueTopicOf[i] = nameIndex(consumed.queue.topic);
    brokerOf[i] = nameIndex(consumed.queue.brokerName);
    queueIds[i] = consumed.queue.queueId;
    reconsumeTimes[i] = consumed.message.reconsumeTimes;
  }
  // Its own ArrayBuffer (never the pool's), so that it can be transferred.
  const records = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const [first, length] of runs) {
    records.set(new Uint8Array(first.buffer, first.byteOffset, length), at);
    at += length;
  }
  return {
    id,
    records: records.buffer as ArrayBuffer,
    names,
    topicOf,
    queueTopicOf,
    brokerOf,
    queueIds,
    reconsumeTimes,
    copies: runs.length,
  };
}

/**
 * The consumed messages of a batch, decoded again in the worker. Throws when the records do not decode
 * to exactly the batch's messages.
 *
 * @example
 * ```ts
 * const messages = unpackBatch(batch);
 * ```
 */
export function unpackBatch(batch: WorkerBatch): ConsumedMessage[] {
  const { messages, error } = decodeMessages(Buffer.from(batch.records));
  if (error !== undefined) throw error;
  if (messages.length !== batch.queueIds.length) {
    throw new Error(`${messages.length} messages decoded, ${batch.queueIds.length} sent`);
  }
  return messages.map((message: MessageExt, i) => {
    message.reconsumeTimes = batch.reconsumeTimes[i] as number;
    return {
      message,
      topic: batch.names[batch.topicOf[i] as number] as string,
      queue: {
        topic: batch.names[batch.queueTopicOf[i] as number] as string,
        brokerName: batch.names[batch.brokerOf[i] as number] as string,
        queueId: batch.queueIds[i] as number,
      },
    };
  });
}
