/**
 * A topic of one integration test's own on the test broker (test/support/broker.ts): a client closed
 * when the test finishes, a unique topic with `queues` queues (its route awaited) and a unique consumer
 * group for it.
 */
import { onTestFinished } from 'vitest';
import type { RocketMQClient } from '../../src/client/rocketmq-client.js';
import { createTopic, newClient } from '../integration/client/helpers.js';
import { uniqueGroup, uniqueTopic } from './broker.js';

/** What {@link testTopic} made. */
export interface TestTopic {
  /** A client of the test broker, closed when the test finishes. */
  readonly client: RocketMQClient;
  readonly topic: string;
  /** A consumer group of its own (same prefix). */
  readonly group: string;
}

/**
 * Creates a topic named after `prefix` with `queues` queues and a group for it, inside a test.
 *
 * @example
 * ```ts
 * const { client, topic, group } = await testTopic('otel', 1);
 * ```
 */
export async function testTopic(prefix: string, queues: number): Promise<TestTopic> {
  const client = newClient();
  onTestFinished(() => client.close());
  const topic = uniqueTopic(prefix);
  const group = uniqueGroup(prefix);
  await createTopic(client, topic, queues);
  return { client, topic, group };
}
