/**
 * Sends message trace messages (src/protocol/message-trace.ts) with our {@link Producer}, only to a
 * trace topic that exists: its route is looked up first, so a missing topic is reported, never created
 * through the auto-create template. The consumer's trace writer (src/consumer/trace) uses it.
 */
import type { TraceMessage } from '../protocol/message-trace.js';
import { ResponseCode } from '../protocol/response-code.js';
import { writableQueues } from '../protocol/route-data.js';
import type { Logger } from '../util/logger.js';
import type { BrokerClient } from './broker-client.js';
import { BrokerError } from './broker-error.js';
import type { NameServerClient } from './name-server-client.js';
import { Producer } from './producer.js';

/** The producer group trace messages are sent under (Java's trace producer has an inner group too). */
export const TRACE_PRODUCER_GROUP = 'ROCKETMQ_LAMBDA_TRACE_PRODUCER';
/** No retries on other queues: a lost trace message is counted, and consumption never waits for one. */
const TRACE_SEND_RETRIES = 0;

/**
 * A trace topic's route checks and sends.
 */
export class TraceTopicSender {
  readonly #client: { nameServer: NameServerClient; broker: BrokerClient };
  readonly #producer: Producer;

  constructor(options: {
    client: { nameServer: NameServerClient; broker: BrokerClient };
    logger?: Logger | undefined;
  }) {
    this.#client = options.client;
    this.#producer = new Producer({
      client: options.client,
      producerGroup: TRACE_PRODUCER_GROUP,
      retries: TRACE_SEND_RETRIES,
      logger: options.logger,
    });
  }

  async start(): Promise<void> {
    await this.#producer.start();
  }

  async shutdown(): Promise<void> {
    await this.#producer.shutdown();
  }

  /** True when the topic has a writable queue on a broker with a master; false when it does not exist. */
  async hasRoute(topic: string): Promise<boolean> {
    try {
      const route = await this.#client.nameServer.getRoute(topic, { refresh: true });
      return writableQueues(topic, route).length > 0;
    } catch (error) {
      if (error instanceof BrokerError && error.code === ResponseCode.TOPIC_NOT_EXIST) return false;
      throw error;
    }
  }

  /** Sends one trace message (its KEYS are what the trace is found by). */
  async send(topic: string, message: TraceMessage): Promise<void> {
    await this.#producer.send({ topic, body: message.body, keys: message.keys });
  }
}
