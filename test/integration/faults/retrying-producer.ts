/**
 * A producer that outlasts a broker outage: a batch whose send fails is sent again (with new message
 * ids) until it succeeds, so that a stream keeps going through a broker crash and only messages the
 * broker acknowledged are counted as sent.
 */
import { Producer, type ProducerMessage, type SendBatchResult } from '../../../src/client/producer.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { sleep } from '../client/helpers.js';

/** Between attempts of one batch while the broker is away. */
const RETRY_DELAY_MS = 500;
/** A batch that cannot be sent for this long fails the stream: the broker did not come back. */
const DEFAULT_GIVE_UP_MS = 120_000;

/**
 * A {@link Producer} whose `sendBatch` retries every failure until `giveUpMs` has passed. Each attempt
 * gives the messages new ids (the base producer assigns them per call), so a batch stored by an attempt
 * whose answer was lost shows up in a ledger as unexpected, never as a produced message.
 *
 * @example
 * ```ts
 * const producer = new RetryingProducer(client);
 * await producer.start();
 * const stream = startSteadyStream(producer, { topic, count: 6000, queues: 4, messagesPerSecond: 200 });
 * await broker.killBroker(); // the stream pauses, then goes on after restartBroker()
 * producer.failedAttempts; // => sends that failed meanwhile
 * ```
 */
export class RetryingProducer extends Producer {
  /** Attempts that failed (and were retried). */
  failedAttempts = 0;
  readonly #giveUpMs: number;

  constructor(client: RocketMQClient, options: { giveUpMs?: number } = {}) {
    super({ client });
    this.#giveUpMs = options.giveUpMs ?? DEFAULT_GIVE_UP_MS;
  }

  override async sendBatch(
    messages: readonly ProducerMessage[],
    options: { queueId?: number } = {},
  ): Promise<SendBatchResult> {
    const deadline = Date.now() + this.#giveUpMs;
    for (;;) {
      try {
        return await super.sendBatch(messages, options);
      } catch (error) {
        if (Date.now() > deadline) throw error;
        this.failedAttempts++;
        await sleep(RETRY_DELAY_MS);
      }
    }
  }
}
