/**
 * A local cluster of two broker groups (broker-a, broker-b), each a master (id 0) and a slave (id 1):
 * what the name server routes, a topic spread over both masters, how long the slaves take to catch up,
 * and the broker's read-from-slave rule: a master with `slaveReadEnable` answers a pull with
 * `suggestWhichBrokerId` = the subscription group's `brokerId`, and the consumer pulls from that slave.
 * Then, in the same cluster (five JVMs booting on two cores, the suite's most expensive setup, done once):
 * poller churn (poller-churn.ts), an orderly mapping with a poller SIGKILLed (orderly-cluster.ts) and, last
 * as it restarts broker-a's master, a master SIGKILL mid-drain (master-sigkill.ts).
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Producer } from '../../../src/client/producer.js';
import type { RocketMQClient } from '../../../src/client/rocketmq-client.js';
import { ConsumerRuntime } from '../../../src/consumer/consumer-runtime.js';
import type { LocalCluster } from '../../../src/local-broker/local-cluster.js';
import { probeTopicRoute } from '../../../src/local-broker/route-probe.js';
import { MemoryOffsetStore } from '../../../src/offsets/memory-offset-store.js';
import { buildPullSysFlag } from '../../../src/protocol/pull-sys-flag.js';
import { uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { waitFor } from '../../support/wait-for.js';
import { FAST, Ledger, recordingListener } from '../consumer/helpers.js';
import { describeMasterSigkill } from './master-sigkill.js';
import { describeOrderlyCluster, ORDERLY_CLUSTER_JVM_OPTIONS } from './orderly-cluster.js';
import { clusterClient, spyOnPulls, startOwnCluster } from './own-cluster.js';
import { describePollerChurn } from './poller-churn.js';

const START_TIMEOUT_MS = 240_000;
const QUEUES_PER_GROUP = 4;

let cluster: LocalCluster;
let client: RocketMQClient;

beforeAll(async () => {
  cluster = await startOwnCluster({ extraJvmOptions: [...ORDERLY_CLUSTER_JVM_OPTIONS] });
  client = clusterClient(cluster);
}, START_TIMEOUT_MS);

afterAll(async () => {
  await client?.close();
  await cluster?.stop();
}, 60_000);

/** Sends `count` messages, letting the producer spread them over every write queue of the route. */
async function produceSpread(
  topic: string,
  count: number,
): Promise<{ ids: string[]; perBroker: Map<string, number> }> {
  const producer = new Producer({ client });
  await producer.start();
  onTestFinished(() => producer.shutdown());
  const ids: string[] = [];
  const perBroker = new Map<string, number>();
  for (let i = 0; i < count; i += 20) {
    const results = await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, (_, k) => producer.send({ topic, body: `m${i + k}` })),
    );
    for (const result of results) {
      ids.push(result.msgId);
      perBroker.set(result.brokerName, (perBroker.get(result.brokerName) ?? 0) + 1);
    }
  }
  return { ids, perBroker };
}

/** Resolves once every slave holds as many messages of `topic` per queue as its master; returns how long. */
async function slavesCaughtUp(topic: string): Promise<number> {
  const startedAt = Date.now();
  await waitFor(`the slaves of ${topic} to catch up`, 60_000, async () => {
    for (const group of cluster.groups) {
      for (let queueId = 0; queueId < QUEUES_PER_GROUP; queueId++) {
        const master = await client.broker.getMaxOffset(group.master.address, { topic, queueId });
        for (const slave of group.slaves) {
          if ((await client.broker.getMaxOffset(slave.address, { topic, queueId })) !== master)
            return undefined;
        }
      }
    }
    return true;
  });
  return Date.now() - startedAt;
}

describe('local cluster: 2 broker groups of a master and a slave', () => {
  it('routes every group with its master (id 0) and slave (id 1), spreads a topic over both masters, and the slaves catch up', async () => {
    const topic = uniqueTopic('cl_spread');
    await cluster.createTopic(topic, QUEUES_PER_GROUP);
    const route = await client.nameServer.getRoute(topic, { refresh: true });
    const groups = new Map(route.brokerDatas.map((data) => [data.brokerName, data.brokerAddrs]));
    for (const group of cluster.groups) {
      expect(groups.get(group.brokerName)?.get(0)).toBe(group.master.address);
      expect(groups.get(group.brokerName)?.get(1)).toBe(group.slaves[0]?.address);
    }
    expect(route.queueDatas.map((q) => [q.brokerName, q.writeQueueNums]).sort()).toEqual([
      ['broker-a', QUEUES_PER_GROUP],
      ['broker-b', QUEUES_PER_GROUP],
    ]);

    const { ids, perBroker } = await produceSpread(topic, 400);
    expect(ids).toHaveLength(400);
    expect(perBroker.get('broker-a')).toBeGreaterThan(0);
    expect(perBroker.get('broker-b')).toBeGreaterThan(0);
    const syncMs = await slavesCaughtUp(topic);
    console.info(
      `[cluster] nodes ${cluster.nodes.map((n) => `${n.brokerName}-${n.brokerId}@${n.address} (HA ${n.haPort})`).join(', ')}; ` +
        `400 messages: ${[...perBroker].map(([b, n]) => `${b} ${n}`).join(', ')}; slaves caught up ${syncMs} ms after the last send`,
    );
  });

  it('pulls from the slave when the master suggests it (slaveReadEnable and the group brokerId 1), committing offsets only to the master', async () => {
    const topic = uniqueTopic('cl_slaveread');
    const group = uniqueGroup('cl_slaveread');
    await cluster.createTopic(topic, QUEUES_PER_GROUP);
    await cluster.createSubscriptionGroup({ groupName: group, brokerId: 1, whichBrokerWhenConsumeSlowly: 1 });
    const { ids } = await produceSpread(topic, 200);
    await slavesCaughtUp(topic);

    // The rule itself, on one queue of broker-a: its master points at id 1, its slave serves the messages.
    const brokerA = cluster.groups[0];
    if (brokerA === undefined) throw new Error('no broker-a');
    const header = {
      consumerGroup: group,
      topic,
      queueId: 0,
      queueOffset: 0,
      maxMsgNums: 8,
      sysFlag: buildPullSysFlag({ subscription: true }),
      commitOffset: 0,
      suspendTimeoutMillis: 1000,
      subVersion: 0,
      expressionType: 'TAG',
      subscription: '*',
      bname: brokerA.brokerName,
    };
    const fromMaster = await client.broker.pullMessage(brokerA.master.address, header);
    const fromSlave = await client.broker.pullMessage(brokerA.slaves[0]?.address ?? '', header);
    expect(fromMaster.status).toBe('FOUND');
    expect(fromMaster.suggestWhichBrokerId).toBe(1);
    expect(fromSlave.status).toBe('FOUND');

    // The consumer follows the suggestion.
    const consumerClient = clusterClient(cluster);
    const pulls = spyOnPulls(consumerClient);
    const ledger = new Ledger();
    const runtime = new ConsumerRuntime(
      {
        name: 'slave-read',
        ...FAST,
        topic,
        consumerGroup: group,
        startingPosition: 'TRIM_HORIZON',
        batchSize: 16,
        // 25 messages a queue: small pulls, so that pulls after the master's first answer find some.
        pullBatchSize: 4,
      },
      { client: consumerClient, offsetStore: new MemoryOffsetStore(), listener: recordingListener(ledger) },
    );
    onTestFinished(async () => {
      await runtime.stop();
      await consumerClient.close();
    });
    await runtime.start();
    await waitFor('all 200 messages', 60_000, async () =>
      ledger.counts.size >= ids.length ? true : undefined,
    );
    const slaveAddresses = new Set(cluster.nodes.filter((n) => n.role === 'slave').map((n) => n.address));
    const ofTopic = pulls.filter((p) => p.topic === topic);
    const servedBySlave = ofTopic.filter((p) => slaveAddresses.has(p.address) && p.found > 0);
    const suggested = ofTopic.filter((p) => !slaveAddresses.has(p.address) && p.suggestWhichBrokerId === 1);
    console.info(
      `[cluster] slave read: master suggested id 1 on ${suggested.length} pulls, the slave answered directly: ` +
        `suggestWhichBrokerId ${fromSlave.suggestWhichBrokerId}; consumer: ${ofTopic.length} pulls, ` +
        `${servedBySlave.length} served by a slave (${servedBySlave.reduce((n, p) => n + p.found, 0)} messages)`,
    );
    expect(ledger.missing(ids)).toEqual([]);
    expect(suggested.length).toBeGreaterThan(0);
    expect(servedBySlave.length).toBeGreaterThan(0);
    for (const pull of ofTopic.filter((p) => slaveAddresses.has(p.address)))
      expect(pull.commitOffset).toBe(0);
    console.info(
      `[cluster] slave read ledger: sent ${ids.length}, delivered ${ledger.counts.size}, duplicates ${ledger.duplicates()}`,
    );
  });

  it('restarts the name server: routes come back as each broker registers again, and a broker restart meanwhile waits instead of failing', async () => {
    const topic = uniqueTopic('cluster_namesrv');
    await cluster.createTopic(topic, QUEUES_PER_GROUP);
    const slave = cluster.node('broker-b', 1);
    await cluster.stopNamesrv({ graceMs: 5_000 });
    onTestFinished(() => cluster.startNamesrv());
    await expect(probeTopicRoute(cluster.namesrvAddr, topic, { timeoutMs: 2_000 })).rejects.toThrow();
    // A broker restart while no name server runs: its readiness check must wait for the next one (the
    // stopped JVM is not a crash), not fail at once with "the namesrv JVM exited early".
    const restarting = slave.restart();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await cluster.startNamesrv();
    // startNamesrv() resolves once the new JVM answers (it may know no broker yet).
    await expect(probeTopicRoute(cluster.namesrvAddr, topic, { timeoutMs: 5_000 })).resolves.toMatchObject({
      code: expect.any(Number),
    });
    await restarting;
    const routed = await waitFor(`${topic} routed on both masters after the restart`, 60_000, async () => {
      const { route } = await probeTopicRoute(cluster.namesrvAddr, topic, { timeoutMs: 2_000 });
      const masters = (route?.brokerDatas ?? []).filter((data) => data.brokerAddrs['0'] !== undefined);
      return masters.length === 2 ? route : undefined;
    });
    expect(routed.brokerDatas.map((data) => data.brokerName).sort()).toEqual(['broker-a', 'broker-b']);
    expect(routed.brokerDatas.find((data) => data.brokerName === 'broker-b')?.brokerAddrs['1']).toBe(
      slave.address,
    );
    const { ids } = await produceSpread(topic, 40);
    expect(ids).toHaveLength(40);
  }, 180_000);
});

// After the tests above, in their cluster (a topic, group and dynalite of its own): minutes of load.
describePollerChurn(() => cluster);
describeOrderlyCluster(() => cluster);
// Last: it kills and restarts broker-a's master.
describeMasterSigkill(() => cluster);
