/**
 * Apache RocketMQ's own `mqadmin` (rocketmq-tools 5.3.3) against two running pollers of one group:
 * what an operator who knows RocketMQ sees without our CLI. consumerProgress shows the committed
 * offsets and the lag the broker holds for the group, consumerConnection lists every poller,
 * consumerStatus reads each poller's running info (GET_CONSUMER_RUNNING_INFO, relayed by the broker).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import { clientVersionName } from '../../../src/consumer/running-info.js';
import { type Poller, startPoller } from '../../../src/poller/poller.js';
import { CLIENT_LANGUAGE } from '../../../src/protocol/remoting-command.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import {
  JAVA_FAILURE,
  keyValues,
  type MqadminResult,
  runMqadmin,
  section,
  tableRows,
} from '../../support/mqadmin.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';

const QUEUES = 4;
/** Consumed while the pollers run: 10 per queue. */
const CONSUMED = 40;
/** Produced while the pollers are stopped: the lag consumerProgress must show. */
const BACKLOG = 12;
const HANDLERS_DIR = fileURLToPath(new URL('../../fixtures/config/handlers/', import.meta.url));

/** mqadmin, with its output checked for a Java failure (it exits 0 on most of them). */
async function mqadmin(subcommand: string, args: readonly string[]): Promise<string> {
  const result: MqadminResult = await runMqadmin(testBroker().namesrvAddr, subcommand, args);
  const context = `mqadmin ${subcommand} ${args.join(' ')} (exit ${String(result.exitCode)}, ${result.elapsedMs} ms):\n${result.output}`;
  expect(result.exitCode, context).toBe(0);
  expect(result.output, context).not.toMatch(JAVA_FAILURE);
  return result.output;
}

/** The ip part of a client id (`ip@pid#...`): what consumerProgress -s shows per queue. */
function clientIp(clientId: string): string {
  return clientId.slice(0, clientId.indexOf('@'));
}

/** The queue ids of `topic` a poller holds now. */
async function heldQueueIds(poller: Poller, topic: string): Promise<number[]> {
  const [status] = await poller.status();
  return (status?.queues ?? [])
    .filter((q) => q.queue.topic === topic)
    .map((q) => q.queue.queueId)
    .sort((a, b) => a - b);
}

describe('mqadmin (Apache RocketMQ tools 5.3.3) against running pollers', () => {
  it('consumerProgress shows offsets and lag, consumerConnection every poller, consumerStatus their running info', {
    timeout: 240_000,
  }, async () => {
    const { brokerAddr, brokerName } = testBroker();
    const topic = uniqueTopic('Mqadmin');
    const group = uniqueGroup('Mqadmin');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);

    const config = parseConfig(
      {
        nameServer: testBroker().namesrvAddr,
        shutdownTimeoutMs: 5000,
        offsets: { store: 'memory' },
        mappings: [
          {
            name: 'mqadmin',
            topic,
            consumerGroup: group,
            function: 'local:./noop.mjs#handler',
            startingPosition: 'TRIM_HORIZON',
            maximumBatchingWindowMs: 20,
          },
        ],
      },
      { baseDir: HANDLERS_DIR },
    );
    const overrides = { rebalanceIntervalMs: 2000, routeRefreshIntervalMs: 2000, persistIntervalMs: 500 };
    const pollers: Poller[] = [];
    onTestFinished(async () => {
      await Promise.all(pollers.map((p) => p.stop()));
    });
    for (let i = 0; i < 2; i++) pollers.push(await startPoller(config, { consumerOverrides: overrides }));
    const [first, second] = pollers;
    if (first === undefined || second === undefined) throw new Error('two pollers expected');
    await waitFor('the two pollers sharing the queues 2 and 2', 30_000, async () => {
      const held = await Promise.all(pollers.map((p) => heldQueueIds(p, topic)));
      return held.every((ids) => ids.length === QUEUES / 2) ? held : undefined;
    });

    const producer = await newProducer(client);
    await produce(producer, topic, CONSUMED, { queues: QUEUES });
    const perQueue = CONSUMED / QUEUES;
    await waitFor(`${CONSUMED} messages consumed`, 60_000, async () => {
      const statuses = (await Promise.all(pollers.map((p) => p.status()))).flat();
      const ok = statuses.reduce((sum, s) => sum + s.counters.consumedOk, 0);
      return ok >= CONSUMED ? ok : undefined;
    });
    // The broker's copy of the committed offsets (what consumerProgress reads) catches up right after.
    await waitFor('the broker holding every committed offset', 30_000, async () => {
      const offsets = await Promise.all(
        Array.from({ length: QUEUES }, (_, queueId) =>
          client.broker.queryConsumerOffset(brokerAddr, {
            consumerGroup: group,
            topic,
            queueId,
            bname: brokerName,
          }),
        ),
      );
      return offsets.every((offset) => offset === perQueue) ? offsets : undefined;
    });
    const holder = new Map<number, Poller>();
    for (const poller of pollers) for (const id of await heldQueueIds(poller, topic)) holder.set(id, poller);

    // Each mqadmin run is a JVM of its own: the four reads of the running pollers go two at a time (two
    // cores); nothing they read changes meanwhile (every message consumed and committed, queues held).
    const [progress, connection] = await Promise.all([
      mqadmin('consumerProgress', ['-g', group, '-s', 'true']),
      mqadmin('consumerConnection', ['-g', group]),
    ]);
    const [groupStatus, status] = await Promise.all([
      mqadmin('consumerStatus', ['-g', group]),
      mqadmin('consumerStatus', ['-g', group, '-i', first.clientId]),
    ]);

    // consumerProgress -s: per queue the broker offset, the group's committed offset, who holds it, no lag.
    const rows = tableRows(progress, '#Topic').filter((row) => row.Topic === topic);
    expect(rows.map((row) => Number(row.QID)).sort()).toEqual([0, 1, 2, 3]);
    for (const row of rows) {
      expect(row['Broker Name']).toBe(brokerName);
      expect(Number(row['Broker Offset'])).toBe(perQueue);
      expect(Number(row['Consumer Offset'])).toBe(perQueue);
      expect(Number(row.Diff)).toBe(0);
      const owner = holder.get(Number(row.QID));
      expect(row['Client IP']).toBe(owner === undefined ? undefined : clientIp(owner.clientId));
    }
    expect(progress).toMatch(/Consume Diff Total: 0\b/);

    // consumerConnection: both pollers, with the language and version they announce, and the subscription.
    const connections = tableRows(connection, '#ClientId');
    expect(connections.map((c) => c.ClientId).sort()).toEqual(pollers.map((p) => p.clientId).sort());
    for (const c of connections) {
      expect(c.Language).toBe(CLIENT_LANGUAGE);
      expect(c.Version).toBe(clientVersionName());
    }
    const subscriptions = tableRows(connection, '#Topic');
    expect(subscriptions).toContainEqual({ Topic: topic, SubExpression: '*' });
    expect(connection).toMatch(/ConsumeType: CONSUME_PASSIVELY/);
    expect(connection).toMatch(/MessageModel: CLUSTERING/);

    // consumerStatus -g: every poller answered GET_CONSUMER_RUNNING_INFO, and mqadmin's analysis passes.
    const clients = tableRows(groupStatus, '#Index');
    expect(clients.map((c) => c.ClientId).sort()).toEqual(pollers.map((p) => p.clientId).sort());
    for (const c of clients) expect(c.Version).toBe(clientVersionName());
    expect(groupStatus).toMatch(/Same subscription in the same group of consumer/);
    expect(groupStatus).toMatch(/Rebalance OK/);

    // consumerStatus -i: one poller's running info, parsed by mqadmin with fastjson and printed.
    const properties = keyValues(section(status, 'Consumer Properties'));
    expect(properties.PROP_CONSUME_TYPE).toBe('CONSUME_PASSIVELY');
    expect(properties.PROP_CONSUMEORDERLY).toBe('false');
    expect(properties.PROP_CLIENT_VERSION).toBe(clientVersionName());
    expect(section(status, 'Consumer Subscription').join('\n')).toMatch(
      new RegExp(`Topic: ${topic}\\s+ClassFilter: false\\s+SubExpression: \\*`),
    );
    const detail = tableRows(section(status, 'Consumer MQ Detail').join('\n'), '#Topic').filter(
      (row) => row.Topic === topic,
    );
    expect(detail.map((row) => Number(row.QID)).sort()).toEqual(await heldQueueIds(first, topic));
    for (const row of detail) {
      expect(row['Broker Name']).toBe(brokerName);
      expect(row.ProcessQueueInfo).toMatch(
        new RegExp(`^ProcessQueueInfo \\[commitOffset=${perQueue}, .*cachedMsgCount=0, .*droped=false`),
      );
    }
    const userInfo = keyValues(section(status, 'User Consume Info'));
    expect(userInfo.clientRuntime).toMatch(/^rocketmq-lambda \d+\.\d+\.\d+\S* on Node\.js v\d+/);
    expect(userInfo.mapping).toBe('mqadmin');
    expect(userInfo.state).toBe('running');

    // The pollers stop; messages keep coming: consumerProgress shows the backlog queue by queue.
    await Promise.all(pollers.map((p) => p.stop()));
    await produce(producer, topic, BACKLOG, { queues: QUEUES });
    const lagging = await mqadmin('consumerProgress', ['-g', group]);
    const lagRows = tableRows(lagging, '#Topic').filter((row) => row.Topic === topic);
    expect(lagRows.map((row) => Number(row.QID)).sort()).toEqual([0, 1, 2, 3]);
    for (const row of lagRows) {
      expect(Number(row['Broker Offset'])).toBe(perQueue + BACKLOG / QUEUES);
      expect(Number(row['Consumer Offset'])).toBe(perQueue);
      expect(Number(row.Diff)).toBe(BACKLOG / QUEUES);
    }
    expect(lagging).toMatch(new RegExp(`Consume Diff Total: ${BACKLOG}\\b`));
  });
});
