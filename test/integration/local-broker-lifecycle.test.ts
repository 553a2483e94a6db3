/**
 * The local broker's fault controls against a real RocketMQ 5.3.3: killBroker() (SIGKILL, namesrv
 * stays), stopBroker() (graceful) and restartBroker() on the same store or a wiped one, seen through
 * our own client: what survives, what is lost, and what the broker answers for offsets that no longer
 * exist.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BrokerError } from '../../src/client/broker-error.js';
import { Producer } from '../../src/client/producer.js';
import type { PullResult } from '../../src/client/pull-result.js';
import { RocketMQClient } from '../../src/client/rocketmq-client.js';
import { type LocalBroker, startLocalBroker } from '../../src/local-broker/local-broker.js';
import { probeTopicRoute } from '../../src/local-broker/route-probe.js';
import { ConnectError } from '../../src/network/errors.js';
import { buildPullSysFlag } from '../../src/protocol/pull-sys-flag.js';
import { ResponseCode } from '../../src/protocol/response-code.js';
import { uniqueGroup, uniqueTopic } from '../support/broker.js';
import { waitFor } from '../support/wait-for.js';

let broker: LocalBroker;

beforeAll(async () => {
  broker = await startLocalBroker({
    heapMb: 256,
    // Consumer offsets are written to disk every flushConsumerOffsetInterval (5 s by default) and at
    // a graceful shutdown. An hour makes "committed, then SIGKILLed before the next flush" certain.
    brokerConfig: { flushConsumerOffsetInterval: 3_600_000 },
  });
});

afterAll(async () => {
  await broker?.stop();
});

function newClient(): RocketMQClient {
  const client = new RocketMQClient({ nameServerAddresses: broker.namesrvAddr });
  onTestFinished(() => client.close());
  return client;
}

async function createTopicWithMessages(client: RocketMQClient, topic: string, count: number): Promise<void> {
  await client.admin.createTopic(broker.brokerAddr, { topic, readQueueNums: 1 });
  await waitForRoute(client, topic);
  const producer = new Producer({ client });
  await producer.start();
  for (let i = 0; i < count; i++) {
    const result = await producer.send({ topic, body: `m${i}` }, { queueId: 0 });
    expect(result.queueOffset).toBe(i);
  }
}

async function waitForRoute(client: RocketMQClient, topic: string): Promise<void> {
  await waitFor(`a writable route of ${topic}`, 15_000, async () => {
    const route = await client.nameServer.getRoute(topic, { refresh: true });
    return (route.queueDatas[0]?.writeQueueNums ?? 0) > 0 ? route : undefined;
  });
}

function pull(
  client: RocketMQClient,
  group: string,
  topic: string,
  queueOffset: number,
): Promise<PullResult> {
  return client.broker.pullMessage(broker.brokerAddr, {
    consumerGroup: group,
    topic,
    queueId: 0,
    queueOffset,
    maxMsgNums: 32,
    sysFlag: buildPullSysFlag({ suspend: false, subscription: true }),
    commitOffset: 0,
    suspendTimeoutMillis: 15_000,
    subscription: '*',
    expressionType: 'TAG',
    subVersion: 0,
    bname: broker.brokerName,
  });
}

function queryOffset(client: RocketMQClient, group: string, topic: string): Promise<number | undefined> {
  return client.broker.queryConsumerOffset(broker.brokerAddr, {
    consumerGroup: group,
    topic,
    queueId: 0,
    setZeroIfNotFound: false,
    bname: broker.brokerName,
  });
}

/** Pulls once first, as a consumer does: that creates the group (autoCreateSubscriptionGroup), without which commits fail. */
async function commitOffset(
  client: RocketMQClient,
  group: string,
  topic: string,
  offset: number,
): Promise<void> {
  await pull(client, group, topic, 0);
  await client.broker.updateConsumerOffset(broker.brokerAddr, {
    consumerGroup: group,
    topic,
    queueId: 0,
    commitOffset: offset,
    bname: broker.brokerName,
  });
}

describe('local broker lifecycle', () => {
  it('killBroker() SIGKILLs the broker only: the namesrv drops it, the broker port refuses connections', async () => {
    const client = newClient();
    const topic = uniqueTopic('Kill');
    await createTopicWithMessages(client, topic, 1);

    await broker.killBroker();

    expect(broker.brokerRunning).toBe(false);
    // The namesrv still answers, and soon no longer routes to the dead broker: it drops it when it sees
    // the broker's connection close (the kernel closes it as the process dies).
    await expect
      .poll(async () => (await probeTopicRoute(broker.namesrvAddr, 'TBW102')).code, { timeout: 10_000 })
      .toBe(ResponseCode.TOPIC_NOT_EXIST);
    const failure = await pull(client, uniqueGroup('Kill'), topic, 0).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectError);
    expect((failure as ConnectError).retriable).toBe(true);
    expect((failure as ConnectError).message).toContain('ECONNREFUSED');

    await broker.restartBroker();
    expect(broker.brokerRunning).toBe(true);
  });

  it('messages sent before a SIGKILL are there after restartBroker() on the same store; an offset committed since the last flush is lost', async () => {
    const client = newClient();
    const topic = uniqueTopic('Crash');
    const group = uniqueGroup('Crash');
    await createTopicWithMessages(client, topic, 5);
    await commitOffset(client, group, topic, 3);
    expect(await queryOffset(client, group, topic)).toBe(3);

    await broker.killBroker();
    await broker.restartBroker();

    // The same client reconnects by itself; the commit log (page cache) and topics.json survived.
    const result = await pull(client, group, topic, 0);
    expect(result.status).toBe('FOUND');
    expect(result.status === 'FOUND' && result.messages.map((m) => m.body.toString())).toEqual([
      'm0',
      'm1',
      'm2',
      'm3',
      'm4',
    ]);
    expect(result.maxOffset).toBe(5);
    // consumerOffset.json was last written before the commit: the broker no longer knows the group.
    expect(await queryOffset(client, group, topic)).toBeUndefined();
  });

  it('stopBroker() shuts down gracefully: committed offsets are persisted and there after a restart', async () => {
    const client = newClient();
    const topic = uniqueTopic('Graceful');
    const group = uniqueGroup('Graceful');
    await createTopicWithMessages(client, topic, 2);
    await commitOffset(client, group, topic, 2);

    await broker.stopBroker();
    expect(broker.brokerRunning).toBe(false);
    await broker.restartBroker();

    expect(await queryOffset(client, group, topic)).toBe(2);
    const result = await pull(client, group, topic, 2);
    expect(result.status).toBe('NO_NEW_MSG');
    expect(result.maxOffset).toBe(2);
  });

  it('restartBroker({ wipeStore: true }) loses topics and offsets; the queue restarts at 0 and an old offset is OFFSET_ILLEGAL', async () => {
    const client = newClient();
    const topic = uniqueTopic('Wipe');
    const group = uniqueGroup('Wipe');
    await createTopicWithMessages(client, topic, 5);
    await commitOffset(client, group, topic, 5);

    await broker.killBroker();
    await broker.restartBroker({ wipeStore: true });

    // The topic is gone from the broker (topics.json was in the store) and from the namesrv.
    const missing = await pull(client, group, topic, 5).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(BrokerError);
    expect((missing as BrokerError).code).toBe(ResponseCode.TOPIC_NOT_EXIST);
    expect((await probeTopicRoute(broker.namesrvAddr, topic)).code).toBe(ResponseCode.TOPIC_NOT_EXIST);

    // Re-created (as a deployment would), the queue is empty: the old offset 5 is above max 0.
    await client.admin.createTopic(broker.brokerAddr, { topic, readQueueNums: 1 });
    await waitForRoute(client, topic);
    expect(await queryOffset(client, group, topic)).toBeUndefined();
    const onEmpty = await pull(client, group, topic, 5);
    expect(onEmpty).toMatchObject({
      status: 'OFFSET_ILLEGAL',
      nextBeginOffset: 0,
      minOffset: 0,
      maxOffset: 0,
    });

    // New messages start at offset 0 again.
    const producer = new Producer({ client });
    await producer.start();
    const sent = await producer.send({ topic, body: 'after wipe' }, { queueId: 0 });
    expect(sent.queueOffset).toBe(0);

    // An offset above the new max: OFFSET_ILLEGAL, and the broker suggests its max offset.
    const above = await pull(client, group, topic, 5);
    expect(above).toMatchObject({ status: 'OFFSET_ILLEGAL', nextBeginOffset: 1, minOffset: 0, maxOffset: 1 });
    const fromStart = await pull(client, group, topic, 0);
    expect(fromStart.status === 'FOUND' && fromStart.messages.map((m) => m.body.toString())).toEqual([
      'after wipe',
    ]);
  });
});
