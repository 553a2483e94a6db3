/**
 * Sending a message as an operator or a developer does it (`rocketmq-lambda send`, the dev console's
 * send form): the checks of a message's fields, with errors that name the field as the caller calls it,
 * and the producer that sends it over a connection of its own.
 */
import { DEFAULT_MAX_MESSAGE_BYTES, Producer, type SendResult } from '../client/producer.js';
import type { RocketMQClient } from '../client/rocketmq-client.js';
import { type ClientConnectionConfig, rocketMQClientOf } from '../poller/rocketmq-client-of-config.js';
import { ProtocolError } from '../protocol/errors.js';
import { isSystemProperty } from '../protocol/message.js';
import { encodeProperties } from '../protocol/message-properties.js';
import type { Logger } from '../util/logger.js';

/** A message to send. */
export interface OutgoingMessage {
  readonly topic: string;
  readonly body: Buffer;
  readonly tags?: string | undefined;
  readonly keys: readonly string[];
  readonly properties: Readonly<Record<string, string>>;
  /** RocketMQ's delay level (1..18). */
  readonly delayLevel?: number | undefined;
  /** Picks the queue by this key's hash (same key, same queue). */
  readonly orderlyKey?: string | undefined;
}

/** How the caller names each field in its problems (`--keys` on the command line, `keys` in JSON). */
export interface MessageFieldNames {
  readonly topic: string;
  readonly tags: string;
  readonly keys: string;
  readonly property: string;
  /** What to use instead of a system property. */
  readonly systemAlternatives: string;
  /** How to give several keys. */
  readonly severalKeys: string;
}

/**
 * The first problem of a message's fields, or undefined: an empty topic, a system property, properties
 * the protocol cannot carry, a key that is empty or has spaces, an empty or `||` tag, or a body over
 * the broker's default limit ({@link DEFAULT_MAX_MESSAGE_BYTES}).
 */
export function outgoingMessageProblem(
  message: Omit<OutgoingMessage, 'body'> & { readonly body?: Buffer | undefined },
  names: MessageFieldNames,
): string | undefined {
  if (message.topic.trim() === '') return `${names.topic} must not be empty`;
  const systemKey = Object.keys(message.properties).find(isSystemProperty);
  if (systemKey !== undefined) {
    return `${names.property} ${systemKey}: a RocketMQ system property (use ${names.systemAlternatives} for those)`;
  }
  try {
    encodeProperties({ ...message.properties });
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    return `${names.property}: ${error.message}`;
  }
  const spacedKey = message.keys.find((key) => key.trim() === '' || /\s/.test(key));
  if (spacedKey !== undefined) {
    return `${names.keys} ${JSON.stringify(spacedKey)}: a key cannot be empty or contain spaces (RocketMQ separates keys with spaces); ${names.severalKeys}`;
  }
  const tags = message.tags;
  if (tags !== undefined && (tags.trim() === '' || tags.includes('||'))) {
    return `${names.tags} ${JSON.stringify(tags)}: one tag per message (|| is for filters)`;
  }
  if (message.body !== undefined && message.body.length > DEFAULT_MAX_MESSAGE_BYTES) {
    return bodyTooLarge('the body', message.body.length);
  }
  return undefined;
}

/** The problem of a body over the broker's default limit. */
export function bodyTooLarge(which: string, bytes: number): string {
  return `${which} is ${bytes} bytes, over the broker's default limit of ${DEFAULT_MAX_MESSAGE_BYTES} bytes (4 MiB): nothing sent`;
}

/**
 * A producer on a client of its own: `send` stores one message and says where.
 */
export class MessageSender {
  readonly #client: RocketMQClient;
  readonly #producer: Producer;

  private constructor(client: RocketMQClient, producer: Producer) {
    this.#client = client;
    this.#producer = producer;
  }

  /** Opens a client for `connection` and starts a producer on it. */
  static async start(
    connection: ClientConnectionConfig,
    logger?: Logger | undefined,
  ): Promise<MessageSender> {
    const client = rocketMQClientOf(connection, { logger });
    const producer = new Producer({ client, logger });
    await producer.start();
    return new MessageSender(client, producer);
  }

  send(message: OutgoingMessage): Promise<SendResult> {
    return this.#producer.send(
      {
        topic: message.topic,
        body: message.body,
        tags: message.tags,
        keys: [...message.keys],
        properties: { ...message.properties },
        delayLevel: message.delayLevel,
      },
      { shardingKey: message.orderlyKey },
    );
  }

  async close(): Promise<void> {
    await this.#producer.shutdown();
    await this.#client.close();
  }
}
