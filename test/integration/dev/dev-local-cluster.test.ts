/**
 * End to end: `rocketmq-lambda dev --local-cluster` on the repository's serverless.yml, as a child
 * process. It starts a namesrv and two masters (broker-a, broker-b; no slaves without --with-slaves),
 * creates the mapped topics on both masters, prints the brokers beside the name server, and a message
 * sent to each master's queues of `Orders` reaches the orders handler. Ctrl-C stops it all (exit 0).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { DEV_TOPIC_QUEUES } from '../../../src/dev/local-topics.js';
import { spawnDev } from './dev-process.js';

describe('rocketmq-lambda dev --local-cluster', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('runs the poller against a local cluster of two masters holding the mapped topics', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'rocketmq-lambda-dev-cluster-'));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    const dev = spawnDev(['--local-cluster', '--state-dir', stateDir]);
    cleanups.push(() => dev.kill());
    const { child, watch, exited } = dev;

    const clusterLine = await watch.waitFor(
      'the local cluster',
      (l) => l.msg === 'local cluster started',
      180_000,
    );
    const nameServer = String(clusterLine.nameServer);
    const brokers = clusterLine.brokers as { brokerName: string; brokerId: number; address: string }[];
    expect(brokers.map((b) => [b.brokerName, b.brokerId])).toEqual([
      ['broker-a', 0],
      ['broker-b', 0],
    ]);
    await watch.waitFor('dev to start', (l) => l.msg === 'dev started: watching handlers, Ctrl-C stops');
    await watch.waitFor(
      'orders to hold the queues of both masters',
      (l) => l.msg === 'mapping status' && l.name === 'orders' && Number(l.queues) >= 2 * DEV_TOPIC_QUEUES,
    );

    // Printed once dev's session is up, before its first status line with all queues.
    expect(watch.raw).toContain(
      `name server ${nameServer} (rocketmq-lambda send --topic Orders --body hi sends a test message)`,
    );
    expect(watch.raw).toContain(
      `local cluster DefaultCluster: broker-a ${brokers[0]?.address} (master), broker-b ${brokers[1]?.address} (master)`,
    );

    const client = new RocketMQClient({ nameServerAddresses: nameServer });
    cleanups.push(() => client.close());
    const route = await client.nameServer.getRoute('Orders', { refresh: true });
    expect(
      route.queueDatas
        .map((q) => [q.brokerName, q.writeQueueNums])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    ).toEqual([
      ['broker-a', DEV_TOPIC_QUEUES],
      ['broker-b', DEV_TOPIC_QUEUES],
    ]);

    const producer = new Producer({ client });
    await producer.start();
    cleanups.push(() => producer.shutdown());
    const sent = new Map<string, string>();
    for (let i = 0; sent.size < 2 && i < 20; i++) {
      const orderId = `dev-cluster-${i}`;
      const result = await producer.send({
        topic: 'Orders',
        tags: 'order',
        body: JSON.stringify({ orderId, total: 1 }),
      });
      if (!sent.has(result.brokerName)) sent.set(result.brokerName, result.msgId);
    }
    expect([...sent.keys()].sort()).toEqual(['broker-a', 'broker-b']);
    for (const [brokerName, msgId] of sent) {
      await watch.waitFor(
        `the orders handler for the message on ${brokerName}`,
        (l) => l.handler === 'orders' && l.messageId === msgId,
      );
    }

    child.kill('SIGINT');
    expect(await exited, dev.stderr()).toBe(0);
  }, 300_000);
});
