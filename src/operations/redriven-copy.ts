/**
 * The mark a redrive puts on every message it sends, and the search for the copy of one dead letter in
 * the topic it was sent to: how a redrive that was killed (SIGKILL, a crash, a lost connection) between a
 * send and the save of the redrive position learns, on its next run, whether that one message arrived.
 *
 * Every redriven message carries the user property `REDRIVEN_FROM` = `<DLQ topic>/<broker>/<queueId>/<DLQ
 * offset>` of its dead letter. Sends of one redrive are sequential and each waits for the broker's answer,
 * so in every queue of the target topic the copies of one DLQ queue follow each other in DLQ offset order.
 * Searching for the copy of dead letter #P therefore reads each target queue backwards from its end and
 * stops at the first of:
 *   - the copy of #P (it was sent: found);
 *   - a copy of an earlier dead letter of the same DLQ queue (#P would be after it: not in this queue);
 *   - a message stored before #P was dead-lettered (minus {@link CLOCK_SKEW_MS} for brokers' clocks): the
 *     copy cannot be older than its dead letter;
 *   - the queue's first message.
 * Copies a consumer sent back after a failure (reconsume times above 0, or `ORIGIN_MESSAGE_ID` set)
 * carry the mark too but are not the redrive's sends; they are read past. The search reads at most
 * {@link COPY_SEARCH_MAX_MESSAGES} messages and then gives up loudly (the caller names both ways out),
 * rather than guess.
 */
import { BrokerError } from '../client/broker-error.js';
import type { QueueReader } from '../client/queue-reader.js';
import { MessageConst, type MessageExt } from '../protocol/message.js';
import type { MessageQueue } from '../protocol/message-queue.js';
import { ResponseCode } from '../protocol/response-code.js';
import { OperationError } from './operation-error.js';

/** The user property naming the dead letter a redriven message was sent for. */
export const REDRIVEN_FROM_PROPERTY = 'REDRIVEN_FROM';

/** Most messages one search reads (over every queue of the target topic) before it gives up. */
export const COPY_SEARCH_MAX_MESSAGES = 100_000;

/** How much older than its dead letter a copy may look, for brokers whose clocks disagree. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** Messages per read of the search. */
const SEARCH_PAGE = 256;

/** The {@link REDRIVEN_FROM_PROPERTY} value of the copy of the dead letter at `offset` of `queue`. */
export function redrivenFromValue(queue: MessageQueue, offset: number): string {
  return `${sourcePrefix(queue)}${offset}`;
}

/** The DLQ queue part of a {@link REDRIVEN_FROM_PROPERTY} value (everything but the offset). */
function sourcePrefix(queue: MessageQueue): string {
  return `${queue.topic}/${queue.brokerName}/${queue.queueId}/`;
}

/** The copy found by {@link findRedrivenCopy}. */
export interface RedrivenCopy {
  readonly queue: MessageQueue;
  readonly queueOffset: number;
  /** The copy's msgId (UNIQ_KEY). */
  readonly msgId: string;
}

/** Thrown when the search read {@link COPY_SEARCH_MAX_MESSAGES} messages without an answer. */
export class CopySearchLimitError extends OperationError {
  constructor(message: string) {
    super('refused', message);
    this.name = 'CopySearchLimitError';
  }
}

/** What a search reads with (a {@link QueueReader} has it). */
export type CopySearchReader = Pick<QueueReader, 'queues' | 'read'>;

/**
 * Looks for the copy of the dead letter at `offset` of `source` in `topic` (see the file header);
 * undefined when it is not there. `deadLetteredAt` is the dead letter's store timestamp.
 */
export async function findRedrivenCopy(
  reader: CopySearchReader,
  topic: string,
  source: MessageQueue,
  offset: number,
  deadLetteredAt: number,
  maxMessages = COPY_SEARCH_MAX_MESSAGES,
): Promise<RedrivenCopy | undefined> {
  const prefix = sourcePrefix(source);
  const notBefore = deadLetteredAt - CLOCK_SKEW_MS;
  let scanned = 0;
  for (const { queue, readable } of await targetQueues(reader, topic)) {
    if (!readable) continue;
    const bounds = await reader.read(queue, 0, { maxMessages: 1 });
    let end = bounds.maxOffset;
    scan: while (end > bounds.minOffset) {
      const start = Math.max(bounds.minOffset, end - SEARCH_PAGE);
      const page = await readRange(reader, queue, start, end);
      for (let i = page.length - 1; i >= 0; i--) {
        const message = page[i] as MessageExt;
        if (++scanned > maxMessages) {
          throw new CopySearchLimitError(
            `read ${maxMessages} messages of ${topic} back from its end without finding whether dead letter #${offset} of ${source.topic} on ${source.brokerName}#${source.queueId} was already sent`,
          );
        }
        if (message.storeTimestamp < notBefore) break scan;
        const mark = message.properties[REDRIVEN_FROM_PROPERTY];
        if (mark === undefined || !mark.startsWith(prefix) || !isRedriveSend(message)) continue;
        const copyOf = Number(mark.slice(prefix.length));
        if (copyOf === offset) return { queue, queueOffset: message.queueOffset, msgId: message.msgId };
        if (copyOf < offset) break scan;
      }
      end = start;
    }
  }
  return undefined;
}

/** The topic's queues; none when the topic does not exist (then nothing was sent to it). */
async function targetQueues(reader: CopySearchReader, topic: string) {
  try {
    return await reader.queues(topic);
  } catch (error) {
    if (error instanceof BrokerError && error.code === ResponseCode.TOPIC_NOT_EXIST) return [];
    throw error;
  }
}

/** A message a redrive sent, not a consumer's send-back of one (which keeps its properties). */
function isRedriveSend(message: MessageExt): boolean {
  return message.reconsumeTimes === 0 && message.properties[MessageConst.ORIGIN_MESSAGE_ID] === undefined;
}

/** The messages of `queue` in `[start, end)`, in offset order (a read may answer with fewer). */
async function readRange(
  reader: CopySearchReader,
  queue: MessageQueue,
  start: number,
  end: number,
): Promise<MessageExt[]> {
  const messages: MessageExt[] = [];
  let offset = start;
  while (offset < end) {
    const result = await reader.read(queue, offset, { maxMessages: end - offset });
    const read = [...result.messages, ...(result.tooLarge ?? []).map((entry) => entry.message)]
      .filter((m) => m.queueOffset < end)
      .sort((a, b) => a.queueOffset - b.queueOffset);
    messages.push(...read);
    const last = read.at(-1);
    const next = last === undefined ? result.nextOffset : last.queueOffset + 1;
    if (result.status !== 'FOUND' && result.status !== 'NO_MATCHED_MSG') break;
    if (next <= offset) break;
    offset = next;
  }
  return messages;
}
