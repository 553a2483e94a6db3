/**
 * The dev console's dead letters (`GET /api/dead-letters`, `POST /api/dead-letters/redrive`): a group's
 * DLQ read and redriven through the operations `rocketmq-lambda dlq show` and `dlq redrive` use
 * (src/operations/dead-letters.ts, dead-letter-redrive.ts), on the dev session's own target.
 */
import { Producer } from '../../client/producer.js';
import { describeDeadLetter } from '../../operations/dead-letter.js';
import { planRedrive, redriveDeadLetters } from '../../operations/dead-letter-redrive.js';
import { openDeadLetters, redriveRefusal } from '../../operations/dead-letters.js';
import type { Target, TargetMapping } from '../../operations/target.js';
import { describeError } from '../../util/describe-error.js';
import type { Logger } from '../../util/logger.js';
import { HttpError } from './http-exchange.js';
import { type RecordBody, recordBodyOf } from './record-body.js';

/** One dead letter as the console lists it. */
export interface ConsoleDeadLetter {
  readonly messageId: string;
  readonly broker: string;
  readonly queueId: number;
  readonly queueOffset: number;
  readonly storedAt: string;
  readonly reconsumeTimes: number;
  readonly originTopic?: string | undefined;
  readonly keys: readonly string[];
  readonly tags?: string | undefined;
  readonly body: RecordBody;
}

/** The answer of a redrive. */
export interface ConsoleRedriveAnswer {
  readonly redriven: readonly { readonly messageId: string; readonly newMessageId: string }[];
  readonly skipped: readonly { readonly messageId: string; readonly reason: string }[];
}

/**
 * Reads and redrives the dead letters of the session's groups.
 */
export class ConsoleDeadLetters {
  readonly #target: () => Target;
  readonly #logger: Logger | undefined;

  /** `target` is opened on first use (the console closes it). */
  constructor(target: () => Target, logger?: Logger | undefined) {
    this.#target = target;
    this.#logger = logger;
  }

  /**
   * The dead letters of `group` from the redrive position on (as `dlq show`), or every stored one with
   * `all`, at most `limit`, oldest first per DLQ queue.
   */
  async list(
    group: string,
    limit: number,
    all = false,
  ): Promise<{ group: string; messages: ConsoleDeadLetter[] }> {
    const { dlq, queues } = await this.#open(group);
    const messages: ConsoleDeadLetter[] = [];
    for (const { queue } of queues) {
      if (messages.length >= limit) break;
      const { from } = await dlq.start(queue, { oldest: all });
      for await (const page of dlq.pages(queue, from, limit - messages.length)) {
        for (const message of page.messages) {
          const view = describeDeadLetter(message, group, page.tooLarge.get(message.queueOffset));
          messages.push({
            messageId: view.msgId,
            broker: queue.brokerName,
            queueId: queue.queueId,
            queueOffset: view.dlqOffset,
            storedAt: new Date(view.storeTimestamp).toISOString(),
            reconsumeTimes: view.reconsumeTimes,
            ...(view.originalTopic === undefined ? {} : { originTopic: view.originalTopic }),
            keys: view.keys,
            ...(view.tags === undefined ? {} : { tags: view.tags }),
            body: recordBodyOf(view.tooLarge?.storedBody ?? view.body),
          });
        }
      }
    }
    return { group, messages };
  }

  /**
   * Redrives the named dead letters of `group` (looked for in every stored one, as `dlq redrive
   * --msg-id`): to the group's retry topic, or to their topic for an orderly or POP group, which cannot
   * take them from the retry topic (operations/dead-letters.ts, redriveRefusal).
   */
  async redrive(group: string, messageIds: readonly string[]): Promise<ConsoleRedriveAnswer> {
    const target = this.#target();
    const mapping = this.#mapping(group);
    const { dlq, queues } = await this.#open(group);
    const to = redriveRefusal(target, mapping, 'retry') === undefined ? 'retry' : 'topic';
    const wanted = new Set(messageIds);
    const redriven: { messageId: string; newMessageId: string }[] = [];
    const skipped: { messageId: string; reason: string }[] = [];
    const plans = await planRedrive(
      dlq,
      queues.map(({ queue }) => queue),
      { oldest: true },
    );
    // No retries inside the producer, as dlq redrive: a send that timed out may have been stored.
    const producer = new Producer({ client: target.client, logger: this.#logger, retries: 0 });
    await producer.start();
    try {
      const result = await redriveDeadLetters(plans, {
        dlq,
        limit: Number.MAX_SAFE_INTEGER,
        msgIds: wanted,
        to,
        fallbackTopic: mapping.topic,
        send: (message) => producer.send(message),
        findCopy: (topic, queue, offset, at) => dlq.findRedrivenCopy(topic, queue, offset, at),
        dryRun: false,
        onEvent: (event) => {
          if (event.kind === 'sent')
            redriven.push({ messageId: event.view.msgId, newMessageId: event.newMsgId });
          if (event.kind === 'already-sent') {
            skipped.push({
              messageId: event.view.msgId,
              reason: `already redriven as ${event.newMsgId} by an earlier redrive: not sent again`,
            });
          }
        },
      });
      if (result.failure !== undefined) {
        skipped.push({
          messageId: result.failure.msgId,
          reason: `the send failed: ${describeError(result.failure.error)} (stopped there)`,
        });
      }
    } finally {
      await producer.shutdown();
    }
    const seen = new Set([...redriven, ...skipped].map((entry) => entry.messageId));
    for (const messageId of wanted) {
      if (!seen.has(messageId)) skipped.push({ messageId, reason: `not a dead letter of group ${group}` });
    }
    return { redriven, skipped };
  }

  #mapping(group: string): TargetMapping {
    const mapping = this.#target().mappings.find((m) => m.consumerGroup === group);
    if (mapping === undefined)
      throw new HttpError(400, `no mapping consumes as group ${JSON.stringify(group)}`);
    return mapping;
  }

  async #open(group: string) {
    const opened = await openDeadLetters(this.#target(), this.#mapping(group));
    const unreadable = opened.queues.find((q) => !q.readable);
    if (unreadable !== undefined) {
      throw new HttpError(
        409,
        `${opened.dlq.topic} is not readable (perm without READ): make it readable with mqadmin updateTopicPerm -p 6`,
      );
    }
    return opened;
  }
}
