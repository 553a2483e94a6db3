/**
 * `rocketmq-lambda status --json` for a consumeMode POP mapping, through the CLI's main entry, against the
 * real broker: with no poller the lag is every produced message (TRIM_HORIZON, never popped) and no
 * poller is registered; a poller holding one popped message makes the lag drop by exactly that message
 * (the broker moved the group's consumer offset at pop time) and is counted; once it drained the topic
 * the group's consumer offsets are the max offsets and the lag is 0; a stopped poller leaves the group.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { PopMappingStatusJson, StatusJson } from '../../../src/cli/status-render.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { startPoller } from '../../../src/poller/poller.js';
import { testBroker, uniqueGroup, uniqueTopic } from '../../support/broker.js';
import { runCaptured } from '../../support/fake-cli-io.js';
import { GatedInvoker } from '../../support/gated-invoker.js';
import { createTopic, newClient, newProducer, produce, waitFor } from '../consumer/helpers.js';

const QUEUES = 2;
const MESSAGES = 20;

/** `status --json` through main: exit 0, nothing on stderr, the one POP mapping. */
async function popStatus(configFile: string): Promise<PopMappingStatusJson> {
  const result = await runCaptured((io) => main(['status', '--config', configFile, '--json'], io));
  expect(result.err).toBe('');
  expect(result.code).toBe(0);
  const [mapping] = (JSON.parse(result.out) as StatusJson).mappings;
  if (mapping?.consumeMode !== 'POP') throw new Error(`a POP mapping expected: ${result.out}`);
  return mapping;
}

describe('status of a POP mapping', () => {
  it("shows the group's consumer offsets at the broker, the lag from them and the registered pollers", {
    timeout: 120_000,
  }, async () => {
    const topic = uniqueTopic('PopStatus');
    const group = uniqueGroup('PopStatus');
    const client = newClient();
    onTestFinished(() => client.close());
    await createTopic(client, topic, QUEUES);
    await produce(await newProducer(client), topic, MESSAGES, { queues: QUEUES });
    const dir = await mkdtemp(path.join(tmpdir(), 'rl-pop-status-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, 'audit.js'), 'export const handler = async () => ({});\n');
    const configFile = path.join(dir, 'poller.json');
    await writeFile(
      configFile,
      JSON.stringify({
        nameServer: testBroker().namesrvAddr,
        shutdownTimeoutMs: 2000,
        offsets: { store: 'memory' },
        mappings: [
          {
            name: 'audit',
            topic,
            consumerGroup: group,
            function: 'local:./audit.js',
            consumeMode: 'POP',
            startingPosition: 'TRIM_HORIZON',
            // One batch of one message in flight: the rest stays in the group's backlog.
            batchSize: 1,
            maxConcurrency: 1,
            maximumBatchingWindowMs: 0,
          },
        ],
      }),
    );
    const perQueue = MESSAGES / QUEUES;

    // No poller ran: nothing popped, every message is backlog.
    const before = await popStatus(configFile);
    expect(before).toMatchObject({
      name: 'audit',
      topic,
      consumerGroup: group,
      offsetStore: 'broker',
      pollers: 0,
      lag: MESSAGES,
      brokerError: null,
    });
    // Never popped: the broker keeps no consumer offset of the group (QUERY_NOT_FOUND); TRIM_HORIZON starts at 0.
    expect(
      before.queues.map((q) => [
        q.queueId,
        q.minOffset,
        q.maxOffset,
        q.consumerOffset,
        q.resumeOffset,
        q.lag,
      ]),
    ).toEqual([
      [0, 0, perQueue, null, 0, perQueue],
      [1, 0, perQueue, null, 0, perQueue],
    ]);
    for (const q of before.queues) expect(q.oldestUnconsumedAgeMs).toBeGreaterThanOrEqual(0);
    const table = await runCaptured((io) => main(['status', '--config', configFile], io));
    expect(table.code).toBe(0);
    expect(table.out).toContain(
      `audit  topic ${topic}  group ${group}  (POP, offsets at the broker)  pollers 0  lag ${MESSAGES}`,
    );

    // A poller pops one message and holds it: the broker moved the group's offset by one.
    const invoker = new GatedInvoker();
    const poller = await startPoller(await loadConfig(configFile, { env: {} }), { invoker });
    let stopped = false;
    onTestFinished(async () => {
      invoker.open();
      if (!stopped) await poller.stop();
    });
    await waitFor('the poller holding one message', 30_000, async () =>
      invoker.received === 1 ? true : undefined,
    );
    const holding = await popStatus(configFile);
    expect(holding.pollers).toBe(1);
    expect(holding.lag).toBe(MESSAGES - 1);
    const popped = holding.queues.filter((q) => q.consumerOffset !== null && q.consumerOffset > 0);
    expect(popped.map((q) => [q.consumerOffset, q.resumeOffset, q.lag])).toEqual([[1, 1, perQueue - 1]]);

    // Drained: the group's consumer offsets are the max offsets.
    invoker.open();
    const drained = await waitFor('status lag 0', 60_000, async () => {
      const status = await popStatus(configFile);
      return status.lag === 0 ? status : undefined;
    });
    expect(invoker.received).toBeGreaterThanOrEqual(MESSAGES);
    expect(drained.pollers).toBe(1);
    expect(drained.queues.map((q) => [q.queueId, q.consumerOffset, q.maxOffset, q.lag])).toEqual([
      [0, perQueue, perQueue, 0],
      [1, perQueue, perQueue, 0],
    ]);

    await poller.stop();
    stopped = true;
    expect((await popStatus(configFile)).pollers).toBe(0);
  });
});
