/**
 * `rocketmq-lambda status` shows the live group at the real broker beside the stored offsets:
 *
 * - two pollers of one group on a topic of 8 queues: `status --json` lists both clients (client id,
 *   address, version V4_9_4, language, runtime) and the queues each holds (disjoint, together every queue
 *   of the topic), and each queue row names its live holder; the table numbers the clients;
 * - two pollers on a topic of 1 queue: the one left without a queue is "running but holding no queue";
 * - a client of the group that never answers its running info is marked as such, and status returns;
 * - right after `offsets reset`, the reset's own write is shown as a reset, never as the queue's holder;
 * - a mapping whose topic does not exist: "topic <t> does not exist", not "broker unreachable".
 */

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { offsetsCommand } from '../../../src/cli/offsets-command.js';
import { statusCommand } from '../../../src/cli/status-command.js';
import type { PushMappingStatusJson, StatusJson } from '../../../src/cli/status-render.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { type Poller, startPoller } from '../../../src/poller/poller.js';
import { buildSubscriptionData } from '../../../src/protocol/subscription.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { startDynalite } from '../../support/dynalite.js';
import { type CapturedRun, runCaptured } from '../../support/fake-cli-io.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';

/**
 * A config file of one mapping `orders` on `topic`; memory offsets (the live view is what is tested)
 * unless `offsets` says otherwise.
 */
async function configFor(
  topic: string,
  group: string,
  offsets: object = { store: 'memory' },
): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-live-group-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, 'orders.mjs'), 'export const handler = async () => ({});\n');
  const file = path.join(dir, 'poller.json');
  await writeFile(
    file,
    JSON.stringify({
      nameServer: testBroker().namesrvAddr,
      shutdownTimeoutMs: 2000,
      offsets,
      mappings: [
        {
          name: 'orders',
          topic,
          consumerGroup: group,
          function: 'local:./orders.mjs',
          startingPosition: 'TRIM_HORIZON',
          maximumBatchingWindowMs: 20,
        },
      ],
    }),
  );
  return file;
}

async function startPollers(configFile: string, count: number): Promise<Poller[]> {
  const config = await loadConfig(configFile, { env: {} });
  const pollers: Poller[] = [];
  onTestFinished(async () => {
    await Promise.all(pollers.map((p) => p.stop()));
  });
  for (let i = 0; i < count; i++) {
    pollers.push(
      await startPoller(config, {
        consumerOverrides: { rebalanceIntervalMs: 1000, routeRefreshIntervalMs: 2000 },
      }),
    );
  }
  return pollers;
}

function status(args: string[]): Promise<CapturedRun> {
  return runCaptured((io) => statusCommand(args, io));
}

/** `status --json` of the one PUSH mapping. */
async function liveStatus(configFile: string): Promise<PushMappingStatusJson> {
  const result = await status(['--config', configFile, '--json']);
  expect(result.err).toBe('');
  expect(result.code).toBe(0);
  const [mapping] = (JSON.parse(result.out) as StatusJson).mappings;
  if (mapping?.consumeMode !== 'PUSH') throw new Error(`a PUSH mapping expected: ${result.out}`);
  return mapping;
}

/** The topic queues (`broker:id`) a client of the JSON holds. */
function held(mapping: PushMappingStatusJson, clientId: string, topic: string): string[] {
  const client = mapping.liveGroup?.clients.find((c) => c.clientId === clientId);
  return (client?.queues ?? []).filter((q) => q.topic === topic).map((q) => `${q.broker}:${q.queueId}`);
}

describe('status: the live group', () => {
  it('two pollers on 8 queues: both clients with their versions, and the disjoint queues each holds', {
    timeout: 90_000,
  }, async () => {
    const topic = uniqueTopic('Live');
    const group = uniqueGroup('Live');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, 8);
    const configFile = await configFor(topic, group);
    const pollers = await startPollers(configFile, 2);
    const ids = pollers.map((p) => p.clientId).sort();
    const { brokerName } = testBroker();
    const every = Array.from({ length: 8 }, (_, id) => `${brokerName}:${id}`);

    // Rebalanced: each poller holds some queues, the two together every queue, none twice.
    const mapping = await waitFor('both pollers holding 4 queues each', 30_000, async () => {
      const m = await liveStatus(configFile);
      const [a, b] = ids.map((id) => held(m, id, topic));
      return a?.length === 4 && b?.length === 4 ? m : undefined;
    });
    const live = mapping.liveGroup;
    expect(live).toMatchObject({
      consumeType: 'CONSUME_PASSIVELY',
      messageModel: 'CLUSTERING',
      brokersAsked: 1,
      brokersAnswered: 1,
      error: null,
    });
    expect(live?.subscriptions).toContainEqual({ topic, expression: '*' });
    expect(live?.clients.map((c) => c.clientId)).toEqual(ids);
    for (const c of live?.clients ?? []) {
      expect(c).toMatchObject({
        version: 401,
        versionName: 'V4_9_4',
        language: 'JAVA',
        runningInfo: 'answered',
        runningInfoError: null,
        holdsNothing: false,
      });
      expect(c.clientAddr).toMatch(/^[\d.]+:\d+$/);
      expect(c.runtime).toMatch(/^rocketmq-lambda \d+\.\d+\.\d+\S* on Node\.js v\d+/);
    }
    const [a, b] = ids.map((id) => held(mapping, id, topic));
    expect(new Set([...(a ?? []), ...(b ?? [])])).toEqual(new Set(every));
    expect((a ?? []).filter((q) => (b ?? []).includes(q))).toEqual([]);
    // Each queue row names the client that holds it.
    for (const q of mapping.queues.filter((row) => row.topic === topic)) {
      const holder = ids.find((id) => held(mapping, id, topic).includes(`${q.broker}:${q.queueId}`));
      expect(q.liveHolders).toEqual([holder]);
    }
    // Nothing dead-lettered: the group's %DLQ% topic does not exist, a depth of 0.
    expect(mapping.deadLetters).toEqual({ topic: `%DLQ%${group}`, depth: 0, queues: 0, error: null });

    const table = await status(['--config', configFile]);
    expect(table.code, table.err).toBe(0);
    expect(table.out).toMatch(
      /clients 2 \(CLUSTERING, CONSUME_PASSIVELY\), connected to 1 of 1 broker answering:/,
    );
    for (const [index, id] of ids.entries()) {
      expect(table.out).toMatch(
        new RegExp(`\\s${index + 1}\\s+${id.replace(/[.#]/g, '\\$&')}\\s.*V4_9_4\\s+JAVA\\s.*4 queues`),
      );
    }
    expect(table.out).toMatch(
      /QUEUE\s+MIN\s+MAX\s+COMMITTED\s+LAG\s+OLDEST\s+LIVE HOLDER\s+LAST WRITER\s+LAST WRITE/,
    );
    expect(table.out).toMatch(new RegExp(`${brokerName}:0\\s.*\\s#[12]\\s`));
  });

  it('more pollers than queues: the poller left without a queue is running but holding nothing', {
    timeout: 90_000,
  }, async () => {
    const topic = uniqueTopic('LiveIdle');
    const group = uniqueGroup('LiveIdle');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, 1);
    const configFile = await configFor(topic, group);
    const pollers = await startPollers(configFile, 2);
    const mapping = await waitFor('one poller holding the queue, the other none', 30_000, async () => {
      const m = await liveStatus(configFile);
      const counts = pollers.map((p) => held(m, p.clientId, topic).length).sort();
      return m.liveGroup?.clients.length === 2 && counts[0] === 0 && counts[1] === 1 ? m : undefined;
    });
    const idle = mapping.liveGroup?.clients.find((c) => held(mapping, c.clientId, topic).length === 0);
    // Queues are allocated per topic in client-id order: the first client takes the one queue of the
    // topic and the one of the group's retry topic, the other holds nothing at all.
    expect(idle).toMatchObject({ runningInfo: 'answered', queues: [], holdsNothing: true });
    const table = await status(['--config', configFile]);
    expect(table.out).toContain('nothing: running but holding no queue');
  });

  it('a client that never answers its running info is marked as such, and status does not wait for it', {
    timeout: 60_000,
  }, async () => {
    const topic = uniqueTopic('LiveMute');
    const group = uniqueGroup('LiveMute');
    const mute = newClient();
    onTestFinished(() => mute.close());
    await createTopic(mute, topic, 1);
    // A consumer of the group whose answer never comes (a stuck process: its socket open, nothing said).
    mute.requestHandler.setRunningInfoProvider(
      group,
      () =>
        new Promise(() => {
          // Never settles.
        }),
    );
    await mute.broker.heartbeat(testBroker().brokerAddr, {
      clientID: mute.clientId,
      producerDataSet: [],
      consumerDataSet: [
        {
          groupName: group,
          consumeType: 'CONSUME_PASSIVELY',
          messageModel: 'CLUSTERING',
          consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
          subscriptionDataSet: [buildSubscriptionData(topic, '*', 'TAG', 1)],
        },
      ],
    });
    const mapping = await liveStatus(await configFor(topic, group));
    expect(mapping.liveGroup?.clients).toEqual([
      expect.objectContaining({
        clientId: mute.clientId,
        runningInfo: 'no-answer',
        runningInfoError: expect.stringMatching(/timed out after 3000 ms/),
        queues: null,
        holdsNothing: false,
      }),
    ]);
    // It may hold the queue: nobody can say who does.
    expect(mapping.queues.filter((q) => q.topic === topic).map((q) => q.liveHolders)).toEqual([null]);
  });

  it("right after an offsets reset, the reset's write is shown as a reset, never as the queue's holder", {
    timeout: 90_000,
  }, async () => {
    const db = await startDynalite();
    onTestFinished(() => db.close());
    // dynalite checks no credentials, but the SDK wants some.
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const topic = uniqueTopic('LiveReset');
    const group = uniqueGroup('LiveReset');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, 2);
    await produce(await newProducer(client), topic, 6, { queues: 2 });
    const configFile = await configFor(topic, group, {
      store: 'dynamodb',
      table: `offsets_${randomUUID()}`,
      endpoint: db.endpoint,
      region: 'us-east-1',
      createTable: true,
      persistIntervalMs: 200,
    });
    const [poller] = await startPollers(configFile, 1);
    const pollerId = poller?.clientId;
    const topicQueues = (m: PushMappingStatusJson) => m.queues.filter((q) => q.topic === topic);
    await waitFor('the poller drained and committed both queues', 30_000, async () => {
      const m = await liveStatus(configFile);
      return topicQueues(m).every((q) => q.lag === 0 && q.lastWriter === pollerId) ? m : undefined;
    });

    // The poller's reset watch adopts a reset within 5 s, possibly before status reads it: a reset read
    // after its adoption is tried again (a new generation each time), at most 3 times.
    let generation = 0;
    let seen = false;
    for (let attempt = 1; attempt <= 3 && !seen; attempt++) {
      const reset = await runCaptured((io) =>
        offsetsCommand(['reset', '--config', configFile, '--to', 'earliest', '--yes'], io),
      );
      expect(reset.code, reset.err).toBe(0);
      generation += 1;
      const after = topicQueues(await liveStatus(configFile));
      for (const q of after) {
        expect(q.liveHolders).toEqual([pollerId]);
        // Until the poller adopts it, the last write is the reset's, under the command's own client id:
        // shown as a reset, not as a commit or a holder.
        if (q.lastWriter !== pollerId) expect(q).toMatchObject({ lastWrite: 'reset', generation });
      }
      seen = after.some((q) => q.lastWrite === 'reset');
    }
    expect(seen).toBe(true);
    // Adopted: the poller wrote the new generation under its own id.
    await waitFor('the poller adopting the reset', 30_000, async () => {
      const m = await liveStatus(configFile);
      return topicQueues(m).every(
        (q) => q.lastWriter === pollerId && q.generation === generation && q.lastWrite === 'commit',
      )
        ? m
        : undefined;
    });
  });

  it('a topic that does not exist is named as such, not as an unreachable broker', async () => {
    const topic = uniqueTopic('LiveMissing');
    const configFile = await configFor(topic, uniqueGroup('LiveMissing'));
    const result = await status(['--config', configFile, '--json']);
    expect(result.code).toBe(1);
    expect(result.err).toContain(`status: orders: topic ${topic} does not exist`);
    expect(result.err).not.toContain('unreachable');
    const [mapping] = (JSON.parse(result.out) as StatusJson).mappings;
    expect(mapping).toMatchObject({ brokerErrorKind: 'topic-missing' });
    const table = await status(['--config', configFile]);
    expect(table.out).toContain(`topic ${topic} does not exist`);
    expect(table.out).not.toContain('broker unreachable');
  });
});
