/**
 * A RocketMQ of a scenario's own (to kill, wipe, or run with ACL or TLS), separate from the shared test
 * broker: started with a small heap, stopped when the test ends, with clients and topics on it.
 */
import type tls from 'node:tls';
import { onTestFinished } from 'vitest';
import { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import {
  type LocalBroker,
  type LocalBrokerOptions,
  startLocalBroker,
} from '../../../src/local-broker/local-broker.js';
import type { AclCredentials } from '../../../src/protocol/acl-signer.js';
import { waitFor } from '../client/helpers.js';

/** Own brokers share two cores with the shared test broker, the pollers and other engineers' runs. */
const OWN_BROKER_HEAP_MB = 256;
/** A created topic shows up in the name server's route at the broker's next registration (or sooner). */
const ROUTE_TIMEOUT_MS = 30_000;

/**
 * Starts a broker for this test only (256 MiB heap unless `options` says otherwise), stopped when the
 * test ends.
 *
 * @example
 * ```ts
 * const broker = await startOwnBroker({ acl: { accessKey: 'admin', secretKey: 'secret-1234' } });
 * await broker.killBroker();
 * ```
 */
export async function startOwnBroker(options: LocalBrokerOptions = {}): Promise<LocalBroker> {
  const broker = await startLocalBroker({ heapMb: OWN_BROKER_HEAP_MB, ...options });
  onTestFinished(() => broker.stop());
  return broker;
}

/**
 * Starts a broker for one test of a file from the file's `beforeAll`, so that the brokers of several
 * tests boot side by side (a JVM boot is mostly waiting; 10-20 s each on two cores): the test awaits
 * the promise and stops the broker when it ends, the file's `afterAll` stops what a skipped test left
 * (stop() is idempotent). A failed start rejects only where it is awaited.
 *
 * @example
 * ```ts
 * let starting: Promise<LocalBroker>;
 * beforeAll(() => {
 *   starting = bootOwnBroker({ tls });
 * });
 * afterAll(() => stopBooted(starting));
 * it('...', async () => {
 *   const broker = await starting;
 *   onTestFinished(() => broker.stop());
 * });
 * ```
 */
export function bootOwnBroker(options: LocalBrokerOptions = {}): Promise<LocalBroker> {
  const starting = startLocalBroker({ heapMb: OWN_BROKER_HEAP_MB, ...options });
  starting.catch(() => undefined);
  return starting;
}

/** Stops the brokers of {@link bootOwnBroker} (those that started; idempotent). */
export async function stopBooted(...starting: (Promise<LocalBroker> | undefined)[]): Promise<void> {
  await Promise.all(
    starting.map(async (start) => {
      const broker = await start?.catch(() => undefined);
      await broker?.stop();
    }),
  );
}

/**
 * A client of `broker` (signed with `credentials`, over `tls` when given), closed when the test ends.
 *
 * @example
 * ```ts
 * const client = ownBrokerClient(broker, { credentials: ADMIN });
 * ```
 */
export function ownBrokerClient(
  broker: Pick<LocalBroker, 'namesrvAddr'>,
  options: { credentials?: AclCredentials; tls?: tls.ConnectionOptions } = {},
): RocketMQClient {
  const client = new RocketMQClient({
    nameServerAddresses: broker.namesrvAddr,
    credentials: options.credentials,
    tls: options.tls,
  });
  onTestFinished(() => client.close());
  return client;
}

/**
 * Creates `topic` with `queues` read and write queues on `broker` and waits until the name server
 * routes all of them (also after a wipe: the topic is then created anew).
 *
 * @example
 * ```ts
 * await createTopicOn(client, broker, topic, 4);
 * ```
 */
export async function createTopicOn(
  client: RocketMQClient,
  broker: Pick<LocalBroker, 'brokerAddr'>,
  topic: string,
  queues: number,
): Promise<void> {
  await client.admin.createTopic(broker.brokerAddr, { topic, readQueueNums: queues });
  await waitFor(`the route of ${topic}`, ROUTE_TIMEOUT_MS, async () => {
    const route = await client.nameServer.getRoute(topic, { refresh: true });
    return route.queueDatas[0]?.writeQueueNums === queues ? route : undefined;
  });
}
